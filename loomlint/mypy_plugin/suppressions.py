"""mypy's ``warn_unused_ignores`` and the plugin's codes.

The engine honours ``# type: ignore[loom-content-...]`` itself, as ``loomlint check`` does (a
line silenced for one front end is silenced for both): a finding it silences never reaches
mypy, so mypy would call the comment unused. The plugin therefore marks the ``loom-*`` codes of
every such comment used, and leaves reporting the unused ones to ``loomlint check
--report-unused-suppressions`` (LML100), which judges them on the same findings. mypy still
reports its own codes in the same comment when they are unused.
"""

from __future__ import annotations

from mypy.errors import Errors


def mark_type_ignores_used(errors: Errors, path: str, codes: frozenset[str]) -> None:
    """Mark ``codes`` used in every ``# type: ignore[...]`` of ``path`` that names them."""
    ignored = errors.ignored_lines.get(path)
    if not ignored:
        return
    used = errors.used_ignored_lines[path]
    for line, named in ignored.items():
        for code in named:
            if code in codes and code not in used[line]:
                used[line].append(code)
