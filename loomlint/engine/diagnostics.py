"""What an analysis produces: diagnostics (with optional fixes), per file."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast


class Guess(enum.Enum):
    """Why a finding rests on no type and no preset data (``engine.guesses``)."""

    # mypy could not find the module of the message's type (its SDK is not installed where
    # loomlint runs, or ships no type information).
    MISSING_MODULE = "missing module"
    # mypy checked the code and types the message ``Any`` (``dict[str, Any]``, an ``Any``
    # parameter, an untyped library's return).
    TYPED_ANY = "typed Any"
    # mypy does not check the function the read is in (unannotated, ``check_untyped_defs``
    # off).
    UNCHECKED = "unchecked"
    # mypy skips the code the read is in: the file (a ``# type: ignore`` before its first
    # statement), a function of a module whose errors it ignores (``# mypy: ignore-errors``,
    # ``ignore_errors = true``: it drops their bodies) or a branch it deems unreachable
    # (``sys.version_info``, ``sys.platform``).
    SKIPPED = "skipped"
    # The file is checked without types (``--no-types``, ``types = "none"``, or a file mypy
    # could not check: LML904), and nothing but the read's syntax says it is a message's
    # content: no preset's data and no declared content type.
    NO_TYPES = "no types"


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text between two 1-based positions (end exclusive) with ``replacement``."""

    line: int
    column: int
    end_line: int
    end_column: int
    replacement: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A safe rewrite of one finding: edits to the file, plus imports it needs."""

    description: str
    edits: tuple[Edit, ...]
    # Qualified names (``module.name``) that must be importable by their last component.
    imports: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Span:
    """A range of a file: 1-based lines and character columns, ``end_column`` exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding. Lines and columns are 1-based; columns count characters, not bytes.

    ``end_column`` is exclusive: the column just after the flagged expression's last character.
    """

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    name: str
    message: str
    fix: Fix | None = None
    # Where the flagged value came from (the content read the message names), for the
    # language server's related information. Not part of a finding's identity, and not kept
    # in the result cache or in reports: the message says it in words.
    origins: tuple[Span, ...] = field(default=(), compare=False)
    # Why the finding rests on no type and no preset data, if it does (``engine.guesses``):
    # kept only where the settings ask for guesses. Not kept in the result cache either.
    guess: Guess | None = field(default=None, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)


@dataclass(slots=True)
class FileResult:
    """Everything the analysis of one file produced."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list[Diagnostic])
    # True when the file was checked without types although types were requested.
    degraded: bool = False
    # Modules mypy could not find that define the receiver of a content read in the file:
    # the file was judged without types (as ``--no-types`` would), and the run says so.
    # ``module:name`` where mypy read the module but found no such name (``FileTypes``'s
    # ``unresolved``).
    unresolved_imports: tuple[str, ...] = ()
    # Of those, the modules installed but shipping no type information (``FileTypes``'s
    # ``unresolved_untyped``): kept with the result, so a cached result warns as its run did.
    unresolved_untyped: tuple[str, ...] = ()
    # The findings that rest on neither a type nor the presets' data, counted by why
    # (``engine.guesses``; a kind with none is absent): left out of ``diagnostics`` unless the
    # settings ask for them (``report_guesses``), and counted in the run's warnings.
    guesses: dict[Guess, int] = field(default_factory=dict[Guess, int])
    # Seconds the analysis spent in each phase (LibCST parse, flow, ...), for LOOMLINT_TIMINGS:
    # not part of the result, never cached.
    phase_seconds: dict[str, float] = field(default_factory=dict[str, float], compare=False)
    # Modules of the project read for the classes the file imports (judged without types):
    # the result stands while they are unchanged.
    consulted: tuple[str, ...] = ()


# The JSON shape of a finding: the json output format prints it, and the result cache and the
# daemon store and send findings in it.
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


def guesses_to_json(guesses: Mapping[Guess, int]) -> dict[str, int]:
    """A file's guesses by kind (``FileResult.guesses``), as the result cache and the daemon
    keep and send them."""
    return {kind.value: count for kind, count in guesses.items()}


def guesses_from_json(data: object) -> dict[Guess, int]:
    """The inverse of ``guesses_to_json``.

    Raises ``TypeError`` or ``ValueError`` on data of another shape (an unknown kind, a count
    that is not a positive integer).
    """
    if not isinstance(data, dict):
        raise TypeError("guesses: not a JSON object")
    guesses: dict[Guess, int] = {}
    for kind, count in cast("dict[object, object]", data).items():
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"guesses: {count!r} is not a count")
        guesses[Guess(kind)] = count
    return guesses


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
