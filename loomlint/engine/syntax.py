"""Small, pure questions about LibCST nodes, shared by the flow and sink passes."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

import libcst as cst


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
