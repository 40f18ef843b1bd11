"""`--add-noqa` and `fix` never alter what the code means, whatever separates its lines: every
writer is run on sources holding the eight characters `str.splitlines()` breaks at and Python
does not, CR-only, CRLF and mixed line ends, a BOM and tabs. Each result parses, keeps every
string literal's value, and changes only what the writer is there to change."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

import loomlint.fix.files
import loomlint.report.add_noqa
from loomlint.cli import main
from loomlint.engine.diagnostics import Diagnostic
from loomlint.fix.edits import FixOutcome
from loomlint.report.add_noqa import NoqaEdit
from robustness.odd_sources import (
    BOM,
    ODD_SEPARATORS,
    OddSource,
    code_without_comments,
    odd_sources,
    string_literals,
)

EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Python's line breaks, written out here rather than taken from loomlint.
LINE_BREAK = re.compile(r"\r\n|\r|\n")
LINE_BREAK_KEPT = re.compile(r"(\r\n|\r|\n)")
ADDED_IGNORE_LINE = re.compile(r"[ \t]*# loomlint: ignore\[LML[0-9]{3}(?:, LML[0-9]{3})*\]")
ADDED_NOQA = re.compile(r"  # noqa: LML[0-9]{3}(?:, LML[0-9]{3})*$")
EXTENDED_NOQA = re.compile(r"(# noqa: [A-Z]+[0-9]+(?:, [A-Z]+[0-9]+)*?)(?:, LML[0-9]{3})+")


@contextmanager
def project_with(data: bytes) -> Iterator[Path]:
    """A fresh project folder holding `app.py`, as the current folder."""
    previous = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="loomlint-writers-") as folder:
        (Path(folder) / "app.py").write_bytes(data)
        os.chdir(folder)
        try:
            yield Path(folder)
        finally:
            os.chdir(previous)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [*args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def findings() -> list[tuple[int, int, str, bool]]:
    """(line, column, code, fixable) of each finding in app.py, without types."""
    code, stdout, _ = run("check", "--no-types", "--no-cache", "--format", "json", "app.py")
    assert code in (0, 1)
    return [(d["line"], d["column"], d["code"], d["fix"] is not None) for d in json.loads(stdout)]


def decoded(data: bytes) -> str:
    return data.decode("utf-8-sig")


def without_added_suppressions(text: str) -> str:
    """``text`` less what --add-noqa may add: `# loomlint: ignore[...]` lines, `  # noqa: ...`
    at a line's end, and LML codes appended to an existing noqa list."""
    pieces = LINE_BREAK_KEPT.split(text)  # line, break, line, break, ..., last line
    kept: list[str] = []
    for body, end in zip(pieces[::2], [*pieces[1::2], ""], strict=True):
        if ADDED_IGNORE_LINE.fullmatch(body):
            continue
        body = ADDED_NOQA.sub("", body)
        kept.append(EXTENDED_NOQA.sub(r"\1", body) + end)
    return "".join(kept)


@EXAMPLES
@given(odd_sources())
def test_add_noqa_suppresses_every_finding_and_changes_nothing_else(source: OddSource) -> None:
    with project_with(source.data) as root:
        before = findings()
        assert before, "every generated source has findings"
        assert run("check", "--no-types", "--no-cache", "--add-noqa", "-q", "app.py") == (
            0,
            "",
            "",
        )
        data = (root / "app.py").read_bytes()
        assert data.startswith(BOM.encode()) == source.bom
        text = decoded(data)
        assert code_without_comments(text) == code_without_comments(source.text)
        assert string_literals(text) == string_literals(source.text)
        assert without_added_suppressions(text) == source.text
        assert findings() == []


@EXAMPLES
@given(odd_sources())
def test_fix_rewrites_the_coercions_and_nothing_else(source: OddSource) -> None:
    with project_with(source.data) as root:
        before = findings()
        unfixable = sorted((line, code) for line, _, code, fixable in before if not fixable)
        code, _, _ = run("fix", "--no-types", "--no-cache", "-q", "app.py")
        assert code == (1 if unfixable else 0)
        data = (root / "app.py").read_bytes()
        assert data.startswith(BOM.encode()) == source.bom
        text = decoded(data)
        assert string_literals(text) == string_literals(source.text)
        # The accessor joins the existing `from loomlint.content import ...` line.
        assert LINE_BREAK.findall(text) == LINE_BREAK.findall(source.text)
        assert sorted((line, code) for line, _, code, _ in findings()) == unfixable


