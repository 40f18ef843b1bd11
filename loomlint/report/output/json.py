"""JSON: an array, sorted by path, line and column, of one object per finding.

Each object has exactly ``path, line, column, end_line, end_column, code, name, message, fix``;
``fix`` is null or ``{description, edits: [{line, column, end_line, end_column, replacement}],
imports}``. Lines and columns are 1-based; ``end_column`` is exclusive.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from loomlint.engine.diagnostics import Diagnostic, diagnostic_to_json


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
