"""The lines of Python source, as Python's tokenizer, LibCST and the Language Server Protocol
number them: every writer and every reader of positions splits a source here.

A line ends at ``\\r\\n``, ``\\r`` or ``\\n`` and nowhere else. ``str.splitlines()`` also
breaks at ``\\x0b \\x0c \\x1c \\x1d \\x1e \\x85 \\u2028 \\u2029``, which Python allows in
comments and strings (``\\x0c`` also in indentation): a comment placed, or an edit spliced, by
such a count lands on another line, possibly inside a string literal. ``io.StringIO(text)``
without ``newline=None`` breaks only at ``\\n``, so a file that ends its lines with ``\\r``
alone reads as one line.
"""

from __future__ import annotations

import re
import tokenize
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def source_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its line break (the last may have none), numbered
    from 1 as Python numbers them: ``source_lines(text)[line - 1]``."""
    lines: list[str] = []
    start = 0
    for match in _LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def without_break(line: str) -> str:
    """A line of ``source_lines`` without its line break."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\r", "\n")):
        return line[:-1]
    return line


def line_break_of(line: str) -> str:
    """The break that ends a line of ``source_lines`` ("" for a last line without one)."""
    return line[len(without_break(line)) :]


def line_texts(text: str) -> list[str]:
    """The text of each line without its break; a source that ends with a break has an empty
    last line (as an editor shows it), so ``len`` is the number of lines an editor counts."""
    return _LINE_BREAK.split(text)


class LineOffsets:
    """Converts between 1-based (line, column) positions counted in characters and offsets
    into the text they were counted in."""

    def __init__(self, text: str) -> None:
        self.lines = source_lines(text)
        self._starts = [0, *accumulate(len(line) for line in self.lines)]

    def offset(self, line: int, column: int) -> int:
        """The offset of 1-based ``line`` and ``column`` (the text's end past its last line)."""
        if line > len(self.lines):
            return self._starts[-1]
        return self._starts[line - 1] + column - 1

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based line and column of ``offset``."""
        index = bisect_right(self._starts, offset) - 1
        if index == len(self.lines) and self.lines and not line_break_of(self.lines[-1]):
            index -= 1  # the end of a last line without a break is on that line
        return index + 1, offset - self._starts[index] + 1


def python_tokens(text: str) -> Iterator[tokenize.TokenInfo]:
    """``tokenize``'s tokens of ``text``, numbered by ``source_lines``. Raises what
    ``tokenize`` raises for text it cannot tokenize."""
    # Each line is handed over ending in "\n": every tokenizer (the pure-Python one of 3.11,
    # the C one of 3.12+) ends a line there, and the columns before the break are unchanged.
    lines = iter([without_break(line) + "\n" for line in source_lines(text)])
    return tokenize.generate_tokens(lambda: next(lines, ""))