def assert_add_noqa_gives(source: str, expected: str) -> None:
    """`--add-noqa` on app.py holding ``source`` exits 0 and writes ``expected``, and the next
    check finds nothing."""
    with project_with(source.encode()) as root:
        assert run("check", "--no-types", "--add-noqa", "-q", "app.py") == (0, "", "")
        assert decoded((root / "app.py").read_bytes()) == expected
        assert run("check", "--no-types", "-q", "app.py") == (0, "", "")


@pytest.mark.parametrize(
    "separator", ODD_SEPARATORS, ids=[f"U+{ord(s):04X}" for s in ODD_SEPARATORS]
)
def test_add_noqa_ends_the_python_line_after_an_odd_separator(separator: str) -> None:
    source = (
        "from loomlint.content import LlmMessage\n"
        f'N = "a{separator}b"\n'
        "def f(m: LlmMessage) -> str:\n"
        '    return """\nx\n""" + str(m.content)\n'
    )
    assert_add_noqa_gives(
        source, source.replace("str(m.content)\n", "str(m.content)  # noqa: LML003\n")
    )


def test_add_noqa_keeps_out_of_an_f_string_in_a_cr_only_file() -> None:
    source = (
        "from loomlint.content import LlmMessage\r"
        "def f(m: LlmMessage) -> str:\r"
        '    return f"""header\r'
        "{m.content}\r"
        'footer"""\r'
    )
    assert_add_noqa_gives(
        source,
        source.replace('    return f"""', '    # loomlint: ignore[LML003]\r    return f"""'),
    )


def test_add_noqa_after_a_form_feed_line_exits_zero_only_when_the_finding_is_gone() -> None:
    source = (
        "from loomlint.content import LlmMessage\n"
        "\x0c\n"
        "def f(m: LlmMessage) -> str:\n"
        "    return str(m.content)\n"
    )
    assert_add_noqa_gives(
        source, source.replace("str(m.content)\n", "str(m.content)  # noqa: LML003\n")
    )


GUARDED = (
    "from loomlint.content import LlmMessage\n"
    "def f(m: LlmMessage) -> str:\n"
    '    return "said: " + str(m.content)\n'
)


def test_a_fix_that_would_change_a_string_literal_is_not_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The last guard, whatever the bug behind it: here a fix whose text lands in a string."""
    real = loomlint.fix.files.apply_fixes

    def misplaced(text: str, *args: Any, **kwargs: Any) -> FixOutcome:
        outcome = real(text, *args, **kwargs)
        return replace(outcome, text=outcome.text.replace('"said: "', '"said: text_of("'))

    monkeypatch.setattr(loomlint.fix.files, "apply_fixes", misplaced)
    with project_with(GUARDED.encode()) as root:
        assert run("fix", "--no-types", "-q", "app.py") == (
            2,
            "app.py:3:27: LML003 [*] content of `m` is coerced to str by str(); use text_of(...)\n",
            "error: loomlint's rewrite of 'app.py' would change what its code means; it was "
            "not fixed (a bug of loomlint's: please report it with the file)\n",
        )
        assert (root / "app.py").read_bytes() == GUARDED.encode()


def test_suppressions_that_would_change_the_code_are_not_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = loomlint.report.add_noqa.add_noqa

    def misplaced(text: str, diagnostics: Sequence[Diagnostic]) -> NoqaEdit:
        edit = real(text, diagnostics)
        edit.text = edit.text.replace('"said: "', '"said:  # noqa"')
        return edit

    monkeypatch.setattr(loomlint.report.add_noqa, "add_noqa", misplaced)
    with project_with(GUARDED.encode()) as root:
        assert run("check", "--no-types", "--add-noqa", "-q", "app.py") == (
            2,
            "",
            "error: loomlint's rewrite of 'app.py' would change what its code means; no "
            "suppression was added to it (a bug of loomlint's: please report it with the "
            "file)\n",
        )
        assert (root / "app.py").read_bytes() == GUARDED.encode()


def test_a_suppression_that_does_not_cover_its_finding_is_not_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The exit status says what the next check will say: here a noqa naming another code."""
    monkeypatch.setattr(
        loomlint.report.add_noqa,
        "_with_noqa",
        lambda line, codes, column: line + "# noqa: LML004\n",
    )
    with project_with(GUARDED.encode()):
        assert run("check", "--no-types", "--add-noqa", "-q", "app.py") == (
            1,
            "",
            "warning: app.py:3:27: no suppression of LML003 could be placed where it covers "
            "the finding\n",
        )
        assert findings() == [(3, 27, "LML003", True)]
