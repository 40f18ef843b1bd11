"""``--add-noqa``: write a suppression for each of today's findings, as Ruff's ``--add-noqa``.

Each finding gets ``# noqa: CODE`` at the end of the line it starts on (codes already named
by a ``# noqa:`` there are extended, not repeated). Where a comment cannot end that line (it
ends inside a string spanning lines, or continues with a backslash), the statement gets a
``# loomlint: ignore[CODE]`` on its own line above it instead, which covers the whole
statement. Findings that say a file could not be analysed (LML9xx) and unused suppressions
(LML100) are not suppressed: they say something about the run, not the code.

A file is rewritten in one rename, and only when its bytes are still those the run analysed:
a file edited meanwhile is left alone and named.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field

from loomlint.diagnostics import Diagnostic
from loomlint.selection import UNUSED_SUPPRESSION_CODE, is_analysis_code

# A noqa comment's list of codes, of any tool (Ruff's ``--add-noqa`` extends it too).
_NOQA_LIST = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]*[A-Za-z]+[0-9]+)*)", re.I)


@dataclass(slots=True)
class NoqaEdit:
    """The new text of a file and how many suppressions were added."""

    text: str
    added: int = 0
    # Findings that got a statement-level ``# loomlint: ignore[...]`` instead of a noqa.
    above: int = 0
    codes: set[str] = field(default_factory=set[str])


def suppressible(diagnostic: Diagnostic) -> bool:
    return not is_analysis_code(diagnostic.code) and diagnostic.code != UNUSED_SUPPRESSION_CODE


def add_noqa(text: str, diagnostics: Sequence[Diagnostic]) -> NoqaEdit:
    """``text`` with a suppression for each suppressible finding of ``diagnostics``."""
    wanted: dict[int, list[str]] = {}
    for diagnostic in sorted(diagnostics, key=lambda d: d.sort_key):
        if suppressible(diagnostic):
            codes = wanted.setdefault(diagnostic.line, [])
            if diagnostic.code not in codes:
                codes.append(diagnostic.code)
    edit = NoqaEdit(text)
    if not wanted:
        return edit
    lines = text.splitlines(keepends=True)
    no_comment, statement_start, comments = _scan(text)
    # Statement line -> codes to put above it; applied bottom-up so line numbers hold.
    above: dict[int, list[str]] = {}
    for line, codes in sorted(wanted.items()):
        if line in no_comment or line > len(lines):
            start = statement_start.get(line, line)
            target = above.setdefault(start, [])
            target.extend(code for code in codes if code not in target)
            edit.above += len(codes)
            continue
        lines[line - 1] = _with_noqa(lines[line - 1], codes, comments.get(line))
        edit.added += len(codes)
    for start, codes in sorted(above.items(), reverse=True):
        original = lines[start - 1] if start <= len(lines) else ""
        indent = original[: len(original) - len(original.lstrip(" \t"))]
        newline = _newline_of(original or (lines[-1] if lines else "\n"))
        lines.insert(start - 1, f"{indent}# loomlint: ignore[{', '.join(codes)}]{newline}")
    edit.codes = {code for codes in wanted.values() for code in codes}
    edit.text = "".join(lines)
    return edit


def _with_noqa(line: str, codes: list[str], comment_column: int | None) -> str:
    """The line with ``codes`` added to its ``# noqa:`` list (any tool's), or a new one."""
    body = line.rstrip("\r\n")
    newline = line[len(body) :]
    if comment_column is not None:
        existing = _NOQA_LIST.search(body, comment_column)
        if existing is not None:
            named = {code.upper() for code in re.findall(r"[A-Za-z]+[0-9]+", existing["codes"])}
            missing = [code for code in codes if code not in named]
            if not missing:
                return line
            end = existing.end()
            return f"{body[:end]}, {', '.join(missing)}{body[end:]}{newline}"
    return f"{body.rstrip()}  # noqa: {', '.join(codes)}{newline}"


def _newline_of(line: str) -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith("\r"):
        return "\r"
    return "\n"


def _scan(text: str) -> tuple[set[int], dict[int, int], dict[int, int]]:
    """The lines a comment cannot end (inside a string spanning lines, or continued with a
    backslash), the line each line's statement starts on, and where each line's comment
    starts."""
    no_comment: set[int] = set()
    statement_start: dict[int, int] = {}
    comments: dict[int, int] = {}
    start: int | None = None
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return no_comment, statement_start, comments
    for token in tokens:
        kind = token.type
        if kind in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if start is not None:
                for line in range(start, token.start[0] + 1):
                    statement_start.setdefault(line, start)
            start = None
            continue
        if kind == tokenize.COMMENT:
            comments.setdefault(token.start[0], token.start[1])
            continue
        if kind in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
            continue
        if start is None:
            start = token.start[0]
        if token.end[0] > token.start[0]:
            # A string (or f-string part) spanning lines: no comment can end its first lines.
            no_comment.update(range(token.start[0], token.end[0]))
    strings = set(no_comment)
    for number, line_text in enumerate(text.splitlines(), start=1):
        # Continued with a backslash (tokenize drops it): a comment cannot come before it.
        if number not in strings and line_text.rstrip().endswith("\\"):
            no_comment.add(number)
    return no_comment, statement_start, comments
