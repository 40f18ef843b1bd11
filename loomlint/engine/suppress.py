"""Suppression comments: ``# loomlint: ignore[...]`` and ``# noqa: LML...``.

- ``# loomlint: ignore[LML001, LML003]`` at the end of a line covers the diagnostics that start
  on that line; alone on its own line it covers the whole statement that starts on the next
  line (comment lines may come between, a blank line may not). A bare ``# loomlint: ignore``
  covers every code.
- ``# noqa: E501, LML003`` covers the LML codes it names on its own line; other tools' codes
  are left to them. A bare ``# noqa`` covers everything (Ruff's convention) and is never
  reported as unused, since it may be meant for another tool.
- ``# loomlint: noqa`` on a line of its own covers the whole file (Ruff's ``# ruff: noqa``);
  ``# loomlint: noqa: LML003, LML001`` covers those codes in the whole file. At the end of a
  line of code it is not a directive (it would read as a line suppression that is not one).
- ``# type: ignore[loom-content-coercion]`` covers, on its own line, the rules whose
  ``mypy_code`` (``rules/LML*.toml``) it names, so a line silenced for the mypy plugin is
  silenced for ``loomlint check`` too. mypy's other codes are left to mypy, and a bare
  ``# type: ignore`` is not a loomlint suppression: it usually predates loomlint and is about
  a mypy error, and honouring it would hide content bugs on every such line.

The mypy plugin runs the same engine, which applies these: both front ends honour the same
comments.

Comments are found with ``tokenize``, so ``"# noqa"`` inside a string is not a comment. Where
the tokenizer gives up (broken files still get LML9xx diagnostics and suppressions), the rest of
the file is scanned line by line. A malformed code list is ignored rather than widened: a typo
must never turn into a blanket suppression.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
import tokenize
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from loomlint.catalog.rules import load_catalog
from loomlint.engine.diagnostics import Diagnostic
from loomlint.files.lines import line_texts, python_tokens

UNUSED_SUPPRESSION = "LML100"

SuppressionKind = Literal["loomlint", "noqa", "file", "type-ignore"]
StatementRange = Callable[[int], tuple[int, int] | None]

_DIRECTIVE = re.compile(
    r"#\s*(?:(?P<loomlint>loomlint\s*:\s*ignore)|(?P<file>loomlint\s*:\s*noqa)|(?P<noqa>noqa)"
    r"|(?P<mypy>(?-i:type:\s*ignore)))",  # mypy's own spelling is case-sensitive
    re.I,
)
# Bytes a file must contain to hold any directive (a cheap test before tokenising it).
_MARKERS = (b"loomlint", b"noqa", b"loom-")
_CODE = re.compile(r"[A-Za-z]+[0-9]+")
_BRACKETED = re.compile(r"\s*\[(?P<body>[^\]\n]*)\]")
_NOQA_CODE = re.compile(r"[\s,]*(?P<code>[A-Za-z]+[0-9]+|(?i:LML)(?![A-Za-z]))")
# "LML" without its digits: no code, but meant for loomlint (LML100 says so).
_LML_LIKE = re.compile(r"LML", re.I)
_RULE_NAME = re.compile(r"[A-Za-z]{2,}(?:-[A-Za-z][A-Za-z0-9]*)+")


@dataclass(frozen=True, slots=True)
class CodeSpan:
    """One code named by a suppression, and where it is written (1-based, end exclusive)."""

    code: str
    column: int
    end_column: int
    # The rule codes it covers when that is not ``code`` itself: a mypy code in
    # ``# type: ignore[...]`` covers every rule reported under it (loom-content-use: LML001
    # and LML002).
    covers: tuple[str, ...] = ()

    @property
    def rules(self) -> tuple[str, ...]:
        return self.covers or (self.code,)


@dataclass(frozen=True, slots=True)
class Suppression:
    """One suppression directive in a comment. Lines and columns are 1-based."""

    kind: SuppressionKind
    line: int
    # The directive's span: from its ``#`` to the end of its code list (end exclusive).
    column: int
    end_column: int
    # The codes it names (upper case); None for a bare directive, which covers every code.
    codes: tuple[CodeSpan, ...] | None
    # Alone on its line (only whitespace before the ``#``).
    own_line: bool
    # For a directive on its own line: the line the next statement starts on, or None when a
    # blank line or the end of the file comes first.
    next_code_line: int | None

    @property
    def code_names(self) -> frozenset[str] | None:
        """The rule codes it covers; None for every code."""
        if self.codes is None:
            return None
        return frozenset(rule for span in self.codes for rule in span.rules)


def may_hold_suppression(source: bytes) -> bool:
    """Whether ``source`` can hold a directive at all. Tokenising a file for its comments
    costs as much as a tenth of the analysis; most files never say any of these words."""
    return any(marker in source for marker in _MARKERS)


# --- parsing -------------------------------------------------------------------------------


def parse_suppressions(source: str) -> list[Suppression]:
    """Every suppression directive in ``source``, in order. Never raises."""
    source = source.removeprefix("\ufeff")
    lines = line_texts(source)
    comments, line_kinds = _scan(source, lines)
    suppressions: list[Suppression] = []
    for line, column, text, own_line in comments:
        next_code_line = _next_code_line(line, line_kinds) if own_line else None
        suppressions.extend(_directives(text, line, column, own_line, next_code_line))
    return suppressions


# A comment: (1-based line, 0-based column, text, alone on its line).
_Comment = tuple[int, int, str, bool]
_BLANK, _COMMENT, _CODE_LINE = 0, 1, 2
_NON_CODE_TOKENS = frozenset(
    {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENCODING,
        tokenize.ENDMARKER,
    }
)


def _scan(source: str, lines: list[str]) -> tuple[list[_Comment], list[int]]:
    """Comments, and each line's kind (index 0 unused): tokenized, then scanned after errors."""
    kinds = [_BLANK] * (len(lines) + 2)
    comments: list[_Comment] = []
    complete_through = 0  # lines up to here were fully tokenized
    try:
        for token in python_tokens(source):
            start_line, start_column = token.start
            if token.type == tokenize.COMMENT:
                own_line = not token.line[:start_column].strip()
                comments.append((start_line, start_column, token.string, own_line))
                if own_line and kinds[start_line] == _BLANK:
                    kinds[start_line] = _COMMENT
            elif token.type not in _NON_CODE_TOKENS:
                for line in range(start_line, min(token.end[0], len(lines)) + 1):
                    kinds[line] = _CODE_LINE
            if token.type in (tokenize.NEWLINE, tokenize.NL):
                complete_through = start_line
    except (tokenize.TokenError, SyntaxError, ValueError):
        # An unterminated string or bracket, bad indentation, a NUL byte: keep what was
        # tokenized and scan the rest by lines.
        comments.extend(_scan_lines(lines, kinds, first_line=complete_through + 1))
    return comments, kinds


