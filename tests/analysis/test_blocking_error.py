"""A build mypy stopped is blamed on the file of the error that stopped it, not on the first
file with any error (a missing import does not stop mypy)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings
from loomlint.run.oracle import (
    MypyOracle,
    OracleUnavailable,
    SourceFile,
    _blocking_error,
    _TargetCrash,
)

TARGETS = {os.path.abspath(p): p for p in ("graph.py", "configuration.py")}


def test_the_last_error_naming_a_target_is_the_blocking_one() -> None:
    messages = [
        'graph.py:3: error: Cannot find implementation or library stub for module named "x"  '
        "[import-not-found]",
        "graph.py:3: note: See https://mypy.readthedocs.io/en/stable/running_mypy.html",
        "configuration.py: error: Source file found twice under different module names: "
        '"configuration" and "pkg.configuration"',
        "configuration.py: note: Common resolutions include:",
    ]
    crash = _blocking_error(messages, TARGETS)
    assert isinstance(crash, _TargetCrash)
    assert (crash.abspaths, crash.reason) == (
        (os.path.abspath("configuration.py"),),
        "mypy stopped with a blocking error: configuration.py: error: Source file found twice "
        'under different module names: "configuration" and "pkg.configuration"',
    )


def test_an_error_outside_the_targets_makes_mypy_unavailable() -> None:
    messages = ["setup.cfg: error: Invalid section", "other.py:1: note: See the docs"]
    unavailable = _blocking_error(messages, TARGETS)
    assert isinstance(unavailable, OracleUnavailable)
    assert str(unavailable) == "setup.cfg: error: Invalid section / other.py:1: note: See the docs"


def test_after_four_stopped_builds_the_files_left_say_what_happened(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Each build stops on the first file still pending (a blocking error of its own): the
    # oracle leaves that file out and builds again, four builds in all.
    files = [SourceFile(f"f{n}.py", "x = 1\n") for n in range(6)]

    def build(self: MypyOracle, pending: list[SourceFile], consumer: object) -> object:
        raise _TargetCrash([os.path.abspath(pending[0].path)], f"stopped on {pending[0].path}")

    monkeypatch.setattr(MypyOracle, "_build", build)
    settings = load_settings(tmp_path, overrides=CliOverrides())
    result = MypyOracle(settings.spi).analyze(files)
    left = (
        "mypy stopped on other files of this run 4 times (a blocking error or a crash each "
        "time), and was not run again"
    )
    assert result.failures == {
        "f0.py": "stopped on f0.py",
        "f1.py": "stopped on f1.py",
        "f2.py": "stopped on f2.py",
        "f3.py": "stopped on f3.py",
        "f4.py": left,
        "f5.py": left,
    }


def test_a_stopped_build_asks_once_which_files_mypy_must_not_be_given(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The first stop asks ``refuse`` of every file given; those it names are left out with
    # its reason (the culprit's too), and later stops are the retries' as before.
    files = [SourceFile(f"f{n}.py", "x = 1\n") for n in range(6)]
    asked: list[list[str]] = []

    def build(self: MypyOracle, pending: list[SourceFile], consumer: object) -> object:
        raise _TargetCrash([os.path.abspath(pending[0].path)], f"stopped on {pending[0].path}")

    def refuse(paths: list[str]) -> dict[str, str]:
        asked.append(list(paths))
        return {path: f"{path} does not compile" for path in paths if path in ("f0.py", "f2.py")}

    monkeypatch.setattr(MypyOracle, "_build", build)
    settings = load_settings(tmp_path, overrides=CliOverrides())
    result = MypyOracle(settings.spi, refuse=refuse).analyze(files)
    assert asked == [[f"f{n}.py" for n in range(6)]]
    assert result.failures == {
        "f0.py": "f0.py does not compile",
        "f2.py": "f2.py does not compile",
        "f1.py": "stopped on f1.py",
        "f3.py": "stopped on f3.py",
        "f4.py": "stopped on f4.py",
        "f5.py": (
            "mypy stopped on other files of this run 4 times (a blocking error or a crash each "
            "time), and was not run again"
        ),
    }
