from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def mypy_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One mypy cache per test session (per xdist worker): builtins and the SDKs the presets
    import are analysed once, not once per test."""
    cache = tmp_path_factory.mktemp("mypy-cache")
    previous = os.environ.get("MYPY_CACHE_DIR")
    os.environ["MYPY_CACHE_DIR"] = str(cache)
    yield cache
    if previous is None:
        del os.environ["MYPY_CACHE_DIR"]
    else:
        os.environ["MYPY_CACHE_DIR"] = previous


@pytest.fixture(scope="session", autouse=True)
def user_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's cache folder (where the result cache's key lives) is the session's own."""
    folder = tmp_path_factory.mktemp("user-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        yield folder
