"""Shared mypy runs: the fixture set is checked once per worker; each test's mypy cache starts
from the session's template of its configuration (``mypy_caches``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mypy_caches import SDKS, MypyCaches
from mypy_runs import FIXTURES, PLUGIN_STRICT, MypyRun, run_mypy, write_project


@pytest.fixture
def mypy_cache(mypy_caches: MypyCaches, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mypy cache of the test's own, where typeshed and ``loomlint.content`` are built as
    ``write_project``'s configuration builds them (the plugin, strict)."""
    return mypy_caches.copy(tmp_path_factory.mktemp("mypy-cache"), mypy=PLUGIN_STRICT)


@pytest.fixture
def sdk_mypy_cache(mypy_caches: MypyCaches, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """As ``mypy_cache``, with the SDKs the presets name built too."""
    cache = tmp_path_factory.mktemp("sdk-mypy-cache")
    return mypy_caches.copy(cache, mypy=PLUGIN_STRICT, modules=SDKS)


@pytest.fixture
def check_sdk_mypy_cache(
    mypy_caches: MypyCaches, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """``MYPY_CACHE_DIR`` for the module's ``loomlint check`` runs over projects written by
    ``write_project``: another copy of ``sdk_mypy_cache``'s template."""
    cache = tmp_path_factory.mktemp("check-mypy-cache")
    mypy_caches.copy(cache, mypy=PLUGIN_STRICT, modules=SDKS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MYPY_CACHE_DIR", str(cache))
        yield cache


@pytest.fixture(scope="session")
def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*.py"))


def _fixture_run(
    tmp_path_factory: pytest.TempPathFactory,
    caches: MypyCaches,
    files: list[Path],
    *,
    plugin: bool,
) -> MypyRun:
    root = tmp_path_factory.mktemp("with-plugin" if plugin else "without-plugin")
    mypy = PLUGIN_STRICT if plugin else "strict = true\n"
    # The opt-in LML004 is selected: the fixtures mark its casts (loom-content-cast).
    config = write_project(root, mypy=mypy, loomlint='extend-select = ["LML004"]\n')
    cache = caches.copy(tmp_path_factory.mktemp("mypy-cache"), mypy=mypy)
    args = ["--config-file", str(config), "--cache-dir", str(cache), *map(str, files)]
    return run_mypy(args, cwd=root)


@pytest.fixture(scope="session")
def fixture_run(
    tmp_path_factory: pytest.TempPathFactory, mypy_caches: MypyCaches, fixture_files: list[Path]
) -> MypyRun:
    """mypy with the plugin over every fixture file."""
    return _fixture_run(tmp_path_factory, mypy_caches, fixture_files, plugin=True)


@pytest.fixture(scope="session")
def plain_run(
    tmp_path_factory: pytest.TempPathFactory, mypy_caches: MypyCaches, fixture_files: list[Path]
) -> MypyRun:
    """mypy without the plugin over the same files."""
    return _fixture_run(tmp_path_factory, mypy_caches, fixture_files, plugin=False)
