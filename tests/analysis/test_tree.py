"""The node kinds ``loomlint.engine.tree`` reads from LibCST's class hierarchy (by MRO, which
costs a fraction of ``issubclass`` over LibCST's ABCs at import) are exactly what
``issubclass`` says."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from loomlint.engine import tree

NODE_TYPES = [
    value
    for name in dir(cst)
    for value in [getattr(cst, name)]
    if isinstance(value, type) and issubclass(value, cst.CSTNode)
]


def _by_issubclass(*bases: type) -> frozenset[type[cst.CSTNode]]:
    return frozenset(t for t in NODE_TYPES if issubclass(t, bases))


def test_each_kind_is_what_issubclass_says() -> None:
    assert len(NODE_TYPES) > 150
    assert _by_issubclass(*tree._TRIVIA_BASES) == tree.TRIVIA_TYPES
    assert _by_issubclass(cst.BaseExpression) == tree.EXPRESSION_TYPES
    assert _by_issubclass(cst.BaseStatement) == tree.STATEMENT_TYPES
    assert tree.node_types_under(cst.BaseSuite) == _by_issubclass(cst.BaseSuite)


def test_the_kinds_hold_what_their_names_say() -> None:
    assert {cst.Comma, cst.Comment, cst.Add, cst.SimpleWhitespace} <= tree.TRIVIA_TYPES
    assert cst.Name not in tree.TRIVIA_TYPES
    assert {cst.Name, cst.Call, cst.FormattedString} <= tree.EXPRESSION_TYPES
    assert {cst.If, cst.SimpleStatementLine} <= tree.STATEMENT_TYPES
    assert cst.Expr not in tree.STATEMENT_TYPES


def test_the_children_walked_are_libcsts_children_less_the_trivia() -> None:
    # Every node of the engine's own source: the fields `child_nodes` reads (chosen from their
    # declared types) give exactly the children LibCST gives that are not trivia (in field
    # order, where LibCST's are in source order: `f(a=1)`'s argument gives `1` before `a`).
    walked = 0
    for path in sorted(Path(tree.__file__).parent.glob("*.py")):
        stack: list[cst.CSTNode] = [cst.parse_module(path.read_text(encoding="utf-8"))]
        while stack:
            node = stack.pop()
            expected = [c for c in node.children if type(c) not in tree.TRIVIA_TYPES]
            walked_children = sorted(map(id, tree.child_nodes(node)))
            assert walked_children == sorted(map(id, expected)), (path.name, type(node).__name__)
            stack.extend(expected)
            walked += 1
    assert walked > 10_000
