"""Shared mypy runs: the fixture set is checked once per worker, with one cache per worker."""

from __future__ import annotations

from pathlib import Path

import pytest
from mypy_runs import FIXTURES, MypyRun, run_mypy, write_project


@pytest.fixture(scope="session")
def mypy_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for the runs that do not test caching (builtins are checked once)."""
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.fixture(scope="session")
def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*.py"))


def _fixture_run(
    tmp_path_factory: pytest.TempPathFactory, cache: Path, files: list[Path], *, plugin: bool
) -> MypyRun:
    root = tmp_path_factory.mktemp("with-plugin" if plugin else "without-plugin")
    mypy = 'plugins = ["loomlint.mypy_plugin"]\nstrict = true\n' if plugin else "strict = true\n"
    # The opt-in LML004 is selected: the fixtures mark its casts (loom-content-cast).
    config = write_project(root, mypy=mypy, loomlint='extend-select = ["LML004"]\n')
    args = ["--config-file", str(config), "--cache-dir", str(cache), *map(str, files)]
    return run_mypy(args, cwd=root)


@pytest.fixture(scope="session")
def fixture_run(
    tmp_path_factory: pytest.TempPathFactory, mypy_cache: Path, fixture_files: list[Path]
) -> MypyRun:
    """mypy with the plugin over every fixture file."""
    return _fixture_run(tmp_path_factory, mypy_cache, fixture_files, plugin=True)


@pytest.fixture(scope="session")
def plain_run(
    tmp_path_factory: pytest.TempPathFactory, mypy_cache: Path, fixture_files: list[Path]
) -> MypyRun:
    """mypy without the plugin over the same files."""
    return _fixture_run(tmp_path_factory, mypy_cache, fixture_files, plugin=False)
