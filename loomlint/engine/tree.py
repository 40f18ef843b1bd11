"""Fast structural access to LibCST trees: the children that carry meaning, and node kinds.

LibCST's visitors call hooks for every field of every node, whitespace and punctuation
included, and its base classes are ABCs (slow ``isinstance``). The analysis only needs the
syntax that carries meaning, so it walks dataclass fields directly and skips trivia by exact
type: several times faster on large files.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterator

import libcst as cst

_TRIVIA_BASES: tuple[type[cst.CSTNode], ...] = (
    cst.BaseParenthesizableWhitespace,
    cst.EmptyLine,
    cst.TrailingWhitespace,
    cst.Comment,
    cst.Newline,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseUnaryOp,
    cst.BaseAugOp,
    cst.Asynchronous,
    cst.ImportStar,
)


def _inherits(node_type: type, bases: tuple[type, ...]) -> bool:
    """Whether ``node_type`` is one of ``bases`` or inherits from one. Read from its MRO, not
    with ``issubclass``: LibCST's bases are ABCs, whose first check of each pair of classes
    fills ABC caches (at import, 58 ms for the kinds below, over 200 node classes). LibCST
    registers no virtual subclasses, so both say the same (tests/analysis/test_tree.py)."""
    return any(base in node_type.__mro__ for base in bases)


def _all_node_types() -> list[type[cst.CSTNode]]:
    found: list[type[cst.CSTNode]] = []
    for name in dir(cst):
        value = getattr(cst, name)
        if isinstance(value, type) and _inherits(value, (cst.CSTNode,)):
            found.append(value)
    return found


_NODE_TYPES = _all_node_types()


def node_types_under(*bases: type) -> frozenset[type[cst.CSTNode]]:
    """Every LibCST node class that is one of ``bases`` or a subclass of one."""
    return frozenset(t for t in _NODE_TYPES if _inherits(t, bases))


TRIVIA_TYPES: frozenset[type[cst.CSTNode]] = node_types_under(*_TRIVIA_BASES)
EXPRESSION_TYPES: frozenset[type[cst.CSTNode]] = node_types_under(cst.BaseExpression)
STATEMENT_TYPES: frozenset[type[cst.CSTNode]] = node_types_under(cst.BaseStatement)
_FIELDS: dict[type[cst.CSTNode], tuple[str, ...]] = {}


def _fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields of a node type that can hold meaningful syntax (not whitespace, tokens,
    operators or plain values), decided once per type from the declared field types."""
    names = _FIELDS.get(node_type)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(node_type) if _carries_syntax(f.type))
        _FIELDS[node_type] = names
    return names


def _carries_syntax(annotation: object) -> bool:
    if isinstance(annotation, typing.ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        # A forward reference by name ("MatchCase"): resolve it among LibCST's node classes,
        # and keep the field when in doubt.
        resolved = getattr(cst, annotation.strip("'\""), None)
        return resolved is None or _carries_syntax(resolved)
    if isinstance(annotation, type):
        return _inherits(annotation, (cst.CSTNode,)) and not _inherits(annotation, _TRIVIA_BASES)
    return any(_carries_syntax(argument) for argument in typing.get_args(annotation))


def child_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The meaningful children of ``node``, in field order (whitespace and tokens skipped)."""
    for name in _fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, (tuple, list)):
            for item in value:  # pyright: ignore[reportUnknownVariableType]
                if isinstance(item, cst.CSTNode) and type(item) not in TRIVIA_TYPES:
                    yield item
        elif isinstance(value, cst.CSTNode) and type(value) not in TRIVIA_TYPES:
            yield value


def walk(
    node: cst.CSTNode,
    enter: Callable[[cst.CSTNode], bool],
    leave: Callable[[cst.CSTNode], None] | None = None,
) -> None:
    """Calls ``enter`` on ``node`` and on each meaningful node below it, a parent before its
    children and children in field order, going below a node only where ``enter`` returns
    True, and ``leave`` on each node ``enter`` was called on, once its children are done (as
    LibCST's ``on_visit`` and ``on_leave``). LibCST's own ``visit`` builds every node it passes
    again, validation included: this walk only reads, several times cheaper. Iterative, so
    that no depth of nesting exhausts Python's stack."""
    if not enter(node):
        if leave is not None:
            leave(node)
        return
    stack: list[tuple[cst.CSTNode, Iterator[cst.CSTNode]]] = [(node, child_nodes(node))]
    while stack:
        parent, children = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if leave is not None:
                leave(parent)
        elif enter(child):
            stack.append((child, child_nodes(child)))
        elif leave is not None:
            leave(child)


def is_expression(node: cst.CSTNode) -> bool:
    return type(node) in EXPRESSION_TYPES


def names_no_variable(parent: cst.CSTNode, child: cst.CSTNode) -> bool:
    """Whether ``child`` of ``parent`` is a name that reads no variable: the attribute's name in
    ``x.part`` or the keyword in ``f(part=...)``. LibCST makes both ``Name`` nodes."""
    if isinstance(parent, cst.Attribute):
        return child is parent.attr
    return isinstance(parent, cst.Arg) and child is parent.keyword


def is_statement(node: cst.CSTNode) -> bool:
    return type(node) in STATEMENT_TYPES
