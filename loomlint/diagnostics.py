"""What an analysis produces: diagnostics (with optional fixes), per file."""

from __future__ import annotations

from dataclasses import dataclass, field


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
    unresolved_imports: tuple[str, ...] = ()
    # Seconds the analysis spent in each phase (LibCST parse, flow, ...), for LOOMLINT_TIMINGS:
    # not part of the result, never cached.
    phase_seconds: dict[str, float] = field(default_factory=dict[str, float], compare=False)
    # Modules of the project read for the classes the file imports (judged without types):
    # the result stands while they are unchanged.
    consulted: tuple[str, ...] = ()
