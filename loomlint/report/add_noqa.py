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

import re
import tokenize
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from loomlint.engine.diagnostics import Diagnostic
from loomlint.engine.suppress import Suppressions, parse_suppressions, statement_ranges
from loomlint.files.lines import line_break_of, python_tokens, source_lines, without_break
from loomlint.project.selection import UNUSED_SUPPRESSION_CODE, is_analysis_code

# A noqa comment's list of codes, of any tool (Ruff's ``--add-noqa`` extends it too).
_NOQA_LIST = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]*[A-Za-z]+[0-9]+)*)", re.I)
# What Python skips between tokens (``\x0c`` too); str.isspace() says more, and those other
# characters can only end a line inside a comment, where they are the comment's own.
_BLANKS = " \t\x0c"


@dataclass(slots=True)
class NoqaEdit:
    """The new text of a file and how many suppressions were added."""

    text: str
    added: int = 0
    # Findings that got a statement-level ``# loomlint: ignore[...]`` instead of a noqa.
    above: int = 0
    codes: set[str] = field(default_factory=set[str])
    # Findings the new text does not suppress after all.
    uncovered: tuple[Diagnostic, ...] = ()


def suppressible(diagnostic: Diagnostic) -> bool:
    return not is_analysis_code(diagnostic.code) and diagnostic.code != UNUSED_SUPPRESSION_CODE


def add_noqa(text: str, diagnostics: Sequence[Diagnostic]) -> NoqaEdit:
    """``text`` with a suppression for each suppressible finding of ``diagnostics``.

    ``uncovered`` lists the findings the new text's suppressions do not cover after all (the
    same parser as the analysis's judges), so a run never says a finding is suppressed when
    the next check would still report it.
    """
    wanted: dict[int, list[str]] = {}
    findings = [d for d in sorted(diagnostics, key=lambda d: d.sort_key) if suppressible(d)]
    for diagnostic in findings:
        codes = wanted.setdefault(diagnostic.line, [])
        if diagnostic.code not in codes:
            codes.append(diagnostic.code)
    edit = NoqaEdit(text)
    if not wanted:
        return edit
    lines = source_lines(text)
    no_comment, statement_start, comments = _scan(text, lines)
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
        newline = line_break_of(original) or _last_break(lines[: start - 1])
        lines.insert(start - 1, f"{indent}# loomlint: ignore[{', '.join(codes)}]{newline}")
    edit.codes = {code for codes in wanted.values() for code in codes}
    edit.text = "".join(lines)
    edit.uncovered = _uncovered(edit.text, findings, sorted(above))
    return edit


def _uncovered(
    text: str, findings: Sequence[Diagnostic], inserted_above: Sequence[int]
) -> tuple[Diagnostic, ...]:
    """The findings no suppression of ``text`` covers; ``inserted_above`` are the (old)
    lines a suppression line was inserted above, which moved them and every later line."""
    index = Suppressions(parse_suppressions(text), statement_ranges(text))
    return tuple(
        d
        for d in findings
        if not index.covers(d.line + bisect_right(inserted_above, d.line), [d.code])
    )


def comment_cannot_end(text: str, line: int) -> bool:
    """Whether a comment cannot end 1-based ``line`` of ``text``: it ends inside a string
    spanning lines, or continues with a backslash (the language server's ignore action asks
    what ``--add-noqa`` asks). Text that cannot be tokenized says yes."""
    lines = source_lines(text)
    no_comment, statement_start, _ = _scan(text, lines)
    return line in no_comment or not statement_start


def _with_noqa(line: str, codes: list[str], comment_column: int | None) -> str:
    """The line with ``codes`` added to its ``# noqa:`` list (any tool's), or a new one."""
    body = without_break(line)
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
    # Only Python's own blanks: any other character at the end is part of a comment.
    return f"{body.rstrip(_BLANKS)}  # noqa: {', '.join(codes)}{newline}"


def _last_break(lines: Sequence[str]) -> str:
    """The break of the last line of ``lines`` that has one (a newline when none has)."""
    for line in reversed(lines):
        if end := line_break_of(line):
            return end
    return "\n"


def _scan(text: str, lines: Sequence[str]) -> tuple[set[int], dict[int, int], dict[int, int]]:
    """The lines a comment cannot end (inside a string spanning lines, or continued with a
    backslash), the line each line's statement starts on, and where each line's comment
    starts."""
    no_comment: set[int] = set()
    statement_start: dict[int, int] = {}
    comments: dict[int, int] = {}
    start: int | None = None
    try:
        tokens = list(python_tokens(text))
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
    for number, line_source in enumerate(lines, start=1):
        # Continued with a backslash (tokenize drops it): a comment cannot come before it.
        if number not in strings and without_break(line_source).rstrip(_BLANKS).endswith("\\"):
            no_comment.add(number)
    return no_comment, statement_start, comments
