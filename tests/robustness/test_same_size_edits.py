"""Edits that keep a file's size and set its modification time back (`touch -d`, a restore from
a backup, a synchronisation tool): no cache and no daemon may answer from the old text."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from daemon_harness import ANSWERED, Daemon, loomlint
from daemon_harness import runtime as runtime  # a fixture

from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings
from loomlint.run.runner import run_check

USE = """\
from dep import Msg

def preview(m: Msg) -> str:
    return m.content.strip()
"""
WITH_PARTS = """\
from dataclasses import dataclass
from loomlint.content import TextPart

@dataclass
class Msg:
    content: str | list[TextPart]
"""
TEXT_ONLY = """\
from dataclasses import dataclass

@dataclass
class Msg:
    content: str
"""


def same_size(text: str, like: str) -> str:
    """``text`` padded with a comment to the size of ``like``."""
    padding = len(like.encode()) - len(text.encode()) - 2
    assert padding >= 0
    return text + "#" + "x" * padding + "\n"


def rewrite_in_place(path: Path, text: str) -> None:
    """Write ``text`` over ``path`` (of the same size), then set its times back."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def findings(
    project: Path, *, types: bool = True, cache: bool = True
) -> list[tuple[int, int, str]]:
    """`loomlint check use.py`: its findings' (line, column, code)."""
    settings = load_settings(project, overrides=CliOverrides(no_types=not types))
    run = run_check([str(project / "use.py")], settings, use_cache=cache)
    return [(d.line, d.column, d.code) for r in run.results for d in r.diagnostics]


@pytest.mark.slow
def test_a_dependency_rewritten_at_the_same_size_and_mtime_is_not_answered_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    mypy_cache = tmp_path / "mypy-cache"
    monkeypatch.setenv("MYPY_CACHE_DIR", str(mypy_cache))
    monkeypatch.chdir(project)
    (project / "use.py").write_text(USE)
    (project / "dep.py").write_text(WITH_PARTS)
    assert findings(project) == [(4, 12, "LML001")]
    rewrite_in_place(project / "dep.py", same_size(TEXT_ONLY, WITH_PARTS))
    # Without its cache, mypy reads dep.py again (with it, mypy's own rule holds: its size
    # and mtime to the second; docs/performance.md).
    shutil.rmtree(mypy_cache)
    assert findings(project) == []
    assert findings(project, cache=False) == []


def test_without_types_an_imported_module_rewritten_at_the_same_size_and_mtime_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "use.py").write_text(USE)
    (tmp_path / "dep.py").write_text(same_size(TEXT_ONLY, WITH_PARTS))
    # Without types, dep.py's `content: str` is the evidence that m.content is no content.
    assert findings(tmp_path, types=False) == []
    rewrite_in_place(tmp_path / "dep.py", WITH_PARTS)
    assert findings(tmp_path, types=False) == [(4, 12, "LML001")]
    assert findings(tmp_path, types=False, cache=False) == [(4, 12, "LML001")]


@pytest.mark.slow
def test_the_daemon_answers_from_the_text_on_disk_after_same_size_edits(
    tmp_path: Path, runtime: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[tool.loomlint]\n")
    use = USE.replace("from dep import Msg", "from dep import Msg, Txt")
    dep = WITH_PARTS + "\n@dataclass\nclass Txt:\n    content: str\n"
    (project / "use.py").write_text(use)
    (project / "dep.py").write_text(dep)
    strip = (
        "use.py:4:12: LML001 content of `m` is used as one branch by `.strip()`, but it "
        "may be a list of parts; narrow it with isinstance() first, or use text_of(...)\n"
        "Found 1 finding.\n"
    )
    running = Daemon(project, runtime)
    try:

        def check(expected: str) -> None:
            done = loomlint(project, runtime, "check", "-v", "use.py")
            assert done.stderr.startswith(ANSWERED), done.stderr
            assert done.stdout == expected

        check(strip)
        # The checked file itself: its parameter becomes a Txt, and back.
        rewrite_in_place(project / "use.py", use.replace("(m: Msg)", "(m: Txt)"))
        check("All checks passed.\n")
        rewrite_in_place(project / "use.py", use)
        check(strip)
        # A file it imports: Msg.content becomes text only.
        rewrite_in_place(project / "dep.py", same_size(dep.replace(" | list[TextPart]", ""), dep))
        check("All checks passed.\n")
        # A check in its own process, with a mypy cache of its own, says the same.
        local = loomlint(
            project,
            runtime,
            "check",
            "--no-daemon",
            "--no-cache",
            "use.py",
            MYPY_CACHE_DIR=str(tmp_path / "mypy-cache"),
        )
        assert local.stdout == "All checks passed.\n"
    finally:
        running.stop()
