"""Without types, a finding rests on the presets' data (an SPI's message class, one of their
read shapes), on a class of the project that declares its content field as content, or on a
value declared as content; any other is a guess (``Guess.NO_TYPES``): left out and counted,
or reported and marked with --report-guesses, as a typed run does with a message mypy types
``Any``."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

SOURCE = """\
from __future__ import annotations

from dataclasses import dataclass

from loomlint.content import LlmMessage, TextPart


@dataclass
class Turn:
    role: str
    content: str | list[TextPart]


def grounded(m: LlmMessage, history: list[Turn], turn: Turn) -> str:
    first = history[0].content.strip()
    return f"{m.content}" + first + str(turn.content)


def guessed(m, d: dict) -> str:  # type: ignore[no-untyped-def, type-arg]
    return m.content.strip() + f"{d['content']}"
"""
GROUNDED = (
    "app.py:15:13: LML001 content of `history[0]` is used as one branch by `.strip()`, but it "
    "may be a list of parts; narrow it with isinstance() first, or use text_of(...)\n"
    "app.py:16:15: LML003 [*] content of `m` is coerced to str by an f-string; use text_of(...)\n"
    "app.py:16:41: LML003 [*] content of `turn` is coerced to str by str(); use text_of(...)\n"
)
NOTE = " (a guess: checked without types, and no preset knows this read)"
GUESSES = (
    "app.py:20:12: LML001 content of `m` is used as one branch by `.strip()`, but it may be a "
    f"list of parts; narrow it with isinstance() first, or use text_of(...){NOTE}\n"
    "app.py:20:35: LML003 [*] content of `d` is coerced to str by an f-string; use "
    f"text_of(...){NOTE}\n"
)
WARNING = (
    "note: checking without types (--no-types): precision is reduced\n"
    "warning: 2 findings in 1 file are in code checked without types, judged by syntax alone, "
    "and no preset knows those reads nor does a declared type say they are content: {how}. "
    "Check with types (without --no-types, where mypy can check the files) to have them judged "
    "by types\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.loomlint]\n", encoding="utf-8")
    (tmp_path / "app.py").write_text(SOURCE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _check(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", "--no-types", "--no-cache", *args, "app.py"])
    return result.exit_code, result.stdout, result.stderr


def test_without_types_only_grounded_findings_are_reported(project: Path) -> None:
    assert _check() == (
        1,
        GROUNDED + "Found 3 findings (2 fixable with `loomlint fix`).\n",
        WARNING.format(
            how="they were not reported (--report-guesses, or `report-guesses = true`, "
            "reports them)"
        ),
    )


def test_asked_for_the_guesses_are_reported_and_marked(project: Path) -> None:
    assert _check("--report-guesses") == (
        1,
        GROUNDED + GUESSES + "Found 5 findings (3 fixable with `loomlint fix`).\n",
        WARNING.format(how="they are reported as guesses"),
    )
    (project / "pyproject.toml").write_text(
        "[tool.loomlint]\nreport-guesses = true\n", encoding="utf-8"
    )
    assert _check()[1] == GROUNDED + GUESSES + "Found 5 findings (3 fixable with `loomlint fix`).\n"


def test_a_project_class_whose_content_is_declared_otherwise_grounds_nothing(
    project: Path,
) -> None:
    """``Turn.content: str`` is no content: its reads are not reported at all."""
    (project / "app.py").write_text(
        SOURCE.replace("content: str | list[TextPart]", "content: str"), encoding="utf-8"
    )
    code, stdout, _ = _check("--report-guesses")
    assert code == 1
    assert "`history[0]`" not in stdout and "`turn`" not in stdout
    assert "app.py:16:15: LML003" in stdout


def test_a_project_class_whose_content_may_hold_other_payloads_grounds_nothing(
    project: Path,
) -> None:
    """``content: str | dict | list`` (a run's output of any kind) is no message's content
    alone: its reads are guesses."""
    (project / "app.py").write_text(
        SOURCE.replace(
            "content: str | list[TextPart]", "content: str | dict[str, str] | list[TextPart]"
        ),
        encoding="utf-8",
    )
    code, stdout, _ = _check()
    assert code == 1
    assert stdout.splitlines() == [
        "app.py:16:15: LML003 [*] content of `m` is coerced to str by an f-string; use "
        "text_of(...)",
        "Found 1 finding (1 fixable with `loomlint fix`).",
    ]
    guessed = _check("--report-guesses")[1]
    assert "app.py:15:13: LML001 content of `history[0]`" in guessed
    assert "app.py:16:41: LML003 [*] content of `turn`" in guessed
