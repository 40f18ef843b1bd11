"""The JSON format: exact fields, sorted, fixes."""

from __future__ import annotations

import json

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.output.json import render_json, render_json_statistics


def test_exact_objects_sorted_by_path_line_column(diagnostics: list[Diagnostic]) -> None:
    rendered = render_json(diagnostics)
    assert rendered.endswith("]\n")
    assert json.loads(rendered) == [
        {
            "path": "bad file.py",
            "line": 1,
            "column": 7,
            "end_line": 1,
            "end_column": 8,
            "code": "LML901",
            "name": "syntax-error",
            "message": "cannot parse: unexpected ':', 50% done\nsee docs, line 1",
            "fix": None,
        },
        {
            "path": "src/app.py",
            "line": 3,
            "column": 5,
            "end_line": 4,
            "end_column": 2,
            "code": "LML001",
            "name": "unsafe-content-use",
            "message": "content of `m` (read at line 3) is sliced; use text_of(...)",
            "fix": None,
        },
        {
            "path": "src/app.py",
            "line": 12,
            "column": 14,
            "end_line": 12,
            "end_column": 23,
            "code": "LML003",
            "name": "content-coercion",
            "message": "content of `m` (read at line 12) is coerced to str by str(); "
            "use text_of(...)",
            "fix": {
                "description": "Wrap in text_of(...)",
                "edits": [
                    {
                        "line": 12,
                        "column": 10,
                        "end_line": 12,
                        "end_column": 24,
                        "replacement": "text_of(m.content)",
                    }
                ],
                "imports": ["loomlint.content.text_of"],
            },
        },
    ]


def test_empty_is_an_empty_array() -> None:
    assert render_json([]) == "[]\n"


def test_non_ascii_is_kept_readable() -> None:
    diagnostic = Diagnostic("é.py", 1, 1, 1, 2, "LML001", "unsafe-content-use", "“quoted”")
    assert '"path": "é.py"' in render_json([diagnostic])


def test_statistics(diagnostics: list[Diagnostic]) -> None:
    assert json.loads(render_json_statistics([*diagnostics, diagnostics[0]])) == [
        {"code": "LML003", "name": "content-coercion", "count": 2, "fixable": 2},
        {"code": "LML001", "name": "unsafe-content-use", "count": 1, "fixable": 0},
        {"code": "LML901", "name": "syntax-error", "count": 1, "fixable": 0},
    ]
