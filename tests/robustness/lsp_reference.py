"""What a standard LSP client does with positions, written from the specification and nothing of
loomlint's or pygls's: the reference the server's ranges and edits are checked against.

- A document's lines end at ``\\r\\n``, ``\\r`` or ``\\n``, nothing else.
- ``character`` counts UTF-16 code units (the default position encoding); a character past the
  end of its line means the end of the line.
- The edits of one ``TextEdit[]`` all refer to the document before any of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types

_LINE_END = re.compile(r"\r\n|\r|\n")


def _line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end before the line break) of each line; a text ending in a break has an
    empty last line."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _LINE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def offset_of(text: str, position: types.Position) -> int:
    """The code point offset in ``text`` of an LSP position (UTF-16 characters)."""
    spans = _line_spans(text)
    if position.line >= len(spans):
        return len(text)
    start, end = spans[position.line]
    units = 0
    offset = start
    while offset < end and units < position.character:
        units += 2 if ord(text[offset]) > 0xFFFF else 1
        offset += 1
    return offset


def position_of(text: str, offset: int) -> types.Position:
    """The LSP position (UTF-16 characters) of a code point offset."""
    spans = _line_spans(text)
    for line, (start, end) in enumerate(spans):
        if offset <= end or line == len(spans) - 1:
            chars = text[start:offset]
            return types.Position(line, sum(2 if ord(c) > 0xFFFF else 1 for c in chars))
    raise AssertionError("unreachable")


def apply_text_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    spans = [(offset_of(text, e.range.start), offset_of(text, e.range.end), e) for e in edits]
    for start, end, edit in sorted(spans, key=lambda span: span[0], reverse=True):
        text = text[:start] + edit.new_text + text[end:]
    return text


def apply_workspace_edit(text: str, edit: types.WorkspaceEdit) -> str:
    """Apply a workspace edit that changes one document."""
    assert edit.changes is not None
    (edits,) = edit.changes.values()
    return apply_text_edits(text, edits)
