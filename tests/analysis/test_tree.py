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


def _engine_modules() -> list[cst.Module]:
    # Modules that hold most of Python's syntax between them (the whole engine costs ten
    # times as much under LibCST's visitor).
    folder = Path(tree.__file__).parent
    names = ("analyze.py", "constructors.py", "syntax.py", "compilecheck.py", "tree.py")
    return [cst.parse_module((folder / name).read_text(encoding="utf-8")) for name in names]


class _Recorder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.entered: list[int] = []
        self.left: list[int] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.entered.append(id(node))
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.left.append(id(original_node))


def test_a_walk_enters_and_leaves_the_nodes_libcsts_visitor_does_less_the_trivia() -> None:
    # LibCST's visitor rebuilds each node it passes; `walk` reads them: over engine modules
    # it enters and leaves the same nodes, trivia aside, each once, a parent before
    # its children and left after them.
    for module in _engine_modules():
        recorder = _Recorder()
        module.visit(recorder)
        meaningful = {id(n) for n in _all_nodes(module) if type(n) not in tree.TRIVIA_TYPES}
        events = _walked(module)
        entered = [id(node) for kind, node in events if kind == "enter"]
        left = [id(node) for kind, node in events if kind == "leave"]
        assert sorted(entered) == sorted(i for i in recorder.entered if i in meaningful)
        assert sorted(left) == sorted(i for i in recorder.left if i in meaningful)
        assert len(set(entered)) == len(entered) == len(left)
        open_nodes: list[cst.CSTNode] = []
        for kind, node in events:
            if kind == "enter":
                assert not open_nodes or node in list(tree.child_nodes(open_nodes[-1]))
                open_nodes.append(node)
            else:
                assert open_nodes.pop() is node
        assert not open_nodes


def _walked(module: cst.Module) -> list[tuple[str, cst.CSTNode]]:
    events: list[tuple[str, cst.CSTNode]] = []

    def enter(node: cst.CSTNode) -> bool:
        events.append(("enter", node))
        return True

    tree.walk(module, enter, lambda node: events.append(("leave", node)))
    return events


def _all_nodes(module: cst.Module) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
    return found


def test_a_walk_goes_below_a_node_only_where_enter_says_so() -> None:
    module = cst.parse_module("def f():\n    x = 1\n    def g():\n        y = 2\n    z = 3\n")
    names: list[str] = []
    left: list[str] = []

    def enter(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name):
            names.append(node.value)
        return not (isinstance(node, cst.FunctionDef) and node.name.value == "g")

    def leave(node: cst.CSTNode) -> None:
        if isinstance(node, cst.FunctionDef):
            left.append(node.name.value)

    tree.walk(module, enter, leave)
    assert names == ["f", "x", "z"]
    assert left == ["g", "f"]


def test_a_walk_takes_any_depth_of_nesting() -> None:
    # Deeper than Python's recursion limit: the walk keeps its own stack.
    node: cst.BaseExpression = cst.Name("x")
    for _ in range(5000):
        node = cst.UnaryOperation(operator=cst.Minus(), expression=node)
    entered: list[cst.CSTNode] = []
    tree.walk(node, lambda n: entered.append(n) is None)
    assert len(entered) == 5001
    assert isinstance(entered[-1], cst.Name)
