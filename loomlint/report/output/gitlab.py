"""GitLab Code Quality (a subset of Code Climate's JSON): an array of issues, one per finding.

GitLab's merge request widget compares the issues of the target and source branches by
``fingerprint``, so each one carries SARIF's line-shift stable fingerprint (the same value,
occurrence number included), and the widget shows new and fixed findings correctly. Paths are
relative to the project root, where GitLab's job clones the repository.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.fingerprint import LineReader
from loomlint.report.output.escape import escape_controls
from loomlint.report.output.levels import level_of
from loomlint.report.output.sarif import located_findings

_SEVERITY = {"error": "major", "warning": "minor"}


def render_gitlab(
    diagnostics: Sequence[Diagnostic],
    *,
    source_root: Path,
    cwd: Path,
    read_lines: LineReader | None = None,
) -> str:
    issues = [
        {
            "type": "issue",
            "check_name": finding.diagnostic.code,
            "description": f"{finding.diagnostic.code} "
            + escape_controls(finding.diagnostic.message, keep="\r\n"),
            "categories": ["Bug Risk"],
            "severity": _SEVERITY[level_of(finding.diagnostic.code)],
            "fingerprint": finding.fingerprint,
            "location": {
                "path": escape_controls(finding.path),
                "lines": {"begin": finding.diagnostic.line, "end": finding.diagnostic.end_line},
            },
        }
        for finding in located_findings(
            diagnostics, source_root=source_root, cwd=cwd, read_lines=read_lines
        )
    ]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