def _scan_lines(lines: list[str], kinds: list[int], *, first_line: int) -> Iterator[_Comment]:
    for number in range(first_line, len(lines) + 1):
        text = lines[number - 1]
        column = _comment_start(text)
        code = text[:column] if column is not None else text
        own_line = not code.strip()
        kinds[number] = _CODE_LINE if not own_line else (_COMMENT if column is not None else _BLANK)
        if column is not None:
            yield number, column, text[column:], own_line


def _comment_start(text: str) -> int | None:
    """The column of the first ``#`` outside a one-line string literal (a best effort)."""
    quote: str | None = None
    escaped = False
    for index, char in enumerate(text):
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return index
    return None


def _next_code_line(line: int, kinds: list[int]) -> int | None:
    for candidate in range(line + 1, len(kinds)):
        if kinds[candidate] == _CODE_LINE:
            return candidate
        if kinds[candidate] == _BLANK:
            return None
    return None


def _directives(
    text: str, line: int, column: int, own_line: bool, next_code_line: int | None
) -> Iterator[Suppression]:
    for match in _DIRECTIVE.finditer(text):
        kind: SuppressionKind = "type-ignore"
        if match.group("loomlint"):
            kind = "loomlint"
        elif match.group("noqa"):
            kind = "noqa"
        elif match.group("file"):
            kind = "file"
            if not own_line:
                continue
        parsed = _PARSERS[kind](text, match.end())
        if parsed is None:
            continue
        codes, end = parsed
        if codes is not None:
            codes = tuple(
                CodeSpan(span.code, span.column + column, span.end_column + column, span.covers)
                for span in codes
            )
        yield Suppression(
            kind=kind,
            line=line,
            column=column + match.start() + 1,
            end_column=column + end + 1,
            codes=codes,
            own_line=own_line,
            next_code_line=next_code_line,
        )


# (codes or None for bare, end offset of the directive) or None when it is not a directive.
_Parsed = tuple[tuple[CodeSpan, ...] | None, int] | None


