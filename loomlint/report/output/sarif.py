"""SARIF 2.1.0, as GitHub code scanning accepts it.

Every catalog rule is described (help text and Markdown from the rule page, a docs link); each
finding carries a ``%SRCROOT%``-relative location, a partial fingerprint that survives line
shifts (path, code and the flagged line's text, plus an occurrence number), and its fix when
there is one. Columns count Unicode code points, as loomlint's do, and the run says so.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from loomlint import __version__
from loomlint.catalog.rules import Rule, load_catalog
from loomlint.engine.diagnostics import Diagnostic, Fix
from loomlint.report.docs import PROJECT_URL, render_rule_page, rule_url
from loomlint.report.fingerprint import LineReader, SourceLines, finding_fingerprint, line_at
from loomlint.report.output.json import dump_json
from loomlint.report.output.levels import level_of

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = PROJECT_URL
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "loomlint/v1"

__all__ = [
    "FINGERPRINT_KEY",
    "INFORMATION_URI",
    "SARIF_SCHEMA_URI",
    "SARIF_VERSION",
    "SRCROOT",
    "LineReader",
    "LocatedFinding",
    "build_sarif",
    "finding_fingerprint",
    "located_findings",
    "render_sarif",
]

_JsonObject = dict[str, object]


def render_sarif(
    diagnostics: Sequence[Diagnostic],
    *,
    source_root: Path,
    cwd: Path,
    read_lines: LineReader | None = None,
    warnings: Sequence[str] = (),
) -> str:
    """The SARIF log of ``diagnostics``; URIs are relative to ``source_root``."""
    log = build_sarif(
        diagnostics, source_root=source_root, cwd=cwd, read_lines=read_lines, warnings=warnings
    )
    return dump_json(log) + "\n"


def build_sarif(
    diagnostics: Sequence[Diagnostic],
    *,
    source_root: Path,
    cwd: Path,
    read_lines: LineReader | None = None,
    warnings: Sequence[str] = (),
) -> _JsonObject:
    rules = [rule for _, rule in sorted(load_catalog().rules.items())]
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    results: list[_JsonObject] = []
    for finding in located_findings(
        diagnostics, source_root=source_root, cwd=cwd, read_lines=read_lines
    ):
        diagnostic = finding.diagnostic
        result: _JsonObject = {
            "ruleId": diagnostic.code,
            "level": level_of(diagnostic.code),
            "message": {"text": diagnostic.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": finding.location,
                        "region": _region(diagnostic),
                    }
                }
            ],
            "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        }
        if diagnostic.code in rule_index:
            result["ruleIndex"] = rule_index[diagnostic.code]
        if diagnostic.fix is not None and diagnostic.fix.edits:
            result["fixes"] = [_fix(diagnostic.fix, finding.location)]
        results.append(result)
    run: _JsonObject = {
        "tool": {
            "driver": {
                "name": "loomlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_rule_descriptor(rule) for rule in rules],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": source_root.as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if warnings:
        # What weakened the run (types the oracle could not find) is a notification of the
        # tool's execution; the run itself completed.
        run["invocations"] = [
            {
                "executionSuccessful": True,
                "toolExecutionNotifications": [
                    {"level": "warning", "message": {"text": warning}} for warning in warnings
                ],
            }
        ]
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


@dataclass(frozen=True, slots=True)
class LocatedFinding:
    """A finding with where a report says it is, and its identity across line shifts."""

    diagnostic: Diagnostic
    # SARIF's artifactLocation: a %SRCROOT%-relative URI, or a file URI outside the root.
    location: _JsonObject
    # The path relative to the source root (posix), or absolute outside it.
    path: str
    # The partial fingerprint, with the finding's occurrence number among identical ones.
    fingerprint: str


def located_findings(
    diagnostics: Sequence[Diagnostic],
    *,
    source_root: Path,
    cwd: Path,
    read_lines: LineReader | None = None,
) -> list[LocatedFinding]:
    """The findings in report order, located and fingerprinted (SARIF and GitLab share them)."""
    reader = read_lines if read_lines is not None else SourceLines(cwd)
    occurrences: Counter[str] = Counter()
    located: list[LocatedFinding] = []
    for diagnostic in sorted(diagnostics, key=lambda d: d.sort_key):
        location = _artifact_location(diagnostic.path, source_root, cwd)
        line_text = line_at(reader(diagnostic.path), diagnostic.line)
        # Keyed by the root-relative URI, so running from another folder keeps fingerprints.
        fingerprint = finding_fingerprint(str(location["uri"]), diagnostic.code, line_text)
        occurrences[fingerprint] += 1
        absolute = Path(os.path.normpath(cwd / diagnostic.path))
        try:
            path = absolute.relative_to(source_root).as_posix()
        except ValueError:
            path = absolute.as_posix()
        located.append(
            LocatedFinding(diagnostic, location, path, f"{fingerprint}:{occurrences[fingerprint]}")
        )
    return located


def _rule_descriptor(rule: Rule) -> _JsonObject:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.what},
        "help": {
            "text": f"{rule.summary}\n\n{rule.what}\n\n{rule.why}",
            "markdown": render_rule_page(rule),
        },
        "helpUri": rule_url(rule.code),
        "defaultConfiguration": {"level": level_of(rule.code)},
    }


def _artifact_location(path: str, source_root: Path, cwd: Path) -> _JsonObject:
    absolute = Path(os.path.normpath(cwd / path))
    try:
        relative = absolute.relative_to(source_root)
    except ValueError:
        return {"uri": absolute.as_uri()}
    # Percent-encoded from the name's bytes: a name need not be valid UTF-8.
    return {"uri": quote(os.fsencode(relative.as_posix()), safe="/"), "uriBaseId": SRCROOT}


def _region(diagnostic: Diagnostic) -> _JsonObject:
    return {
        "startLine": diagnostic.line,
        "startColumn": diagnostic.column,
        "endLine": diagnostic.end_line,
        "endColumn": diagnostic.end_column,
    }


def _fix(fix: Fix, location: _JsonObject) -> _JsonObject:
    description = fix.description
    if fix.imports:
        description += f" (adds an import of {', '.join(fix.imports)})"
    return {
        "description": {"text": description},
        "artifactChanges": [
            {
                "artifactLocation": location,
                "replacements": [
                    {
                        "deletedRegion": {
                            "startLine": edit.line,
                            "startColumn": edit.column,
                            "endLine": edit.end_line,
                            "endColumn": edit.end_column,
                        },
                        "insertedContent": {"text": edit.replacement},
                    }
                    for edit in fix.edits
                ],
            }
        ],
    }
