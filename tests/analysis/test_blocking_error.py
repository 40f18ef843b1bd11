"""A build mypy stopped is blamed on the file of the error that stopped it, not on the first
file with any error (a missing import does not stop mypy)."""

from __future__ import annotations

import os

from loomlint.run.oracle import OracleUnavailable, _blocking_error, _TargetCrash

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
    assert (crash.abspath, crash.reason) == (
        os.path.abspath("configuration.py"),
        "mypy stopped with a blocking error: configuration.py: error: Source file found twice "
        'under different module names: "configuration" and "pkg.configuration"',
    )


def test_an_error_outside_the_targets_makes_mypy_unavailable() -> None:
    messages = ["setup.cfg: error: Invalid section", "other.py:1: note: See the docs"]
    unavailable = _blocking_error(messages, TARGETS)
    assert isinstance(unavailable, OracleUnavailable)
    assert str(unavailable) == "setup.cfg: error: Invalid section / other.py:1: note: See the docs"
