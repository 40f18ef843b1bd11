"""Which active SPI a content value belongs to, so its advice is that SPI's own.

With several presets active (``loom`` and ``langchain``, say), "use .text" is right for a
LangChain message and wrong for an ``LlmMessage``, which has no ``.text``. A value belongs to
the first SPI one of whose own types (message, part, content alias) appears in its type or, for
a field read (``m.content``, ``m["content"]``, ``m.get("content")``), in its receiver's type.
The LibCST pass's fact collection and the mypy plugin both ask ``owner_of_expression``, with
mypy's types, so both give the same advice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mypy.nodes import CallExpr, Expression, IndexExpr, MemberExpr
from mypy.types import Instance, TupleType, Type, TypedDictType, UnionType, get_proper_type

from loomlint.catalog.spi import SpiModel

# The class names of an expression's type (``type_names`` of it, kept by whoever asks).
TypeNamesOf = Callable[[Expression], Sequence[str]]
# Types are walked only this far: the owner shows in the outer levels, and types can be huge.
_MAX_NAMES = 64


def owner_of_expression(node: Expression, names_of: TypeNamesOf, spi: SpiModel) -> str | None:
    """The SPI ``node``'s value belongs to; None when no SPI has a fix, or unknown."""
    if not spi.has_fixes:
        return None
    names = names_of(node)
    receiver = _receiver(node)
    if receiver is not None:
        names = (*names, *names_of(receiver))
    return spi.owner_of(names)


def type_names(typ: Type | None) -> list[str]:
    """The qualified names of the classes in ``typ`` (with their bases), outer levels first."""
    names: list[str] = []
    pending = [typ] if typ is not None else []
    while pending and len(names) < _MAX_NAMES:
        proper = get_proper_type(pending.pop(0))
        if isinstance(proper, Instance):
            names.extend(info.fullname for info in proper.type.mro)
            pending.extend(proper.args)
        elif isinstance(proper, TypedDictType):
            names.append(proper.fallback.type.fullname)
        elif isinstance(proper, (UnionType, TupleType)):
            pending.extend(proper.items)
    return names


def _receiver(node: Expression) -> Expression | None:
    if isinstance(node, MemberExpr):
        return node.expr
    if isinstance(node, IndexExpr):
        return node.base
    if isinstance(node, CallExpr) and isinstance(node.callee, MemberExpr):
        return node.callee.expr
    return None
