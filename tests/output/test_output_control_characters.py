"""Control characters in file names and messages are escaped in every format a person reads
(text, GitHub annotations, GitLab Code Quality, JUnit XML): a file named to look like a
workflow command cannot emit one, a terminal escape cannot recolour a log, and JUnit stays
well-formed XML. Line breaks inside a message stay where the format carries them safely
(GitHub's %0A, JSON's \\n, XML); a file name's never do."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from loomlint.engine.diagnostics import Diagnostic, Edit, Fix
from loomlint.report.output.github import render_github
from loomlint.report.output.gitlab import render_gitlab
from loomlint.report.output.junit import render_junit
from loomlint.report.output.text import render_text

NAME = "a\n::error file=x.py,line=1::INJECTED\nb\x1b[31m\u2028\x85.py"
SHOWN_NAME = "a\\n::error file=x.py,line=1::INJECTED\\nb\\x1b[31m\\u2028\\x85.py"
FINDING = Diagnostic(
    path=NAME,
    line=1,
    column=5,
    end_line=1,
    end_column=14,
    code="LML003",
    name="content-coercion",
    message="coerced\r\n::error::AGAIN\x07",
    fix=Fix("Wrap\x1b", (Edit(1, 1, 1, 14, "text_of('\x0c')"),)),
)


def test_text() -> None:
    assert render_text([FINDING], show_fixes=True) == (
        f"{SHOWN_NAME}:1:5: LML003 [*] coerced\\r\\n::error::AGAIN\\x07\n"
        "    fix: Wrap\\x1b\n"
        "      1:1-1:14 -> text_of('\\x0c')\n"
        "Found 1 finding (1 fixable with `loomlint fix`).\n"
    )


def test_github() -> None:
    report = render_github([FINDING], warnings=["run \x1b[2Jwarning"])
    assert report == (
        "::warning title=loomlint::run \\x1b[2Jwarning\n"
        "::error file=a\\n%3A%3Aerror file=x.py%2Cline=1%3A%3AINJECTED\\nb\\x1b[31m\\u2028\\x85.py,"
        "line=1,col=5,endLine=1,endColumn=14,title=LML003 content-coercion"
        "::coerced%0D%0A::error::AGAIN\\x07\n"
    )
    assert all(line.startswith(("::error ", "::warning ")) for line in report.splitlines())


def test_gitlab(tmp_path: Path) -> None:
    (issue,) = json.loads(
        render_gitlab([FINDING], source_root=tmp_path, cwd=tmp_path, read_lines=lambda _: ())
    )
    assert issue["location"]["path"] == SHOWN_NAME
    assert issue["description"] == "LML003 coerced\r\n::error::AGAIN\\x07"


def test_junit() -> None:
    report = render_junit([FINDING])
    root = ElementTree.fromstring(report.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("name") == SHOWN_NAME
    case = suite.find("testcase")
    assert case is not None
    assert (case.get("classname"), case.get("file")) == (SHOWN_NAME, SHOWN_NAME)
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message") == "coerced\\r\n::error::AGAIN\\x07"
    assert failure.text == f"{SHOWN_NAME}:1:5: LML003 coerced\\r\n::error::AGAIN\\x07"
