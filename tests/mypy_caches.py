"""mypy caches built once per test session, one per mypy configuration, and copied into the
cache folder a test gives mypy or ``loomlint check``.

A cold build of typeshed and ``loomlint.content`` costs more than most tests' own work, and a
cold build of the SDKs the presets name (LangChain, OpenAI, Anthropic, pydantic-ai) some thirty
CPU-seconds. A test that is about a cold build or about the cache itself keeps a cold cache of
its own; every other test that would build these modules again starts from a copy of the
template of its configuration instead: the same real build, whose unchanged modules mypy finds
fresh in the cache, as in a user's second run.

A template is keyed by what makes mypy's cache entries fresh or stale: the Python, mypy, the
configuration file's name and its mypy options (the ``[tool.mypy]`` table or ``[mypy]``
section, given as text), and the modules built. It is built by a plain ``mypy`` process over a
module importing those modules, with an empty ``[tool.loomlint]`` (loomlint's settings are not
part of mypy's cache entries: the plugin records them beside the cache for the modules it
judges, which a template has none of). pytest-xdist's workers share the templates: the first
to need one builds it, under a file lock, while the others wait for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from filelock import FileLock
from mypy.version import __version__ as mypy_version

# Typeshed and the reference SPI: what every test of a typed check builds.
CONTENT = ("loomlint.content",)
# ... and the SDKs the presets name (their fixtures import them).
SDKS = (*CONTENT, "langchain_core.messages", "openai", "anthropic", "pydantic_ai")


def mypy_table(pyproject: Path) -> str:
    """The ``[tool.mypy]`` table of ``pyproject``, as written (its options, for ``copy``)."""
    lines = pyproject.read_text(encoding="utf-8").splitlines(keepends=True)
    start = lines.index("[tool.mypy]\n") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("[")), len(lines))
    return "".join(lines[start:end])


class MypyCaches:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def copy(
        self,
        destination: Path,
        *,
        mypy: str | None,
        file: str = "pyproject.toml",
        modules: Sequence[str] = CONTENT,
    ) -> Path:
        """``destination`` (a mypy cache folder, made if need be) holding the template built
        with the mypy options ``mypy`` (None: no configuration file) written in a file named
        ``file`` (``pyproject.toml``: the ``[tool.mypy]`` table; ``mypy.ini`` or ``setup.cfg``:
        the ``[mypy]`` section), over ``modules``."""
        template = self.template(mypy=mypy, file=file, modules=modules)
        # A reader of a template's database (loomlint check reads the store a recorded build
        # names) makes its -wal and -shm files for as long as it reads: they are not the
        # template's (it keeps none, see ``_build``).
        shutil.copytree(
            template,
            destination,
            dirs_exist_ok=True,
            ignore=shutil.ignore_patterns("*.db-wal", "*.db-shm", "*.db-journal"),
        )
        return destination

    def template(self, *, mypy: str | None, file: str, modules: Sequence[str]) -> Path:
        key = hashlib.sha256(
            json.dumps(
                [sys.executable, sys.version, mypy_version, file, mypy, sorted(modules)]
            ).encode()
        ).hexdigest()[:16]
        template = self.folder / key / "cache"
        built = self.folder / key / "built"
        with FileLock(self.folder / f"{key}.lock"):
            if not built.exists():
                _build(self.folder / key, template, mypy=mypy, file=file, modules=modules)
                built.write_text("")
        return template


# Runs a command, then waits for every process it left behind: the plugin's worker outlives
# mypy's process by the moment it takes to read mypy's stores (it records the build), and a
# template is whole only once nobody has it open. Linux's child subreaper: the orphans of the
# command are this process's children.
_WAIT_FOR_DESCENDANTS = """
import ctypes, os, subprocess, sys
if sys.platform == "linux":
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
status = subprocess.call(sys.argv[1:])
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
sys.exit(status)
"""


def _build(
    folder: Path,
    cache: Path,
    *,
    mypy: str | None,
    file: str,
    modules: Sequence[str],
) -> None:
    project = folder / "project"
    shutil.rmtree(folder, ignore_errors=True)
    project.mkdir(parents=True)
    if file == "pyproject.toml":
        configuration = f"[tool.mypy]\n{mypy or ''}\n\n[tool.loomlint]\n"
    else:
        configuration = f"[mypy]\n{mypy or ''}\n"
    if mypy is not None:
        (project / file).write_text(configuration, encoding="utf-8")
    (project / "warm_up.py").write_text("".join(f"import {m}\n" for m in modules))
    environment = {k: v for k, v in os.environ.items() if k != "MYPY_CACHE_DIR"}
    mypy_command = [sys.executable, "-m", "mypy", "--cache-dir", str(cache), "warm_up.py"]
    done = subprocess.run(
        [sys.executable, "-c", _WAIT_FOR_DESCENDANTS, *mypy_command],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    # No error is expected: an import mypy cannot follow would leave the template short.
    assert done.returncode == 0, done.stdout + done.stderr
    # mypy leaves its SQLite stores in WAL mode, part of their pages in the -wal file it does
    # not checkpoint when it exits: each is made whole in its .db file (journal_mode=DELETE
    # checkpoints the WAL and removes it), so that a copy of the .db files alone is the cache.
    # mypy sets WAL mode again when it writes a copy.
    for connection in _stores(cache):
        connection.execute("PRAGMA journal_mode=DELETE").fetchall()
    assert not sorted(cache.glob("*/*.db-wal")), sorted(cache.glob("*/*.db-wal"))


def _stores(cache: Path) -> Iterator[sqlite3.Connection]:
    """A connection to each of ``cache``'s SQLite stores (one per shard and
    ``python_version``), closed once the caller is done with it."""
    for database in sorted(cache.glob("*/*.db")):
        connection = sqlite3.connect(database, timeout=60)
        try:
            yield connection
        finally:
            connection.close()


@contextlib.contextmanager
def only_its_configuration(cache: Path) -> Iterator[pytest.MonkeyPatch]:
    """``MYPY_CACHE_DIR`` is ``cache`` meanwhile (on the patch yielded, for more), and the test
    fails if a build rewrote ``builtins`` there: the cache's configuration built it already, so
    only a build with other options (another ``python_version``, ``strict``, plugins...)
    rewrites it, and with it every module it shares with the cache."""
    since = time.time()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MYPY_CACHE_DIR", str(cache))
        yield patch
    assert not typeshed_rewritten(cache, since), (
        f"a build with other mypy options than {cache}'s rewrote typeshed there: give the "
        "test a cache of its own configuration (default_mypy_cache, a template)"
    )


def typeshed_rewritten(cache: Path, since: float) -> bool:
    """Whether a build wrote ``builtins`` into ``cache`` since ``since`` (``time.time()``): in
    a cache where its configuration built it, only a build with other options does."""
    for connection in _stores(cache):
        if connection.execute(
            "SELECT 1 FROM files2 WHERE path LIKE 'builtins.meta%' AND mtime >= ? LIMIT 1", (since,)
        ).fetchall():
            return True
    return False
