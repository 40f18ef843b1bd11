"""Sample diagnostics shared by the renderer tests."""

from __future__ import annotations

import pytest

from loomlint.engine.diagnostics import Diagnostic, Edit, Fix

COERCION = Diagnostic(
    path="src/app.py",
    line=12,
    column=14,
    end_line=12,
    end_column=23,
    code="LML003",
    name="content-coercion",
    message="content of `m` (read at line 12) is coerced to str by str(); use text_of(...)",
    fix=Fix(
        description="Wrap in text_of(...)",
        edits=(Edit(12, 10, 12, 24, "text_of(m.content)"),),
        imports=("loomlint.content.text_of",),
    ),
)
USE = Diagnostic(
    path="src/app.py",
    line=3,
    column=5,
    end_line=4,
    end_column=2,
    code="LML001",
    name="unsafe-content-use",
    message="content of `m` (read at line 3) is sliced; use text_of(...)",
)
SYNTAX = Diagnostic(
    path="bad file.py",
    line=1,
    column=7,
    end_line=1,
    end_column=8,
    code="LML901",
    name="syntax-error",
    message="cannot parse: unexpected ':', 50% done\nsee docs, line 1",
)


@pytest.fixture
def diagnostics() -> list[Diagnostic]:
    # Deliberately out of order: every renderer sorts.
    return [COERCION, SYNTAX, USE]
