"""A typed run stays typed on messages mypy types `Any` and in functions mypy does not check: a
read of a `dict[str, Any]` that only syntax says is a chat message is a guess, and so is a read
in an unannotated function while ``check_untyped_defs`` is off; each kind is counted in a
warning of its own with why and the remedy, and reported, marked, only when asked for. A read
the presets' data grounds (an SPI class's ``isinstance()``) is reported in an unchecked
function too. The CLI (fresh and from its cache), the daemon and the language server say the
same (mypy with the plugin: tests/mypy_plugin/test_plugin_typed_any_guesses.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from daemon_harness import ANSWERED, Daemon, loomlint
from daemon_harness import runtime as runtime  # a fixture
from lsp_harness import typed_messages

pytestmark = pytest.mark.slow

APP = """\
from typing import Any

from loomlint.content import LlmMessage


def checked(kwargs: dict[str, Any]) -> bool:
    return kwargs["messages"][-1]["content"].endswith("DONE")


def unchecked(kwargs):
    return kwargs["messages"][-1]["content"].endswith("DONE")


def unchecked_grounded(messages):
    for message in messages:
        if isinstance(message, LlmMessage):
            print(message.content)
"""
USE = (
    "app.py:{line}:12: LML001 content of `kwargs['messages'][-1]` is used as one branch by "
    "`.endswith()`, but it may be a list of parts; narrow it with isinstance() first, or use "
    "text_of(...)"
)
GROUNDED = (
    "app.py:17:19: LML003 [*] content of `message` is coerced to str by print(); use text_of(...)\n"
)
GUESS = (
    USE.format(line=7)
    + " (a guess: mypy types this message `Any`, and no preset knows this read)\n"
)
UNCHECKED_GUESS = (
    USE.format(line=11)
    + " (a guess: mypy does not check this function, and no preset knows this read)\n"
)
LEFT_OUT = "it was not reported (--report-guesses, or `report-guesses = true`, reports them)"
WHY = (
    "warning: {n} in 1 file {rest} on messages mypy types `Any` (a `dict[str, Any]`, a "
    "parameter declared `Any` or not annotated, an untyped library's value), which only their "
    "syntax says are content, and no preset knows those reads: {how}. Declare the messages' "
    "types (the SDK's class, a TypedDict such as OpenAI's `ChatCompletionMessageParam`) to "
    "have them judged by types\n"
)
UNCHECKED_WHY = (
    "warning: 1 finding in 1 file is in a function mypy does not check (no annotations, and "
    "check_untyped_defs is off), judged by syntax alone, and no preset knows those reads: "
    "{how}. Set `check_untyped_defs = true` in your mypy configuration to have them judged by "
    "types\n"
)
ANY_LEFT_OUT = WHY.format(n="1 finding", rest="rests", how=LEFT_OUT)
ANY_REPORTED = WHY.format(n="1 finding", rest="rests", how="it is reported as a guess")
UNCHECKED_LEFT_OUT = UNCHECKED_WHY.format(how=LEFT_OUT)
UNCHECKED_REPORTED = UNCHECKED_WHY.format(how="it is reported as a guess")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.mypy]\n\n[tool.loomlint]\n", encoding="utf-8")
    (root / "app.py").write_text(APP, encoding="utf-8")
    return root


def test_the_cli_counts_each_kind_of_guess_and_reports_the_grounded_read(
    project: Path, runtime: Path
) -> None:
    left_out = ANY_LEFT_OUT + UNCHECKED_LEFT_OUT
    result = loomlint(project, runtime, "check", "--no-daemon", "-q")
    assert (result.returncode, result.stdout, result.stderr) == (1, GROUNDED, left_out)
    # From the result cache: counted again.
    again = loomlint(project, runtime, "check", "--no-daemon", "-q")
    assert (again.returncode, again.stdout, again.stderr) == (1, GROUNDED, left_out)
    guessed = loomlint(project, runtime, "check", "--no-daemon", "-q", "--report-guesses")
    assert (guessed.returncode, guessed.stdout, guessed.stderr) == (
        1,
        GUESS + UNCHECKED_GUESS + GROUNDED,
        ANY_REPORTED + UNCHECKED_REPORTED,
    )
    # Without types the same read is grounded, and the other two are guesses of their own
    # kind (``Guess.NO_TYPES``).
    without_types = loomlint(project, runtime, "check", "--no-daemon", "-q", "--no-types")
    assert (without_types.returncode, without_types.stdout) == (1, GROUNDED)
    assert "warning: 2 findings in 1 file are in code checked without types" in (
        without_types.stderr
    )
    no_types_note = " (a guess: checked without types, and no preset knows this read)"
    guessed_without_types = loomlint(
        project, runtime, "check", "--no-daemon", "-q", "--no-types", "--report-guesses"
    )
    assert (guessed_without_types.returncode, guessed_without_types.stdout) == (
        1,
        USE.format(line=7)
        + no_types_note
        + "\n"
        + USE.format(line=11)
        + no_types_note
        + "\n"
        + GROUNDED,
    )


def test_where_mypy_checks_every_function_both_reads_are_typed_any_guesses(
    project: Path, runtime: Path
) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.mypy]\ncheck_untyped_defs = true\n\n[tool.loomlint]\n", encoding="utf-8"
    )
    result = loomlint(project, runtime, "check", "--no-daemon", "-q")
    assert (result.returncode, result.stdout, result.stderr) == (
        1,
        GROUNDED,
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
        assert (result.returncode, result.stdout.splitlines()[:-1]) == (1, [GROUNDED.strip()])
        assert ANY_LEFT_OUT in result.stderr
        assert UNCHECKED_LEFT_OUT in result.stderr
        guessed = loomlint(project, runtime, "check", "-q", "--report-guesses")
        assert (guessed.returncode, guessed.stdout) == (
            1,
            GUESS + UNCHECKED_GUESS + GROUNDED,
        )
        assert ANY_REPORTED + UNCHECKED_REPORTED in guessed.stderr
    finally:
        daemon.stop()


def test_the_language_server_shows_the_same(project: Path) -> None:
    # After the quick result (without types: the guesses too), the typed one.
    assert typed_messages(project, "app.py", [("LML003", 16, 18, 16, 33)]) == [
        "content of `message` is coerced to str by print(); use text_of(...)"
    ]
