"""Uses that mypy checks as method calls on the value: methods, iteration, indexing, ``in``,
``%`` formatting.

mypy checks ``c.count(x)`` as ``str.count`` and ``list.count``, ``for x in c``,
``[... for x in c]`` and unpacking as ``c.__iter__()``, ``c[i]`` as ``c.__getitem__(i)``,
``x in c`` as ``c.__contains__(x)`` and ``fmt % c`` (with a format that is not a literal) as
``fmt.__mod__(c)``, one union member at a time; the method hook's context is the call, the
expression being iterated, the subscript, the comparison or the ``%`` operation.

A method only some members of the union have (``c.strip()``) is mypy's own ``union-attr``
error; the plugin reports the methods every member has, which mypy accepts silently.

A literal format (``"%s" % c``) never reaches a hook: mypy checks it with its own string
formatting checker. ``loomlint check`` (the LibCST pass) reports it.
"""

from __future__ import annotations

from mypy.checker import TypeChecker
from mypy.nodes import (
    CallExpr,
    ComparisonExpr,
    DictExpr,
    Expression,
    IndexExpr,
    MemberExpr,
    OpExpr,
    SliceExpr,
    TupleExpr,
)
from mypy.subtypes import find_member, is_subtype
from mypy.types import Instance, UnionType, get_proper_type

from loomlint.mypy_checks import calls
from loomlint.mypy_checks.config import PluginConfig
from loomlint.mypy_checks.findings import coercion_message, emit, use_message
from loomlint.mypy_checks.values import COERCIBLE, union_value_of, value_of


def check_method(checker: TypeChecker, call: CallExpr, config: PluginConfig) -> None:
    """``c.count(x)``: a method every member of the union has, called with arguments every
    member accepts; otherwise mypy reports the call itself (union-attr, arg-type)."""
    method = call.callee
    if not isinstance(method, MemberExpr):
        return
    value = union_value_of(checker, method.expr, config)
    if value is None:
        return
    members = get_proper_type(value.type)
    for item in members.items if isinstance(members, UnionType) else [members]:
        member = get_proper_type(item)
        if not isinstance(member, Instance):
            return
        bound = find_member(method.name, member, member)
        if bound is None or not calls.accepts_arguments(checker, call, bound):
            return
    description = f"is used as one branch by .{method.name}()"
    emit(checker, config, method.expr, "use", use_message(value, description, config.spi))


def check_membership(
    checker: TypeChecker, comparison: ComparisonExpr, config: PluginConfig
) -> None:
    """``x in c``: a substring search on a str, an equality search among parts on a list."""
    for index, operator in enumerate(comparison.operators):
        if operator not in ("in", "not in"):
            continue
        container = comparison.operands[index + 1]
        value = union_value_of(checker, container, config)
        if value is None:
            continue
        description = f"is searched with `{operator}`"
        message = use_message(value, description, config.spi, accessor=False)
        emit(checker, config, container, "use", message)


def check_iteration(checker: TypeChecker, iterable: Expression, config: PluginConfig) -> None:
    value = union_value_of(checker, iterable, config)
    if value is None:
        return
    description = "is iterated (a str yields characters, a list yields parts)"
    message = use_message(value, description, config.spi, accessor=False)
    emit(checker, config, iterable, "use", message)


def check_indexing(checker: TypeChecker, subscript: IndexExpr, config: PluginConfig) -> None:
    value = union_value_of(checker, subscript.base, config)
    if value is None:
        return
    if not _valid_sequence_index(checker, subscript.index):
        return  # mypy reports an index neither branch accepts
    sliced = isinstance(subscript.index, SliceExpr)
    description = "is sliced" if sliced else "is indexed (a character of a str, a part of a list)"
    message = use_message(value, description, config.spi, accessor=False)
    emit(checker, config, subscript.base, "use", message)


def check_percent_format(checker: TypeChecker, operation: OpExpr, config: PluginConfig) -> None:
    right = operation.right
    if isinstance(right, TupleExpr):
        operands = list(right.items)
    elif isinstance(right, DictExpr):
        operands = [item for _, item in right.items]
    else:
        operands = [right]
    for operand in operands:
        value = value_of(checker, operand, config)
        if value is None or value.kind not in COERCIBLE:
            continue
        message = coercion_message(value, "`%` formatting", config.spi)
        emit(checker, config, operand, "coercion", message)


def _valid_sequence_index(checker: TypeChecker, index: Expression) -> bool:
    if isinstance(index, SliceExpr):
        return True
    typ = checker.lookup_type_or_none(index)
    if typ is None:
        return True
    accepted = UnionType.make_union(
        [checker.named_type("typing.SupportsIndex"), checker.named_type("builtins.slice")]
    )
    return is_subtype(typ, accepted)
