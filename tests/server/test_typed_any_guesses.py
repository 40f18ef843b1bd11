"""A typed run stays typed on messages mypy types `Any` too: a read of a `dict[str, Any]` that
only syntax says is a chat message is a guess, counted in the run's warning with why, and
reported, marked, only when asked for; a read in a function mypy does not check (unannotated,
``check_untyped_defs`` off) is judged as without types and reported, as before. The CLI (fresh
and from its cache) and the daemon say the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from daemon_harness import ANSWERED, Daemon, loomlint
from daemon_harness import runtime as runtime  # a fixture

pytestmark = pytest.mark.slow

APP = """\
from typing import Any


def checked(kwargs: dict[str, Any]) -> bool:
    return kwargs["messages"][-1]["content"].endswith("DONE")


def unchecked(kwargs):
    return kwargs["messages"][-1]["content"].endswith("DONE")
"""
USE = (
    "app.py:{line}:12: LML001 content of `kwargs['messages'][-1]` is used as one branch by "
    "`.endswith()`, but it may be a list of parts; narrow it with isinstance() first"
)
UNCHECKED = USE.format(line=9) + "\n"
GUESS = (
    USE.format(line=5)
    + " (a guess: mypy types this message `Any`, and no preset knows this read)\n"
)
WHY = (
    "warning: {n} in 1 file {rest} on messages mypy types `Any` (a `dict[str, Any]`, a "
    "parameter declared `Any` or not annotated, an untyped library's value), which only their "
    "syntax says are content, and no preset knows those reads: {how}. Declare the messages' "
    "types (the SDK's class, a TypedDict such as OpenAI's `ChatCompletionMessageParam`) to "
    "have them judged by types\n"
)
LEFT_OUT = WHY.format(
    n="1 finding",
    rest="rests",
    how="it was not reported (--report-guesses, or `report-guesses = true`, reports them)",
)
REPORTED = WHY.format(n="1 finding", rest="rests", how="it is reported as a guess")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.mypy]\n\n[tool.loomlint]\n", encoding="utf-8")
    (root / "app.py").write_text(APP, encoding="utf-8")
    return root


def test_the_cli_counts_the_guess_and_reports_the_unchecked_read(
    project: Path, runtime: Path
) -> None:
    result = loomlint(project, runtime, "check", "--no-daemon", "-q")
    assert (result.returncode, result.stdout, result.stderr) == (1, UNCHECKED, LEFT_OUT)
    # From the result cache: counted again.
    again = loomlint(project, runtime, "check", "--no-daemon", "-q")
    assert (again.returncode, again.stdout, again.stderr) == (1, UNCHECKED, LEFT_OUT)
    guessed = loomlint(project, runtime, "check", "--no-daemon", "-q", "--report-guesses")
    assert (guessed.returncode, guessed.stdout, guessed.stderr) == (
        1,
        GUESS + UNCHECKED,
        REPORTED,
    )
    without_types = loomlint(project, runtime, "check", "--no-daemon", "-q", "--no-types")
    assert (without_types.returncode, without_types.stdout) == (
        1,
        USE.format(line=5) + "\n" + UNCHECKED,
    )


def test_where_mypy_checks_every_function_both_reads_are_guesses(
    project: Path, runtime: Path
) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.mypy]\ncheck_untyped_defs = true\n\n[tool.loomlint]\n", encoding="utf-8"
    )
    result = loomlint(project, runtime, "check", "--no-daemon", "-q")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "",
        WHY.format(
            n="2 findings",
            rest="rest",
            how="they were not reported (--report-guesses, or `report-guesses = true`, "
            "reports them)",
        ),
    )


def test_the_daemon_says_the_same(project: Path, runtime: Path) -> None:
    daemon = Daemon(project, runtime)
    try:
        result = loomlint(project, runtime, "check", "-v")
        assert ANSWERED in result.stderr, result.stderr
        assert (result.returncode, result.stdout.splitlines()[:-1]) == (1, [UNCHECKED.strip()])
        assert LEFT_OUT in result.stderr
        guessed = loomlint(project, runtime, "check", "-q", "--report-guesses")
        assert (guessed.returncode, guessed.stdout) == (1, GUESS + UNCHECKED)
    finally:
        daemon.stop()
