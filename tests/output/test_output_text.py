"""The text format: exact lines, summary, statistics, quiet."""

from __future__ import annotations

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.output.text import render_text


def test_findings_then_summary(diagnostics: list[Diagnostic]) -> None:
    assert render_text(diagnostics) == (
        # One finding, one line: the message's line break is shown, not obeyed.
        "bad file.py:1:7: LML901 cannot parse: unexpected ':', 50% done\\nsee docs, line 1\n"
        "src/app.py:3:5: LML001 content of `m` (read at line 3) is sliced; use text_of(...)\n"
        "src/app.py:12:14: LML003 [*] content of `m` (read at line 12) is coerced to str by "
        "str(); use text_of(...)\n"
        "Found 3 findings (1 fixable with `loomlint fix`).\n"
    )


def test_clean() -> None:
    assert render_text([]) == "All checks passed.\n"


def test_one_finding_no_fix(diagnostics: list[Diagnostic]) -> None:
    assert render_text(diagnostics[2:]) == (
        "src/app.py:3:5: LML001 content of `m` (read at line 3) is sliced; use text_of(...)\n"
        "Found 1 finding.\n"
    )


def test_quiet_prints_findings_only(diagnostics: list[Diagnostic]) -> None:
    assert render_text(diagnostics[:1], quiet=True) == (
        "src/app.py:12:14: LML003 [*] content of `m` (read at line 12) is coerced to str by "
        "str(); use text_of(...)\n"
    )
    assert render_text([], quiet=True) == ""


def test_statistics(diagnostics: list[Diagnostic]) -> None:
    many = [*diagnostics, *diagnostics[:1] * 10]
    assert render_text(many, statistics=True) == (
        "11  LML003  [*] content-coercion\n"
        " 1  LML001  [ ] unsafe-content-use\n"
        " 1  LML901  [ ] syntax-error\n"
        "Found 13 findings (11 fixable with `loomlint fix`).\n"
    )
    assert render_text([], statistics=True) == "All checks passed.\n"
