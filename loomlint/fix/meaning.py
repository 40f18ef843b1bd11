"""The last check of every writer before it writes: the rewrite kept what the code means.

A rewrite is computed from positions; a position counted another way than the analysis counted
it (a line break Python does not know, a column in other units) puts text in the wrong place,
possibly inside a string literal. These checks catch that whatever its cause, so a file is
left as it was, with an error, rather than written wrong.
"""

from __future__ import annotations

import ast
import tokenize

from loomlint.files.lines import python_tokens

_LAYOUT = frozenset({tokenize.COMMENT, tokenize.NL})


def comments_only_changed(before: str, after: str) -> bool:
    """Whether ``after`` is ``before`` with comments (and comment lines) added or changed:
    the same tokens but comments and the breaks of lines holding nothing else."""
    try:
        return _code_tokens(before) == _code_tokens(after)
    except (tokenize.TokenError, SyntaxError, ValueError):
        return False


def literals_kept(before: str, after: str) -> bool:
    """Whether ``after`` parses and holds the same string and bytes literals as ``before``
    (f-strings' literal parts too). A ``before`` this Python cannot parse (syntax newer than
    it, which LibCST reads) cannot be compared: then only ``after`` is not judged either."""
    try:
        expected = _literals(before)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    try:
        return _literals(after) == expected
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _code_tokens(text: str) -> list[tuple[int, str]]:
    return [
        (token.type, token.string)
        for token in python_tokens(text.removeprefix("\ufeff"))
        if token.type not in _LAYOUT
    ]


def _literals(text: str) -> list[str]:
    tree = ast.parse(text.removeprefix("\ufeff"))
    return sorted(
        repr(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
    )
