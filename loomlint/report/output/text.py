"""Ruff-like text: ``path:line:col: CODE message`` lines, then a one-line summary."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from loomlint.engine.diagnostics import Diagnostic, Fix
from loomlint.report.output.escape import escape_controls

FIXABLE_MARK = "[*]"


def render_text(
    diagnostics: Sequence[Diagnostic],
    *,
    statistics: bool = False,
    quiet: bool = False,
    show_fixes: bool = False,
) -> str:
    """The findings (or, with ``statistics``, a count per code) and, unless ``quiet``, a summary.

    Fixable findings carry ``[*]`` before the message, as in Ruff; with ``show_fixes`` the
    fix follows, indented: each edit (``line:col-line:col -> replacement``) and each import.
    """
    ordered = sorted(diagnostics, key=lambda d: d.sort_key)
    lines: list[str]
    if statistics:
        lines = _statistics_lines(ordered)
    else:
        lines = [line for d in ordered for line in finding_lines(d, show_fix=show_fixes)]
    if not quiet:
        lines.append(summary_line(ordered))
    return "".join(f"{line}\n" for line in lines)


def finding_lines(diagnostic: Diagnostic, *, show_fix: bool) -> list[str]:
    """One finding's line and, with ``show_fix``, its fix below it (``fix_lines``)."""
    lines = [_finding_line(diagnostic)]
    if show_fix and diagnostic.fix is not None:
        lines.extend(fix_lines(diagnostic.fix))
    return lines


def applied_fixes_listing(fixed: Sequence[Diagnostic]) -> str:
    """What ``loomlint fix --show-fixes`` prints after the run: each finding it fixed, in the
    order of ``check``'s report, with the fix as ``check --show-fixes`` shows it (positions
    are those of the text before the fix)."""
    if not fixed:
        return ""
    ordered = sorted(fixed, key=lambda d: d.sort_key)
    noun = "finding" if len(ordered) == 1 else "findings"
    lines = [f"Fixed {len(ordered)} {noun}:"]
    lines.extend(line for d in ordered for line in finding_lines(d, show_fix=True))
    return "".join(f"{line}\n" for line in lines)


def _finding_line(diagnostic: Diagnostic) -> str:
    mark = f" {FIXABLE_MARK}" if diagnostic.fix is not None else ""
    # One finding, one line: a line break in a name or message is shown, not obeyed.
    return (
        f"{escape_controls(diagnostic.path)}:{diagnostic.line}:{diagnostic.column}: "
        f"{diagnostic.code}{mark} {escape_controls(diagnostic.message)}"
    )


def fix_lines(fix: Fix) -> list[str]:
    """A fix, for a person: its description, its edits and the imports it adds."""
    lines = [f"    fix: {escape_controls(fix.description)}"]
    lines.extend(
        f"      {e.line}:{e.column}-{e.end_line}:{e.end_column} -> {escape_controls(e.replacement)}"
        for e in fix.edits
    )
    lines.extend(f"      + import {name}" for name in fix.imports)
    return lines


def _statistics_lines(diagnostics: Sequence[Diagnostic]) -> list[str]:
    counts = Counter(d.code for d in diagnostics)
    names = {d.code: d.name for d in diagnostics}
    fixable = {d.code for d in diagnostics if d.fix is not None}
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    count_width = max((len(str(count)) for _, count in rows), default=1)
    code_width = max((len(code) for code, _ in rows), default=1)
    return [
        f"{count:>{count_width}}  {code:<{code_width}}  "
        f"{FIXABLE_MARK if code in fixable else '[ ]'} {names[code]}"
        for code, count in rows
    ]


def summary_line(diagnostics: Sequence[Diagnostic]) -> str:
    if not diagnostics:
        return "All checks passed."
    total = len(diagnostics)
    fixable = sum(1 for d in diagnostics if d.fix is not None)
    noun = "finding" if total == 1 else "findings"
    if fixable:
        return f"Found {total} {noun} ({fixable} fixable with `loomlint fix`)."
    return f"Found {total} {noun}."
