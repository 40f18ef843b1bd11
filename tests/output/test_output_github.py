"""GitHub workflow commands, with GitHub's escaping."""

from __future__ import annotations

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.output.github import escape_data, escape_property, render_github


def test_annotations(diagnostics: list[Diagnostic]) -> None:
    assert render_github(diagnostics) == (
        "::error file=bad file.py,line=1,col=7,endLine=1,endColumn=8,title=LML901 syntax-error"
        "::cannot parse: unexpected ':', 50%25 done%0Asee docs, line 1\n"
        "::error file=src/app.py,line=3,col=5,endLine=4,endColumn=2,"
        "title=LML001 unsafe-content-use"
        "::content of `m` (read at line 3) is sliced; use text_of(...)\n"
        "::error file=src/app.py,line=12,col=14,endLine=12,endColumn=23,"
        "title=LML003 content-coercion"
        "::content of `m` (read at line 12) is coerced to str by str(); use text_of(...)\n"
    )


def test_warnings_for_housekeeping_codes() -> None:
    unused = Diagnostic("a,b:c.py", 2, 8, 2, 14, "LML100", "unused-suppression", "unused")
    assert render_github([unused]) == (
        "::warning file=a%2Cb%3Ac.py,line=2,col=8,endLine=2,endColumn=14,"
        "title=LML100 unused-suppression::unused\n"
    )


def test_escaping() -> None:
    assert escape_data("100%\r\n: ,") == "100%25%0D%0A: ,"
    assert escape_property("100%\r\n: ,") == "100%25%0D%0A%3A %2C"
    assert escape_data("%0A") == "%250A"


def test_clean_is_empty() -> None:
    assert render_github([]) == ""