def _loomlint_codes(text: str, offset: int) -> _Parsed:
    rest = text[offset:]
    bracketed = _BRACKETED.match(rest)
    if bracketed is not None:
        body_start = offset + bracketed.start("body")
        spans = _split_codes(bracketed.group("body"), body_start)
        return (spans, offset + bracketed.end()) if spans else None
    if rest.lstrip(" \t").startswith("["):
        return None  # an unclosed list: malformed
    if not rest or rest[0] in " \t#":
        return None, offset
    return None  # "ignored", "ignore-next", ...: not this directive


def _split_codes(body: str, body_start: int) -> tuple[CodeSpan, ...] | None:
    """The codes of a ``[...]`` list: codes (``LML003``) or rule names (``content-coercion``),
    any case. A name or code of no rule is kept as a span that covers nothing (LML100 says
    so); anything else makes the list malformed."""
    spans: dict[str, CodeSpan] = {}
    by_name = _rules_by_name()
    for match in re.finditer(r"[^,\s]+", body):
        token = match.group()
        if _CODE.fullmatch(token) or _LML_LIKE.fullmatch(token):
            code = token.upper()
        elif _RULE_NAME.fullmatch(token):
            code = by_name.get(token.lower(), token.lower())
        else:
            return None
        spans.setdefault(
            code, CodeSpan(code, body_start + match.start() + 1, body_start + match.end() + 1)
        )
    return tuple(spans.values()) or None


@functools.cache
def _rules_by_name() -> dict[str, str]:
    return {rule.name: rule.code for rule in load_catalog().rules.values()}


def _noqa_codes(text: str, offset: int) -> _Parsed:
    rest = text[offset:]
    if not rest.startswith(":"):
        if not rest or rest[0] in " \t#":
            return None, offset
        return None  # "noqa123", "noqa-foo": not a directive
    position = offset + 1
    named: dict[str, CodeSpan] = {}
    any_code = False
    while (match := _NOQA_CODE.match(text, position)) is not None:
        # A code must end at a separator; "E501x" stops the list.
        if match.end() < len(text) and not (
            text[match.end()].isspace() or text[match.end()] in ",#"
        ):
            break
        any_code = True
        code = match.group("code").upper()
        if code.startswith("LML"):
            named.setdefault(code, CodeSpan(code, match.start("code") + 1, match.end("code") + 1))
        position = match.end()
    if not any_code or not named:
        # A colon without codes is malformed; a list of other tools' codes is theirs alone.
        return None
    return tuple(named.values()), position


def _type_ignore_codes(text: str, offset: int) -> _Parsed:
    """mypy's codes of the rules (``mypy_code``) in a ``# type: ignore[...]``; None when it
    names none of them (bare, or only mypy's own codes: mypy's business alone)."""
    bracketed = _BRACKETED.match(text, offset)
    if bracketed is None:
        return None
    by_mypy_code = _rules_by_mypy_code()
    spans: dict[str, CodeSpan] = {}
    for match in re.finditer(r"[^,\s]+", bracketed.group("body")):
        code = match.group().lower()
        rules = by_mypy_code.get(code)
        if rules is not None:
            start = bracketed.start("body") + match.start() + 1
            spans.setdefault(code, CodeSpan(code, start, start + len(code), rules))
    if not spans:
        return None
    return tuple(spans.values()), bracketed.end()


def _rules_by_mypy_code() -> dict[str, tuple[str, ...]]:
    grouped: dict[str, list[str]] = {}
    for rule in load_catalog().rules.values():
        if rule.mypy_code is not None:
            grouped.setdefault(rule.mypy_code, []).append(rule.code)
    return {code: tuple(sorted(rules)) for code, rules in grouped.items()}


_PARSERS: dict[SuppressionKind, Callable[[str, int], _Parsed]] = {
    "loomlint": _loomlint_codes,
    "noqa": _noqa_codes,
    "file": _noqa_codes,
    "type-ignore": _type_ignore_codes,
}


# --- applying --------------------------------------------------------------------------------


class Suppressions:
    """The suppressions of one file and the lines each covers: which codes are silenced where.

    ``statement_range(line)`` gives the lines of the statement starting on ``line`` (None when
    none starts there: then the line alone is covered).
    """

    def __init__(
        self, suppressions: Sequence[Suppression], statement_range: StatementRange
    ) -> None:
        self.suppressions = tuple(suppressions)
        self.covered = [_covered_lines(s, statement_range) for s in self.suppressions]

    def covering(self, line: int, code: str) -> list[int]:
        """The indexes of the suppressions that silence ``code`` on ``line``."""
        code = code.upper()
        found: list[int] = []
        for index, suppression in enumerate(self.suppressions):
            lines = self.covered[index]
            if lines is None or not lines[0] <= line <= lines[1]:
                continue
            names = suppression.code_names
            if names is None or code in names:
                found.append(index)
        return found

    def covers(self, line: int, codes: Iterable[str]) -> bool:
        """Whether any of ``codes`` is silenced on ``line``."""
        return any(self.covering(line, code) for code in codes)


