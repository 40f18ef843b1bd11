"""JUnit XML, as CI systems (GitLab's test report, Jenkins, Azure Pipelines) display it.

One ``testsuite`` per file with findings and one failed ``testcase`` per finding, named by its
code and position, as Ruff's ``junit`` format does; a clean run is one passing test case, so a
dashboard shows that loomlint ran. Built with ``xml.etree`` so that every message is escaped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from itertools import groupby

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.output.escape import escape_controls


def render_junit(diagnostics: Sequence[Diagnostic]) -> str:
    ordered = sorted(diagnostics, key=lambda d: d.sort_key)
    suites = ElementTree.Element(
        "testsuites",
        name="loomlint",
        tests=str(max(len(ordered), 1)),
        failures=str(len(ordered)),
        errors="0",
    )
    if not ordered:
        suite = ElementTree.SubElement(
            suites, "testsuite", name="loomlint", tests="1", failures="0", errors="0"
        )
        ElementTree.SubElement(suite, "testcase", name="No findings", classname="loomlint")
    for raw_path, group in groupby(ordered, key=lambda d: d.path):
        findings = list(group)
        # Most control characters are not allowed in XML; a name's line break is not its own.
        path = escape_controls(raw_path)
        suite = ElementTree.SubElement(
            suites,
            "testsuite",
            name=path,
            tests=str(len(findings)),
            failures=str(len(findings)),
            errors="0",
        )
        for diagnostic in findings:
            case = ElementTree.SubElement(
                suite,
                "testcase",
                name=f"{diagnostic.code} {diagnostic.name} at {diagnostic.line}:"
                f"{diagnostic.column}",
                classname=path,
                file=path,
                line=str(diagnostic.line),
            )
            message = escape_controls(diagnostic.message, keep="\n")
            failure = ElementTree.SubElement(case, "failure", message=message)
            failure.text = (
                f"{path}:{diagnostic.line}:{diagnostic.column}: {diagnostic.code} {message}"
            )
    ElementTree.indent(suites)
    body = ElementTree.tostring(suites, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
