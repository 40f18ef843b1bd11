"""The plugin under mypy's daemon (``dmypy run``), as editors run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mypy_runs import write_project

HELPERS = """\
from typing import cast

from loomlint.content import LlmMessage


def show(m: LlmMessage) -> str:
    print(m.content)
    return cast(str, m.content)
"""
USER = """\
from helpers import show
from loomlint.content import LlmMessage


def use(m: LlmMessage) -> int:
    return len(show(m)) + len(m.content)
"""


def _dmypy(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(root / ".dmypy.json")]
    return subprocess.run(
        [*command, *args], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )


def _errors(output: str) -> set[tuple[str, int, str]]:
    found: set[tuple[str, int, str]] = set()
    for line in output.splitlines():
        if ": error: " in line and line.endswith("]"):
            location, _, rest = line.partition(": error: ")
            path, _, number = location.rpartition(":")
            found.add((path, int(number), rest.rpartition("[")[2][:-1]))
    return found


@pytest.mark.slow
def test_dmypy_reports_the_findings_and_updates_them_after_an_edit(tmp_path: Path) -> None:
    # The opt-in LML004 selected: the cast's finding is followed through the edit too.
    write_project(
        tmp_path,
        loomlint='extend-select = ["LML004"]\n',
        files={"helpers.py": HELPERS, "user.py": USER},
    )
    run = ("run", "--timeout", "120", "--", "--cache-dir", str(tmp_path / ".cache"))
    files = ("helpers.py", "user.py")
    try:
        first = _dmypy(tmp_path, *run, *files)
        assert _errors(first.stdout) == {
            ("helpers.py", 7, "loom-content-coercion"),
            ("helpers.py", 8, "loom-content-cast"),
            ("user.py", 6, "loom-content-use"),
        }, first.stdout + first.stderr

        edited = HELPERS.replace("    print(m.content)\n", '    print(f"{len(m.content)}")\n')
        (tmp_path / "helpers.py").write_text(edited, encoding="utf-8")
        second = _dmypy(tmp_path, *run, *files)
        assert _errors(second.stdout) == {
            ("helpers.py", 7, "loom-content-use"),
            ("helpers.py", 8, "loom-content-cast"),
            ("user.py", 6, "loom-content-use"),
        }, second.stdout + second.stderr
    finally:
        _dmypy(tmp_path, "stop")
