"""A change of ``[tool.loomlint]`` re-checks the modules the plugin judges, and only those
(``mypy_plugin.settings_log``): real mypy runs on one cache, read through mypy's ``-v`` log."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mypy_runs import LOOSE_TEXT_HELPERS as HELPERS
from mypy_runs import MypyRun, run_mypy, write_project

from loomlint.mypy_plugin.settings_log import _fold  # pyright: ignore[reportPrivateUsage]

# Imports the judged module; names no content: the plugin judges nothing here.
CALLER = """\
from helpers import loose_text


def shout(text: str) -> str:
    return loose_text(text)
"""
ALONE = "def add(a: int, b: int) -> int:\n    return a + b\n"
FILES = {"helpers.py": HELPERS, "caller.py": CALLER, "alone.py": ALONE}
SHOW_PRINT = ("helpers.py", 9, "loom-content-coercion")
SHOW_LOOSE = ("helpers.py", 10, "loom-content-use")
_SCHEDULED = re.compile(r"Scheduling SCC (?:singleton|of size \d+) \(([^)]*)\) as")


def _mypy(root: Path, cache: Path) -> tuple[MypyRun, set[str]]:
    """mypy's report, and the modules it checked again (from its ``-v`` log)."""
    args = ["-v", "--config-file", str(root / "pyproject.toml"), "--cache-dir", str(cache)]
    run = run_mypy([*args, *FILES], cwd=root)
    checked = {module for line in _SCHEDULED.findall(run.stderr) for module in line.split()}
    return run, checked


@pytest.mark.slow
def test_a_settings_change_rechecks_only_the_judged_modules(tmp_path: Path) -> None:
    root, cache = tmp_path / "project", tmp_path / "cache"
    write_project(root, files=FILES)
    cold, checked = _mypy(root, cache)
    assert cold.keys() == {SHOW_PRINT, SHOW_LOOSE}
    assert {"helpers", "caller", "alone", "builtins"} <= checked

    warm, checked = _mypy(root, cache)
    assert (warm.keys(), checked) == ({SHOW_PRINT, SHOW_LOOSE}, set())

    # One key of [tool.loomlint]: helpers.py is checked again (its findings follow the new
    # setting), and nothing else: not caller.py, which imports it, nor typeshed.
    write_project(root, files=FILES, loomlint='accessors = ["helpers.loose_text"]')
    changed, checked = _mypy(root, cache)
    assert (changed.keys(), checked) == ({SHOW_PRINT}, {"helpers"})
    assert "Metadata abandoned for helpers: plugin configuration differs" in changed.stderr

    again, checked = _mypy(root, cache)
    assert (again.keys(), checked) == ({SHOW_PRINT}, set())

    # Back to the first settings: checked again, the first findings back.
    write_project(root, files=FILES)
    back, checked = _mypy(root, cache)
    assert (back.keys(), checked) == ({SHOW_PRINT, SHOW_LOOSE}, {"helpers"})


def _module(name: str, build: str, settings: str = "S", content: bool = True) -> dict[str, object]:
    return {"module": name, "settings": settings, "content": content, "build": build}


def test_lines_of_a_completed_build_stand() -> None:
    lines = [{"build": "a", "snapshot": None}, _module("m", "a"), _module("n", "a", content=False)]
    judged, abandoned = _fold(lines, 10.0)
    assert {name: (j.settings, j.names_content) for name, j in judged.items()} == {
        "m": ("S", True),
        "n": ("S", False),
    }
    assert abandoned is None


def test_lines_of_a_build_that_did_not_complete_never_stand() -> None:
    # Build b began after a completed (the snapshot moved), and did not complete itself (the
    # snapshot is still the one it found): what it wrote ahead stands for nothing, not even
    # the lines a wrote for the same module.
    lines = [
        {"build": "a", "snapshot": None},
        _module("m", "a"),
        _module("n", "a"),
        {"build": "b", "snapshot": 10.0},
        _module("m", "b", settings="T"),
    ]
    judged, abandoned = _fold(lines, 10.0)
    assert set(judged) == {"n"}
    assert abandoned == "b"
    # Said abandoned, b stays so when a later build that wrote nothing moves the snapshot.
    judged, abandoned = _fold([*lines, {"abandoned": "b"}], 11.0)
    assert (set(judged), abandoned) == ({"n"}, None)
    # Without that line, the later snapshot would pass for b's own.
    assert set(_fold(lines, 11.0)[0]) == {"m", "n"}
