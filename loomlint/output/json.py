"""JSON: an array, sorted by path, line and column, of one object per finding.

Each object has exactly ``path, line, column, end_line, end_column, code, name, message, fix``;
``fix`` is null or ``{description, edits: [{line, column, end_line, end_column, replacement}],
imports}``. Lines and columns are 1-based; ``end_column`` is exclusive.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from loomlint.diagnostics import Diagnostic, Edit, Fix


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    ordered = sorted(diagnostics, key=_order)
    return dump_json([diagnostic_to_json(d) for d in ordered]) + "\n"


# A file name that is not valid UTF-8 arrives with each undecodable byte as a lone surrogate
# (PEP 383): no UTF-8 stream can carry one raw.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def dump_json(value: object) -> str:
    """Indented JSON, non-ASCII text as is, and lone surrogates (the undecodable bytes of a
    file name) as ``\\udcXX`` escapes: valid UTF-8 JSON, which decodes to the name Python
    uses for the file (``os.fsencode`` gives back its bytes)."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _order(diagnostic: Diagnostic) -> tuple[str, int, int, str, str]:
    return (*diagnostic.sort_key, diagnostic.message)


def diagnostic_to_json(diagnostic: Diagnostic) -> dict[str, object]:
    return {
        "path": diagnostic.path,
        "line": diagnostic.line,
        "column": diagnostic.column,
        "end_line": diagnostic.end_line,
        "end_column": diagnostic.end_column,
        "code": diagnostic.code,
        "name": diagnostic.name,
        "message": diagnostic.message,
        "fix": None if diagnostic.fix is None else _fix_to_json(diagnostic.fix),
    }


def _fix_to_json(fix: Fix) -> dict[str, object]:
    return {
        "description": fix.description,
        "edits": [
            {
                "line": edit.line,
                "column": edit.column,
                "end_line": edit.end_line,
                "end_column": edit.end_column,
                "replacement": edit.replacement,
            }
            for edit in fix.edits
        ],
        "imports": list(fix.imports),
    }


def diagnostic_from_json(data: Mapping[str, Any]) -> Diagnostic:
    """The inverse of ``diagnostic_to_json`` (the result cache stores findings this way).

    Raises ``KeyError``, ``TypeError`` or ``ValueError`` on data of another shape.
    """
    fix_data = data["fix"]
    fix = None
    if fix_data is not None:
        fix = Fix(
            description=str(fix_data["description"]),
            edits=tuple(
                Edit(
                    line=int(edit["line"]),
                    column=int(edit["column"]),
                    end_line=int(edit["end_line"]),
                    end_column=int(edit["end_column"]),
                    replacement=str(edit["replacement"]),
                )
                for edit in fix_data["edits"]
            ),
            imports=tuple(str(name) for name in fix_data["imports"]),
        )
    return Diagnostic(
        path=str(data["path"]),
        line=int(data["line"]),
        column=int(data["column"]),
        end_line=int(data["end_line"]),
        end_column=int(data["end_column"]),
        code=str(data["code"]),
        name=str(data["name"]),
        message=str(data["message"]),
        fix=fix,
    )


def render_json_statistics(diagnostics: Sequence[Diagnostic]) -> str:
    """``--statistics``: one object per code, most frequent first."""
    counts: dict[str, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        counts.setdefault(diagnostic.code, []).append(diagnostic)
    rows = sorted(counts.items(), key=lambda item: (-len(item[1]), item[0]))
    return (
        json.dumps(
            [
                {
                    "code": code,
                    "name": group[0].name,
                    "count": len(group),
                    "fixable": sum(1 for d in group if d.fix is not None),
                }
                for code, group in rows
            ],
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )
