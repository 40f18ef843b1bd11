"""A typed run stays typed when a provider's SDK is not installed (issue 28): on
fixtures/missing_sdk, whose provider module imports ``acme_llm`` (no such package, no preset
data) and ``mcp`` (out of mypy's reach; the ``mcp`` preset knows its tool results), and whose
agent module a LangGraph agent (the ``langchain`` preset knows its answer's messages), the reads
the presets' data knows are judged by it, and the others are guesses: counted in the run's
warning, reported only when asked for. The CLI, mypy with the plugin, the daemon and the
language server report the same findings."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from daemon_harness import ANSWERED, Daemon, loomlint
from daemon_harness import runtime as runtime  # a fixture
from lsp_harness import typed_messages
from mypy import api

pytestmark = pytest.mark.slow

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "missing_sdk"

# Grounded in the presets' data: an agent's `invoke()["messages"]` are LangChain messages (the
# union); `call_tool().content` and `CallToolResult` are lists of blocks.
TYPED = (
    "agent.py:10:12: LML001 content of `last` is used as one branch by `.split()`, but it may "
    "be a list of parts; narrow it with isinstance() first, or use .text\n"
    "provider.py:27:31: LML003 a list of parts from content of `result` is coerced to str by "
    "str(); narrow it with isinstance(..., str) first\n"
    "provider.py:31:15: LML003 a list of parts from content of `result` is coerced to str by an "
    "f-string; narrow it with isinstance(..., str) first\n"
)
GUESS = " (a guess: mypy could not read this message's type, and no preset knows this read)"
GUESSES = (
    "provider.py:10:12: LML001 content of `reply` is used as one branch by `.split()`, but it "
    f"may be a list of parts; narrow it with isinstance() first{GUESS}\n"
    "provider.py:14:26: LML003 content of `client.complete('hello')` is coerced to str by an "
    f"f-string; narrow it with isinstance(..., str) first{GUESS}\n"
)
WARNING = (
    "warning: mypy could not find acme_llm, langgraph.prebuilt, mcp, mcp.types, which defines "
    "the messages read in 2 files: their reads there are judged by the presets' data where it "
    "knows them; {how}. "
    "Install the package where loomlint runs: in pre-commit, list it in the hook's "
    "additional_dependencies or use a `language: system` hook; otherwise install loomlint "
    "into the project's environment\n"
)
LEFT_OUT = (
    "2 findings there that rest on neither types nor preset data were not reported "
    "(--report-guesses, or `report-guesses = true`, reports them)"
)
REPORTED = "2 findings there rest on neither types nor preset data, reported as guesses"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "missing_sdk"
    shutil.copytree(FIXTURE, root)
    return root


def _check(root: Path, runtime: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return loomlint(root, runtime, "check", "--no-daemon", *args)


def _guesses_asked_for_in_configuration(root: Path) -> None:
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8") + "report-guesses = true\n", encoding="utf-8"
    )


def _text_lines(findings: str) -> list[str]:
    return [line for line in findings.splitlines() if line]


def test_the_cli_reports_what_types_or_preset_data_support_and_counts_the_guesses(
    project: Path, runtime: Path
) -> None:
    result = _check(project, runtime, "-q")
    assert (result.returncode, result.stdout) == (1, TYPED)
    assert result.stderr == WARNING.format(how=LEFT_OUT)
    # Cached: the second run counts them again.
    again = _check(project, runtime, "-q")
    assert (again.returncode, again.stdout, again.stderr) == (1, TYPED, result.stderr)


def test_asked_for_the_guesses_are_reported_and_marked(project: Path, runtime: Path) -> None:
    result = _check(project, runtime, "-q", "--report-guesses")
    assert (result.returncode, result.stderr) == (1, WARNING.format(how=REPORTED))
    assert sorted(_text_lines(result.stdout)) == sorted(_text_lines(TYPED + GUESSES))
    _guesses_asked_for_in_configuration(project)
    configured = _check(project, runtime, "-q")
    assert (configured.returncode, configured.stdout) == (1, result.stdout)


NO_TYPES_WARNING = (
    "warning: 2 findings in 1 file are in code checked without types, judged by syntax alone, "
    "and no preset knows those reads nor does a declared type say they are content: {how}. "
    "Check with types (without --no-types, where mypy can check the files) to have them judged "
    "by types\n"
)


def test_without_types_the_presets_data_grounds_the_same_reads(
    project: Path, runtime: Path
) -> None:
    """Without types, the reads the presets' data knows are reported as with types, and the
    others are guesses of another kind (``Guess.NO_TYPES``): the same findings, marked so."""
    result = _check(project, runtime, "-q", "--no-types")
    assert (result.returncode, result.stdout) == (1, TYPED)
    assert result.stderr == NO_TYPES_WARNING.format(
        how="they were not reported (--report-guesses, or `report-guesses = true`, reports them)"
    )
    guessed = _check(project, runtime, "-q", "--no-types", "--report-guesses")
    expected = (TYPED + GUESSES).replace(
        GUESS, " (a guess: checked without types, and no preset knows this read)"
    )
    assert (guessed.returncode, guessed.stderr) == (
        1,
        NO_TYPES_WARNING.format(how="they are reported as guesses"),
    )
    assert sorted(_text_lines(guessed.stdout)) == sorted(_text_lines(expected))


_LOOMLINT_ERROR = re.compile(r"^(\w+\.py):(\d+):(\d+): error: (.*)  \[loom-[\w-]+\]$")


def _plugin_findings(project: Path) -> list[tuple[str, int, int, str]]:
    """What mypy with the plugin (the project's configuration) reports of the project."""
    previous = Path.cwd()
    os.chdir(project)
    try:
        stdout, stderr, _ = api.run(["--show-column-numbers", "--no-pretty", "."])
    finally:
        os.chdir(previous)
    assert "INTERNAL ERROR" not in stdout + stderr
    return sorted(
        (m[1], int(m[2]), int(m[3]), m[4])
        for m in map(_LOOMLINT_ERROR.match, stdout.splitlines())
        if m is not None
    )


def _cli_findings(text: str) -> list[tuple[str, int, int, str]]:
    found = []
    for line in _text_lines(text):
        path, number, column, rest = line.split(":", 3)
        found.append((path, int(number), int(column), rest.split(" ", 2)[2]))
    return sorted(found)


def test_mypy_with_the_plugin_reports_the_same(project: Path) -> None:
    assert _plugin_findings(project) == _cli_findings(TYPED)
    _guesses_asked_for_in_configuration(project)
    assert _plugin_findings(project) == _cli_findings(TYPED + GUESSES)


def test_the_daemon_reports_the_same(project: Path, runtime: Path) -> None:
    daemon = Daemon(project, runtime)
    try:
        result = loomlint(project, runtime, "check", "-v")
        assert ANSWERED in result.stderr, result.stderr
        assert (result.returncode, result.stdout.splitlines()[:-1]) == (1, _text_lines(TYPED))
        assert WARNING.format(how=LEFT_OUT) in result.stderr
        guesses = loomlint(project, runtime, "check", "-q", "--report-guesses")
        assert sorted(_text_lines(guesses.stdout)) == sorted(_text_lines(TYPED + GUESSES))
    finally:
        daemon.stop()


def test_the_language_server_shows_the_same(project: Path) -> None:
    # After the quick result (without types: the guesses too), the typed one.
    typed = [("LML003", 26, 30, 26, 44), ("LML003", 30, 14, 30, 28)]
    assert typed_messages(project, "provider.py", typed) == [
        message.split(" ", 2)[2] for message in _text_lines(TYPED)[1:]
    ]
