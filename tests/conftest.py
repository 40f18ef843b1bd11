from __future__ import annotations

import compileall
import gc
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mypy_caches import (
    CONTENT,
    SDKS,
    MypyCaches,
    mypy_table,
    only_its_configuration,
    typeshed_rewritten,
)

REPO = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    """Compile loomlint's bytecode once, before the suite starts its processes (real mypy with
    the plugin and its worker, ``loomlint check``, the analysis pool, the daemon, the server).

    An installed loomlint has its bytecode; this editable checkout has it only once an import
    writes it, which ``PYTHONDONTWRITEBYTECODE`` (set on the machines this suite was written
    on) prevents: every process would compile loomlint's source again. Only the controller
    compiles (pytest-xdist's workers start after it)."""
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(REPO / "loomlint", quiet=1)


@pytest.fixture(scope="session")
def repo_mypy_cache(mypy_caches: MypyCaches, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The worker's mypy cache for the builds that read the repository's ``[tool.mypy]`` (the
    fixtures' checks, run from the repository): a copy of the run's template of that
    configuration, where typeshed and the SDKs the presets import are built already."""
    cache = tmp_path_factory.mktemp("repo-mypy-cache")
    return mypy_caches.copy(cache, mypy=mypy_table(REPO / "pyproject.toml"), modules=SDKS)


# What the defaults' template builds: typeshed, the reference SPI and LangChain's messages (the
# SDK of most tests' projects).
DEFAULT_MODULES = (*CONTENT, "langchain_core.messages")


@pytest.fixture(scope="session")
def default_mypy_cache(mypy_caches: MypyCaches, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The worker's mypy cache for every other build that names none of its own: a copy of the
    template of mypy's defaults (no configuration file)."""
    cache = tmp_path_factory.mktemp("default-mypy-cache")
    return mypy_caches.copy(cache, mypy=None, modules=DEFAULT_MODULES)


@pytest.fixture(autouse=True)
def other_mypy_cache(default_mypy_cache: Path, mypy_caches: MypyCaches) -> Iterator[Path]:
    """``MYPY_CACHE_DIR`` for a test that names no cache (``mypy_cache_dir`` or its own). A
    fixture that names one for a test must be function-scoped: a wider one is set up before
    this one, which would name the defaults' cache over it.

    Never the repository configuration's cache: mypy keeps one entry per module in a cache,
    under a folder per ``python_version``, so a build with other options rewrites every module
    it shares with that configuration, typeshed and the SDKs included, and the next fixture
    check builds them again (on Python 3.10, the repository's ``python_version``, the defaults
    share its folder: some 2,000 modules rebuilt at a time).

    A test whose project names mypy options of its own (strict, its own plugins...) builds them
    here, and leaves typeshed stale for mypy's defaults: the cache is then the template's copy
    again for the next test, which would otherwise build typeshed (and LangChain, some eight
    CPU-seconds) once more."""
    since = time.time()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MYPY_CACHE_DIR", str(default_mypy_cache))
        yield default_mypy_cache
    if typeshed_rewritten(default_mypy_cache, since):
        shutil.rmtree(default_mypy_cache, ignore_errors=True)
        mypy_caches.copy(default_mypy_cache, mypy=None, modules=DEFAULT_MODULES)


@pytest.fixture
def mypy_cache_dir(repo_mypy_cache: Path) -> Iterator[Path]:
    """``MYPY_CACHE_DIR`` for a test whose builds read the repository's ``[tool.mypy]``: the
    worker's cache of that configuration (``repo_mypy_cache``). A test that builds with other
    options here fails (``only_its_configuration``)."""
    with only_its_configuration(repo_mypy_cache):
        yield repo_mypy_cache


@pytest.fixture(scope="session")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The temporary folder of the whole run, shared by pytest-xdist's workers (the folder
    above a worker's own); whatever a worker makes there, it makes under a file lock."""
    folder = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = folder.parent
    return folder


@pytest.fixture(scope="session")
def mypy_caches(run_folder: Path) -> MypyCaches:
    """The run's mypy cache templates, one per configuration (``mypy_caches``), shared by
    pytest-xdist's workers."""
    return MypyCaches(run_folder / "mypy-cache-templates")


@pytest.fixture(scope="session", autouse=True)
def user_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The user's cache folder (where the result cache's key lives) is the session's own."""
    folder = tmp_path_factory.mktemp("user-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(folder))
        yield folder


_GC_THRESHOLDS = gc.get_threshold()


@pytest.fixture(autouse=True)
def in_process_mypy_sees_only_its_own_heap() -> Iterator[None]:
    """mypy run in this process (``mypy.api``, ``loomlint check`` through CliRunner) is run as
    in a process of its own, as far as the heap goes.

    loomlint's plugin and its checked-modules hook find mypy's build by scanning the heap
    (``gc.get_referrers``), which in a test worker holds every earlier test's objects: after
    a build of the SDKs a scan costs seconds, twice per build. So everything older than the
    test is frozen (``gc.freeze``: out of the scans and the collections) while it runs. A
    build leaves its trees in mypy's ``modules_state`` and raises the collector's thresholds
    for good; after such a test its trees are let go and collected (only the test's own
    objects are traversed, the rest being frozen), and the thresholds are restored.
    """
    gc.freeze()
    try:
        yield
    finally:
        if gc.get_threshold() != _GC_THRESHOLDS:
            from mypy.modules_state import modules_state

            # As mypy's own tests let a build go (mypy/test/testexportjson.py).
            modules_state.modules = {}
            modules_state.node_fixer = None
            gc.collect()
            gc.set_threshold(*_GC_THRESHOLDS)
        gc.unfreeze()
