"""One entry point for every format, so each command renders reports the same way."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.output import OutputFormat
from loomlint.report.output.github import render_github
from loomlint.report.output.gitlab import render_gitlab
from loomlint.report.output.json import render_json, render_json_statistics
from loomlint.report.output.junit import render_junit
from loomlint.report.output.sarif import render_sarif
from loomlint.report.output.text import render_text

# The formats that can show counts per code instead of findings.
STATISTICS_FORMATS: tuple[OutputFormat, ...] = ("text", "json")


def render_report(
    output_format: OutputFormat,
    diagnostics: Sequence[Diagnostic],
    *,
    source_root: Path,
    cwd: Path,
    statistics: bool = False,
    quiet: bool = False,
    show_fixes: bool = False,
    warnings: Sequence[str] = (),
) -> str:
    """The report in ``output_format``. ``statistics`` applies to text and json only;
    ``quiet`` (no summary) and ``show_fixes`` to text only. SARIF URIs and GitLab paths are
    relative to ``source_root``.

    ``warnings`` about the run (said on stderr by the caller) are carried by the formats that
    have a place for them: SARIF's tool execution notifications, GitHub's ``::warning``. The
    other reports leave them to stderr: JSON stays an array of findings."""
    if output_format == "json":
        return render_json_statistics(diagnostics) if statistics else render_json(diagnostics)
    if output_format == "sarif":
        return render_sarif(diagnostics, source_root=source_root, cwd=cwd, warnings=warnings)
    if output_format == "github":
        return render_github(diagnostics, warnings)
    if output_format == "gitlab":
        return render_gitlab(diagnostics, source_root=source_root, cwd=cwd)
    if output_format == "junit":
        return render_junit(diagnostics)
    return render_text(diagnostics, statistics=statistics, quiet=quiet, show_fixes=show_fixes)