def statement_ranges(source: str) -> StatementRange:
    """``statement_range`` from CPython's parser, for a writer without a LibCST tree
    (``--add-noqa``): the same lines as the LibCST pass gives. A compound statement (``if``,
    ``def``, from its first decorator) covers its header, not its body. A file that does not
    parse has no statements (a suppression then covers its own line)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _no_statement
    ranges: dict[int, tuple[int, int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        first = node.lineno
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([first, *(d.lineno for d in node.decorator_list)])
        body: object = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = max(first, body[0].lineno - 1)
        else:
            last = node.end_lineno or node.lineno
        ranges.setdefault(first, (first, last))
    return ranges.get


def _no_statement(line: int) -> tuple[int, int] | None:
    del line
    return None


def apply_suppressions(
    diagnostics: Sequence[Diagnostic],
    suppressions: Sequence[Suppression],
    statement_range: StatementRange,
    *,
    report_unused: bool,
    path: str,
    is_enabled: Callable[[str], bool] | None = None,
) -> list[Diagnostic]:
    """The diagnostics no suppression covers, plus (with ``report_unused``) LML100 findings.

    ``is_enabled(code)`` says whether a code is reported for this file at all; a suppression
    of a code that is switched off is not reported as unused, since it matters again when the
    code is switched on.
    """
    index = Suppressions(suppressions, statement_range)
    used: list[set[str]] = [set() for _ in suppressions]
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        code = diagnostic.code.upper()
        covering = index.covering(diagnostic.line, code)
        for position in covering:
            used[position].add(code)
        if not covering:
            kept.append(diagnostic)
    if report_unused:
        for position, suppression in enumerate(suppressions):
            kept.extend(
                _unused(
                    suppression,
                    used[position],
                    index.covered[position] is not None,
                    path,
                    is_enabled,
                )
            )
    return sorted(kept, key=lambda d: d.sort_key)


def _covered_lines(
    suppression: Suppression, statement_range: StatementRange
) -> tuple[int, int] | None:
    if suppression.kind == "file":
        return 1, sys.maxsize
    if not suppression.own_line or suppression.kind != "loomlint":
        return suppression.line, suppression.line
    target = suppression.next_code_line
    if target is None:
        return None
    return statement_range(target) or (target, target)


def _unused(
    suppression: Suppression,
    used: set[str],
    covers_something: bool,
    path: str,
    is_enabled: Callable[[str], bool] | None,
) -> Iterator[Diagnostic]:
    names = suppression.code_names
    if names is not None and UNUSED_SUPPRESSION in names:
        return  # naming LML100 beside LML003 says: keep LML003 even if nothing matches
    if suppression.kind == "file":
        problem = "no {code}finding in this file"
    elif not covers_something:
        problem = "no statement starts on the line after this comment"
    elif suppression.own_line and suppression.kind == "loomlint":
        problem = "no {code}finding in the next statement"
    else:
        problem = "no {code}finding on this line"
    if suppression.codes is None:
        if not used and suppression.kind != "noqa":
            message = f"unused suppression: {problem.format(code='')}"
            yield _lml100(path, suppression, suppression.column, suppression.end_column, message)
        return
    known = load_catalog().rules
    for span in suppression.codes:
        if used.intersection(span.rules):
            continue
        if not known.keys() >= set(span.rules):
            message = f"unused suppression: '{span.code}' is not a loomlint rule code or name"
        elif is_enabled is not None and not any(is_enabled(rule) for rule in span.rules):
            continue
        elif covers_something:
            message = f"unused suppression: {problem.format(code=span.code + ' ')}"
        else:
            message = f"unused suppression of {span.code}: {problem}"
        yield _lml100(path, suppression, span.column, span.end_column, message)


def _lml100(
    path: str, suppression: Suppression, column: int, end_column: int, message: str
) -> Diagnostic:
    return Diagnostic(
        path=path,
        line=suppression.line,
        column=column,
        end_line=suppression.line,
        end_column=end_column,
        code=UNUSED_SUPPRESSION,
        name=load_catalog().rules[UNUSED_SUPPRESSION].name,
        message=message,
    )
