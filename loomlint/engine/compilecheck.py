"""What CPython says of a file, before LibCST or mypy see it.

CPython's parser and compiler run in C, about twenty times faster than LibCST parses, and
they judge three things LibCST cannot:

- *Compile-time errors.* ``return`` or ``await`` outside a function, ``nonlocal`` at module
  level, a duplicate argument: LibCST parses these without complaint, CPython refuses them
  (LML901, at CPython's position).
- *Nesting LibCST parses in superlinear time and memory.* A chain of 2,000 ``[0]``, ``+``,
  ternaries or ``lambda``\\s costs LibCST's parser seconds to minutes and up to gigabytes;
  CPython parses it in milliseconds. A syntax tree deeper than ``MAX_DEPTH`` is refused
  before LibCST sees it (LML903), as is nesting CPython's own parser refuses.
- *Files LibCST cannot parse though CPython compiles them* (3,001 adjacent string literals):
  not a syntax error, so LML903 rather than LML901 (``engine`` asks ``compiles``).

A file CPython cannot parse at all is LibCST's to judge: LibCST accepts syntax newer than the
running Python. CPython's error then words the message if LibCST fails too.
"""

from __future__ import annotations

import ast
import sys
import warnings
from dataclasses import dataclass

from loomlint.engine import budget

# Deeper syntax trees are refused before LibCST parses them. At 1,000 levels LibCST's parser
# takes about a second on the costliest chain (``x[0][0]...``) and a few hundred MB on
# ternaries and lambdas; its cost grows with the square of the depth and more beyond.
MAX_DEPTH = 1000

# CPython's own parser's messages for nesting it refuses.
_DEPTH_ERRORS = ("too many nested parentheses", "too many levels of indentation", "too complex")


@dataclass(frozen=True, slots=True)
class Refusal:
    """The one diagnostic of a file that is not to be parsed by LibCST."""

    code: str
    message: str
    line: int = 1
    column: int = 1


@dataclass(frozen=True, slots=True)
class Verdict:
    """``compiles``: CPython compiles the file. ``refusal``: the file's diagnostic instead of
    an analysis. ``syntax_error``: CPython's parse error, when it could not parse the file.
    ``tree``: CPython's syntax tree, when it was built (to be screened for content names)."""

    compiles: bool
    refusal: Refusal | None = None
    syntax_error: SyntaxError | None = None
    tree: ast.Module | None = None


def over_size(source: bytes) -> Verdict | None:
    """The refusal of a file larger than one file's memory budget (``budget.FILE_BYTES``)."""
    if len(source) <= budget.FILE_BYTES:
        return None
    return Verdict(
        compiles=False,
        refusal=Refusal(
            "LML903",
            f"the file is larger than {budget.FILE_BYTES // (1024 * 1024)} MiB, the most one "
            "file may take to analyse; it was not checked",
        ),
    )


def compiles(source: bytes) -> bool:
    """Whether CPython compiles the file (parse, symbol table and code generation)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to say
            compile(source, "<loomlint>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def judge(source: bytes) -> Verdict:
    """CPython's verdict on a file about to be parsed by LibCST."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(source)
        except SyntaxError as exc:
            if isinstance(exc, UnicodeError):  # undecodable: LibCST says so (LML902)
                return Verdict(compiles=False)
            if any(reason in str(exc.msg) for reason in _DEPTH_ERRORS):
                return _too_deep(f"the file is nested too deeply to parse ({exc.msg})", exc.lineno)
            return Verdict(compiles=False, syntax_error=exc)
        except (RecursionError, MemoryError):
            return _too_deep("the file is nested too deeply to parse", None)
        except (ValueError, OverflowError):  # null bytes: LibCST reports them
            return Verdict(compiles=False)
        deepest = _deeper_than(tree, MAX_DEPTH)
        if deepest is not None:
            return _too_deep(
                f"the file nests more than {MAX_DEPTH} levels deep, more than LibCST's parser "
                "takes in reasonable time and memory",
                deepest,
            )
        try:
            compile(tree, "<loomlint>", "exec", dont_inherit=True)
        except SyntaxError as exc:
            return Verdict(
                compiles=False,
                refusal=Refusal(
                    "LML901",
                    f"syntax error: {exc.msg}; the file was not checked",
                    exc.lineno or 1,
                    exc.offset or 1,
                ),
                tree=tree,
            )
        except (RecursionError, MemoryError):
            return _too_deep("the file is nested too deeply to compile", None)
    return Verdict(compiles=True, tree=tree)


def python_version() -> str:
    return f"Python {sys.version_info.major}.{sys.version_info.minor}"


def _too_deep(message: str, line: int | None) -> Verdict:
    return Verdict(
        compiles=False, refusal=Refusal("LML903", f"{message}; it was not checked", line or 1)
    )


def _deeper_than(tree: ast.AST, limit: int) -> int | None:
    """The line of the first node found deeper than ``limit`` levels, if any (iterative:
    the tree may be deeper than Python's recursion limit).

    An expression on one line is not walked when its text is too short to hold more levels
    than are left (``_most_levels_below``): most of a file's nodes are in such expressions."""
    stack: list[tuple[ast.AST, int, int]] = [(tree, 1, 1)]
    while stack:
        node, depth, line = stack.pop()
        line = getattr(node, "lineno", line)  # operators and contexts have none
        if depth > limit:
            return line
        if isinstance(node, ast.expr) and depth + _most_levels_below(node) <= limit:
            continue
        stack.extend((child, depth + 1, line) for child in ast.iter_child_nodes(node))
    return None


def _most_levels_below(node: ast.expr) -> int:
    """How many levels an expression's subtree can have below it, judged from its text: each
    level of an expression takes at least one character of its own (an operator, a bracket, a
    dot, a name), with at most one level between that takes none (a context, ``arguments``, a
    ``comprehension``), so a one-line expression of n bytes has fewer than 2n + 2 levels
    below it. An expression over several lines is not judged (its columns say nothing)."""
    end_line, end_column = node.end_lineno, node.end_col_offset
    if end_line != node.lineno or end_column is None:
        return _UNJUDGED
    return 2 * (end_column - node.col_offset) + 4


_UNJUDGED = sys.maxsize // 2
