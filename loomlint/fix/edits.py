"""Apply the safe rewrites that findings carry: splice their edits, then add the accessor import.

Edits are spliced into the original text, so everything around them (formatting, comments)
stays byte for byte. The import is added where isort and Ruff would put it (``fix_imports``):
into an existing ``from module import ...``, or as a new line in its section of the imports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import libcst as cst

from loomlint.engine.diagnostics import Diagnostic, Edit
from loomlint.engine.names import ModuleNames, record_import, record_import_from
from loomlint.files.lines import LineOffsets
from loomlint.fix.imports import add_import


@dataclass(frozen=True, slots=True)
class FixOutcome:
    """The fixed text of one file, and which of its findings the rewrite resolved."""

    text: str
    fixed: tuple[Diagnostic, ...]
    # Fixable findings left alone: their edit overlapped another, or the accessor's name is
    # taken by something else in the module.
    skipped: tuple[Diagnostic, ...]


def apply_fixes(
    text: str,
    diagnostics: Sequence[Diagnostic],
    *,
    is_first_party: Callable[[str], bool] = lambda top: False,
) -> FixOutcome:
    """``is_first_party`` says whether a top-level package is the project's own (it decides
    the import section of an accessor, as Ruff's ``known-first-party`` does)."""
    fixable = [d for d in diagnostics if d.fix is not None]
    if not fixable:
        return FixOutcome(text, (), ())
    blocked = _accessors_taken(text, fixable)
    chosen: list[Diagnostic] = []
    skipped: list[Diagnostic] = []
    taken: list[Edit] = []
    # Outer edits first, so an edit nested inside one already chosen is the one skipped.
    for diagnostic in sorted(fixable, key=_outer_first):
        assert diagnostic.fix is not None
        edits = diagnostic.fix.edits
        if any(name in blocked for name in diagnostic.fix.imports) or any(
            _overlaps(edit, other) for edit in edits for other in taken
        ):
            skipped.append(diagnostic)
            continue
        chosen.append(diagnostic)
        taken.extend(edits)
    if not chosen:
        return FixOutcome(text, (), tuple(skipped))
    fixed_text = _splice(text, taken)
    imports = sorted({name for d in chosen if d.fix is not None for name in d.fix.imports})
    for qualified in imports:
        fixed_text = add_import(fixed_text, qualified, is_first_party=is_first_party)
    return FixOutcome(fixed_text, tuple(chosen), tuple(skipped))


def _outer_first(diagnostic: Diagnostic) -> tuple[int, int, int, int]:
    assert diagnostic.fix is not None
    first = diagnostic.fix.edits[0]
    return (first.line, first.column, -first.end_line, -first.end_column)


def _overlaps(a: Edit, b: Edit) -> bool:
    a_start, a_end = (a.line, a.column), (a.end_line, a.end_column)
    b_start, b_end = (b.line, b.column), (b.end_line, b.end_column)
    return a_start < b_end and b_start < a_end


def _splice(text: str, edits: Sequence[Edit]) -> str:
    offsets = LineOffsets(text)
    result = text
    for edit in sorted(edits, key=lambda e: (e.line, e.column), reverse=True):
        begin = offsets.offset(edit.line, edit.column)
        end = offsets.offset(edit.end_line, edit.end_column)
        result = result[:begin] + edit.replacement + result[end:]
    return result


def _accessors_taken(text: str, fixable: Sequence[Diagnostic]) -> set[str]:
    """Accessors whose short name the module already binds to something else."""
    wanted = {name for d in fixable if d.fix is not None for name in d.fix.imports}
    module = cst.parse_module(text)
    names = ModuleNames()
    for statement in module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import):
                    record_import(names, small)
                elif isinstance(small, cst.ImportFrom):
                    record_import_from(names, small)
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            names.assigned.add(statement.name.value)
    taken: set[str] = set()
    for qualified in wanted:
        short = qualified.rsplit(".", 1)[-1]
        bound = names.imports.get(short)
        if (bound is not None and bound != qualified) or short in names.assigned:
            taken.add(qualified)
    return taken
