"""What mypy knows about one expression, and how messages name it.

Types come from the checker's own type map, so a value is judged by its *narrowed* type at that
point (mypy's narrowing decides: ``isinstance``, ``type() is``, ``TypeIs``, ``==``), and what is
content is decided by ``content_types.classify`` from the active SPI model, exactly as the
LibCST pass's type oracle decides it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from mypy.checker import TypeChecker
from mypy.nodes import CallExpr, Expression, IndexExpr, MemberExpr, NameExpr, StrExpr
from mypy.types import (
    Instance,
    LiteralType,
    NoneType,
    ProperType,
    TupleType,
    Type,
    TypedDictType,
    UnionType,
    get_proper_type,
)

from loomlint.analysis import content_types
from loomlint.analysis.ownership import owner_of_expression
from loomlint.analysis.typefacts import ContentKind
from loomlint.mypy_checks.config import PluginConfig
from loomlint.spi import SpiModel

# Kinds a coercion is reported for (the union, a narrowed parts list, a single part) and the
# kind a use is reported for (only the union: a narrowed value is used as what it is).
COERCIBLE: Final = frozenset({ContentKind.CONTENT, ContentKind.PARTS, ContentKind.PART})
# Shapes a value read from a content field is classified by (TEXT is never a finding).
_SHAPED: Final = frozenset({ContentKind.CONTENT, ContentKind.PARTS})
_MAX_TYPE_NAMES = 3
_MAX_SOURCE = 40


@dataclass(frozen=True, slots=True)
class Value:
    node: Expression
    type: Type
    kind: ContentKind
    # With several SPIs active, the one the value belongs to (``analysis.ownership``).
    owner: str | None = None


def value_of(
    checker: TypeChecker, node: Expression, config: PluginConfig, fallback: Type | None = None
) -> Value | None:
    """``node``'s type as the checker recorded it (``fallback`` if it did not), classified.

    The recorded type is preferred to a hook's argument types: during union math mypy hands
    hooks one member of a union argument at a time. A value read from a content field (one
    whose receiver declares it as content, ``content_types.is_content_origin_type``) is
    classified by its shape, whatever its items, as in the LibCST pass: LangChain's
    ``str | list[str | dict]`` is the union, and narrowed to its list, a parts list.
    """
    typ = checker.lookup_type_or_none(node) or fallback
    if typ is None:
        return None
    kind = config.kinds.kind(typ)
    if kind is ContentKind.OTHER:
        field = _content_field_read(node, config.spi)
        if field is not None:
            shape = content_types.classify_shape(typ)
            if shape in _SHAPED and _declares_content(checker, field, config.spi):
                kind = shape
    if kind is ContentKind.OTHER:
        return Value(node, typ, kind)
    lookup = checker.lookup_type_or_none
    return Value(node, typ, kind, owner_of_expression(node, lookup, config.spi))


def union_value_of(
    checker: TypeChecker, node: Expression, config: PluginConfig, fallback: Type | None = None
) -> Value | None:
    """``node``'s value when it is the content union, else None (cheaply, for most values:
    only a union can be)."""
    typ = checker.lookup_type_or_none(node) or fallback
    if typ is None or not may_be_content(typ):
        return None
    value = value_of(checker, node, config, typ)
    return value if value is not None and value.kind is ContentKind.CONTENT else None


# A read of a field: (receiver, field name, whether it is a mapping key).
_FieldRead = tuple[Expression, str, bool]


def _content_field_read(node: Expression, spi: SpiModel) -> _FieldRead | None:
    """``m.content``, ``m["content"]`` or ``m.get("content")``, by syntax alone."""
    read: _FieldRead | None = None
    if isinstance(node, MemberExpr):
        read = (node.expr, node.name, False)
    elif isinstance(node, IndexExpr) and isinstance(node.index, StrExpr):
        read = (node.base, node.index.value, True)
    elif (
        isinstance(node, CallExpr)
        and isinstance(node.callee, MemberExpr)
        and node.callee.name == "get"
        and node.args
        and isinstance(node.args[0], StrExpr)
    ):
        read = (node.callee.expr, node.args[0].value, True)
    return read if read is not None and read[1] in spi.content_fields else None


def _declares_content(checker: TypeChecker, read: _FieldRead, spi: SpiModel) -> bool:
    """Whether the receiver declares the field as content (the LibCST pass's origin rule)."""
    receiver, field, item = read
    declared = content_types.declared_field_type(
        checker.lookup_type_or_none(receiver), field, item=item
    )
    return content_types.is_content_origin_type(declared, spi)


def may_be_content(typ: Type) -> bool:
    """A cheap pre-check: only a union can be the content union (``str | list[...]``)."""
    return isinstance(get_proper_type(typ), UnionType)


def subject(value: Value) -> str:
    """How a message names the value: ``Message content "m.content" (str | list[...])``."""
    noun = {
        ContentKind.CONTENT: "Message content",
        ContentKind.PARTS: "Parts list",
        ContentKind.PART: "Content part",
    }.get(value.kind, "Value")
    return f'{noun} "{source_text(value.node)}" ({brief_type(value.type)})'


def source_text(node: Expression) -> str:
    """A short rendering of ``node`` (mypy's tree keeps no source text)."""
    text = _render(node)
    return text if len(text) <= _MAX_SOURCE else text[: _MAX_SOURCE - 3] + "..."


def _render(node: Expression) -> str:
    if isinstance(node, NameExpr):
        return node.name
    if isinstance(node, MemberExpr):
        return f"{_render(node.expr)}.{node.name}"
    if isinstance(node, IndexExpr):
        key = node.index
        inner = f"'{key.value}'" if isinstance(key, StrExpr) else "..."
        return f"{_render(node.base)}[{inner}]"
    if isinstance(node, CallExpr):
        callee = _render(node.callee)
        if isinstance(node.callee, MemberExpr) and node.callee.name == "get" and node.args:
            key = node.args[0]
            if isinstance(key, StrExpr):
                return f"{callee}('{key.value}')"
        return f"{callee}(...)"
    return "..."


def brief_type(typ: Type) -> str:
    """``str | list[...]``: member names without their arguments, at most a few."""
    names: list[str] = []
    for member in _members(get_proper_type(typ)):
        name = _type_name(member)
        if name not in names:
            names.append(name)
    if len(names) > _MAX_TYPE_NAMES:
        names = [*names[:_MAX_TYPE_NAMES], "..."]
    return " | ".join(names)


def _members(proper: ProperType) -> list[ProperType]:
    if isinstance(proper, UnionType):
        found: list[ProperType] = []
        for item in proper.items:
            found.extend(_members(get_proper_type(item)))
        return found
    return [proper]


def _type_name(proper: ProperType) -> str:
    if isinstance(proper, Instance):
        return f"{proper.type.name}[...]" if proper.args else proper.type.name
    if isinstance(proper, LiteralType):
        return proper.fallback.type.name
    if isinstance(proper, NoneType):
        return "None"
    if isinstance(proper, TupleType):
        return "tuple[...]"
    if isinstance(proper, TypedDictType):
        return proper.fallback.type.name
    return str(proper)
