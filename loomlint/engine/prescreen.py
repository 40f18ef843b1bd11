"""Whether a file names content anywhere an origin could be: a cheap screen before LibCST.

Every origin the flow analysis knows names a content field or a content type in code: an
attribute (``m.content``), a string key (``m["content"]``, ``.get("content")``,
``getattr(m, "content")``, ``{"content": c}`` patterns), a class-pattern keyword
(``case M(content=c)``) or an annotation (``c: Content``, imported under any alias, or in a
string). CPython's own parser finds those names about ten times faster than LibCST parses, and
unlike the text screen it sees past comments and docstrings, which is where most mentions of
"content" in a real codebase are. A file this screen clears cannot have a finding without
types naming one of its values content, so it is not parsed by LibCST at all.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING

from loomlint.engine.suppress import may_hold_suppression

if TYPE_CHECKING:
    from loomlint.project.config import Settings

# What a failed parse can raise: the full analysis then judges (and reports) the file.
_UNPARSABLE = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


def may_hold_content(source: bytes, settings: Settings) -> bool:
    """Whether LibCST must see the file at all: its text names a content field or type, or it
    may hold a suppression to report as unused. A file that says no is only compiled, for
    syntax errors: no front end asks for its types or analyses it."""
    if any(word.encode() in source for word in settings.spi.screening_words):
        return True
    return settings.report_unused_suppressions and may_hold_suppression(source)


def may_report(source: bytes, settings: Settings) -> bool:
    """Whether analysing the file could report anything, short of types naming a value content:
    it names a content field or type where an origin could be (CPython's parser says, ten times
    faster than LibCST), or it may hold a suppression to report as unused.

    A runner screens files with it while mypy builds: a file that says no needs neither its
    facts nor an analysis unless mypy types one of its values as content.
    """
    if settings.report_unused_suppressions and may_hold_suppression(source):
        return True
    return names_content(source, settings.spi.screening_words)


def names_content(source: bytes, words: Iterable[str]) -> bool:
    """True unless the file surely has no content origin (``words``: the content fields and
    the short names of the content types). True as well when CPython cannot parse the file."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to say
            tree = ast.parse(source)
    except _UNPARSABLE:
        return True
    return tree_names_content(tree, words)


def tree_names_content(tree: ast.Module, words: Iterable[str]) -> bool:
    """``names_content`` on a syntax tree CPython has already built."""
    vocabulary = frozenset(words)
    if not vocabulary:
        return False
    alternatives = "|".join(map(re.escape, sorted(vocabulary)))
    in_string = re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])")
    # Bare string statements (docstrings) are no code: ast.walk visits each before its string.
    bare_strings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            bare_strings.add(id(node.value))
        elif _names(node, vocabulary) or (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in bare_strings
            and in_string.search(node.value) is not None
        ):
            return True
    return False


def _names(node: ast.AST, vocabulary: frozenset[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in vocabulary
    if isinstance(node, ast.Attribute):
        return node.attr in vocabulary
    if isinstance(node, ast.alias):
        return node.name.rpartition(".")[2] in vocabulary or node.asname in vocabulary
    if isinstance(node, ast.MatchClass):
        return any(attribute in vocabulary for attribute in node.kwd_attrs)
    return False
