"""Small, pure questions about LibCST nodes, shared by the flow and sink passes."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

import libcst as cst

from loomlint.engine.tree import walk


def string_value(node: cst.BaseExpression) -> str | None:
    """The value of a plain string literal (no f-string, no bytes), else None."""
    if isinstance(node, cst.SimpleString):
        prefix = node.prefix.lower()
        if "b" in prefix or "f" in prefix:
            return None
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left = string_value(node.left)
        right = string_value(node.right)
        return left + right if left is not None and right is not None else None
    return None


def is_text_literal(node: cst.BaseExpression) -> bool:
    """A string literal or an f-string: certainly a ``str`` at run time."""
    if isinstance(node, cst.FormattedString):
        return "b" not in node.prefix.lower()
    if isinstance(node, cst.SimpleString):
        return "b" not in node.prefix.lower()
    if isinstance(node, cst.ConcatenatedString):
        return is_text_literal(node.left)
    return False


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        head = dotted_name(node.value)
        return f"{head}.{node.attr.value}" if head is not None else None
    return None


def root_name(node: cst.BaseExpression) -> str | None:
    """The name a chain of attributes and subscripts starts from: ``m`` in ``m.a["b"].c``."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node.value if isinstance(node, cst.Name) else None


def single_index(node: cst.Subscript) -> cst.BaseExpression | None:
    """The index of ``x[i]`` (one element, no slice), else None."""
    if len(node.slice) != 1:
        return None
    element = node.slice[0].slice
    return element.value if isinstance(element, cst.Index) else None


def positional_args(call: cst.Call) -> Iterator[tuple[int, cst.Arg]]:
    """Positional arguments (no keyword, no star), with their position."""
    position = 0
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            continue
        yield position, arg
        position += 1


def arg_position(call: cst.Call, target: cst.Arg) -> int | None:
    """The positional index of ``target`` in ``call``, or None for keyword or star args."""
    for position, arg in positional_args(call):
        if arg is target:
            return position
    return None


def suite_body(
    suite: cst.BaseSuite,
) -> Sequence[cst.BaseStatement | cst.BaseSmallStatement]:
    return suite.body


def all_params(params: cst.Parameters) -> list[cst.Param]:
    result = [*params.posonly_params, *params.params, *params.kwonly_params]
    if isinstance(params.star_arg, cst.Param):
        result.append(params.star_arg)
    if params.star_kwarg is not None:
        result.append(params.star_kwarg)
    return result


def is_self_field(target: cst.BaseExpression, fields: frozenset[str]) -> bool:
    """``self.content``, for ``content`` one of ``fields``."""
    return (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == "self"
        and target.attr.value in fields
    )


# The nodes that bind the names of their ``target`` (``target_names``).
BINDS_ITS_TARGET = (
    cst.AssignTarget,
    cst.AnnAssign,
    cst.AugAssign,
    cst.For,
    cst.CompFor,
    cst.NamedExpr,
    cst.Del,
)


def text_constants(module: cst.Module) -> frozenset[str]:
    """The names ``module`` binds once, at its top level, to a string literal (``PROMPT =
    \"\"\"...\"\"\"``, annotated or not), and binds nowhere else: not again, not in a
    function, a class, a loop, an import, a ``global`` or a pattern."""
    candidates: set[str] = set()
    for statement in module.body:
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and is_text_literal(small.value)
            ):
                candidates.add(small.targets[0].target.value)
            elif (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and small.value is not None
                and is_text_literal(small.value)
            ):
                candidates.add(small.target.value)
    if not candidates:
        return frozenset()
    counter = _BindingCounter(candidates)
    walk(module, counter.enter)
    return frozenset(name for name in candidates if counter.counts.get(name) == 1)


class _BindingCounter:
    """Counts the bindings of some names anywhere in a module."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.counts: dict[str, int] = {}

    def _bound(self, *names: str) -> None:
        for name in names:
            if name in self.names:
                self.counts[name] = self.counts.get(name, 0) + 1

    def enter(self, node: cst.CSTNode) -> bool:
        if isinstance(node, BINDS_ITS_TARGET):
            self._bound(*target_names(node.target))
        elif isinstance(node, cst.AsName):
            self._bound(*target_names(node.name))
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Param)):
            self._bound(node.name.value)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            self._bound(*(item.name.value for item in node.names))
        elif isinstance(node, cst.ImportAlias) and node.asname is None:
            self._bound((dotted_name(node.name) or "").split(".")[0])
        elif isinstance(node, (cst.MatchAs, cst.MatchStar)) and node.name is not None:
            self._bound(node.name.value)
        elif isinstance(node, cst.MatchMapping) and node.rest is not None:
            self._bound(node.rest.value)
        return True


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names an assignment's target binds (``a``, ``a, *b``, ``[a, b]``); none for an
    attribute or an item."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in target_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []
