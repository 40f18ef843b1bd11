"""GitLab Code Quality and JUnit XML: exact documents, and what their consumers need."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.fingerprint import finding_fingerprint
from loomlint.report.output.gitlab import render_gitlab
from loomlint.report.output.junit import render_junit
from loomlint.report.output.sarif import FINGERPRINT_KEY, render_sarif


def lines(path: str) -> list[str]:
    return {
        "src/app.py": ["", "", "    x = m.content[:3]", "", ""]
        + [""] * 6
        + ["  print(str(m.content))"],
        "bad file.py": ["def f(:"],
    }[path]


def _major_issue(
    code: str,
    message: str,
    location: tuple[str, int, int],
    *,
    fingerprinted: tuple[str, str],
) -> dict[str, object]:
    """The Code Quality issue of one finding: ``location`` is (path, first line, last line),
    ``fingerprinted`` the (URI-style path, flagged line's text) its fingerprint is made of."""
    path, begin, end = location
    uri, line_text = fingerprinted
    return {
        "type": "issue",
        "check_name": code,
        "description": f"{code} {message}",
        "categories": ["Bug Risk"],
        "severity": "major",
        "fingerprint": finding_fingerprint(uri, code, line_text) + ":1",
        "location": {"path": path, "lines": {"begin": begin, "end": end}},
    }


def test_gitlab_code_quality(diagnostics: list[Diagnostic], tmp_path: Path) -> None:
    report = json.loads(
        render_gitlab(diagnostics, source_root=tmp_path, cwd=tmp_path, read_lines=lines)
    )
    assert report == [
        _major_issue(
            "LML901",
            "cannot parse: unexpected ':', 50% done\nsee docs, line 1",
            ("bad file.py", 1, 1),
            fingerprinted=("bad%20file.py", "def f(:"),
        ),
        _major_issue(
            "LML001",
            "content of `m` (read at line 3) is sliced; use text_of(...)",
            ("src/app.py", 3, 4),
            fingerprinted=("src/app.py", "x = m.content[:3]"),
        ),
        _major_issue(
            "LML003",
            "content of `m` (read at line 12) is coerced to str by str(); use text_of(...)",
            ("src/app.py", 12, 12),
            fingerprinted=("src/app.py", "print(str(m.content))"),
        ),
    ]
    # The same fingerprints as SARIF's, so switching formats keeps GitLab's history.
    sarif = json.loads(
        render_sarif(diagnostics, source_root=tmp_path, cwd=tmp_path, read_lines=lines)
    )
    assert [r["partialFingerprints"][FINGERPRINT_KEY] for r in sarif["runs"][0]["results"]] == [
        issue["fingerprint"] for issue in report
    ]


def test_gitlab_paths_are_relative_to_the_project_root(tmp_path: Path) -> None:
    cwd = tmp_path / "src"
    finding = Diagnostic("app.py", 2, 1, 2, 5, "LML100", "unused-suppression", "unused")
    report = json.loads(render_gitlab([finding], source_root=tmp_path, cwd=cwd))
    assert report[0]["location"] == {"path": "src/app.py", "lines": {"begin": 2, "end": 2}}
    assert report[0]["severity"] == "minor"
    assert render_gitlab([], source_root=tmp_path, cwd=cwd) == "[]\n"


def test_junit(diagnostics: list[Diagnostic]) -> None:
    assert render_junit(diagnostics) == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="loomlint" tests="3" failures="3" errors="0">\n'
        '  <testsuite name="bad file.py" tests="1" failures="1" errors="0">\n'
        '    <testcase name="LML901 syntax-error at 1:7" classname="bad file.py" '
        'file="bad file.py" line="1">\n'
        "      <failure message=\"cannot parse: unexpected ':', 50% done&#10;see docs, line 1\">"
        "bad file.py:1:7: LML901 cannot parse: unexpected ':', 50% done\n"
        "see docs, line 1</failure>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        '  <testsuite name="src/app.py" tests="2" failures="2" errors="0">\n'
        '    <testcase name="LML001 unsafe-content-use at 3:5" classname="src/app.py" '
        'file="src/app.py" line="3">\n'
        '      <failure message="content of `m` (read at line 3) is sliced; use text_of(...)">'
        "src/app.py:3:5: LML001 content of `m` (read at line 3) is sliced; use text_of(...)"
        "</failure>\n"
        "    </testcase>\n"
        '    <testcase name="LML003 content-coercion at 12:14" classname="src/app.py" '
        'file="src/app.py" line="12">\n'
        '      <failure message="content of `m` (read at line 12) is coerced to str by str(); '
        'use text_of(...)">src/app.py:12:14: LML003 content of `m` (read at line 12) is '
        "coerced to str by str(); use text_of(...)</failure>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n"
    )
    ElementTree.fromstring(render_junit(diagnostics).split("\n", 1)[1])


def test_junit_clean_run_is_one_passing_case() -> None:
    assert render_junit([]) == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<testsuites name="loomlint" tests="1" failures="0" errors="0">\n'
        '  <testsuite name="loomlint" tests="1" failures="0" errors="0">\n'
        '    <testcase name="No findings" classname="loomlint" />\n'
        "  </testsuite>\n"
        "</testsuites>\n"
    )
