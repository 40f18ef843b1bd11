"""Is this mypy type part-message content? Shared by the type oracle and the mypy plugin.

Every question about a *type* is answered here, from the active ``SpiModel``:

- ``classify`` — what a (possibly narrowed) type says about a value: the content union, a
  narrowed string, a narrowed list of parts, a single part, or something else;
- ``declared_field_type`` — the declared type of a field (attribute, property or TypedDict key)
  of a receiver type, which decides whether ``receiver.content`` is an origin;
- ``is_content_field_type`` — whether that declared type is a ``str | collection`` union;
- ``accepts_content`` — whether a declared parameter, field or return type is union-preserving.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from mypy.maptype import map_instance_to_supertype
from mypy.nodes import Decorator, FuncBase, OverloadedFuncDef, TypeInfo, Var
from mypy.subtypes import is_subtype
from mypy.types import (
    AnyType,
    CallableType,
    Instance,
    LiteralType,
    NoneType,
    Overloaded,
    ProperType,
    TupleType,
    Type,
    TypedDictType,
    TypeType,
    TypeVarLikeType,
    TypeVarType,
    UninhabitedType,
    UnionType,
    get_proper_type,
)

from loomlint.catalog.spi import SpiModel
from loomlint.engine.typefacts import ContentKind

_STRING_TYPES = frozenset({"builtins.str"})
# Iterables that are never "a collection of parts": text, bytes and mappings.
_NOT_PART_COLLECTIONS = frozenset(
    {"builtins.str", "builtins.bytes", "builtins.bytearray", "builtins.memoryview"}
)
_ITERABLE = "typing.Iterable"
_MAPPING = "typing.Mapping"


def classify(typ: Type | None, spi: SpiModel) -> ContentKind:
    """Classify a value's type. Content needs a collection member whose items are SPI parts."""
    proper = get_proper_type(typ)
    if proper is None or isinstance(proper, AnyType):
        return ContentKind.ANY
    members = _union_members(proper)
    if any(isinstance(member, AnyType) for member in members):
        # ``Any | str`` (``getattr(m, "content", "")``): nothing is known about the value.
        return ContentKind.ANY
    has_text = part_collections = parts = False
    content_members = others = 0
    for member in members:
        if _is_text(member):
            has_text = True
            content_members += 1
        elif _is_part_collection(member, spi):
            part_collections = True
            content_members += 1
        elif _is_part(member, spi):
            parts = True
        elif not isinstance(member, NoneType):
            others += 1
    if has_text and part_collections and not _mostly_other(content_members, others):
        return ContentKind.CONTENT
    if others or (has_text and parts):
        return ContentKind.OTHER
    if part_collections:
        return ContentKind.PARTS
    if parts:
        return ContentKind.PART
    if has_text:
        return ContentKind.TEXT
    return ContentKind.OTHER


def _mostly_other(content_members: int, other_members: int) -> bool:
    """The majority rule: a union holding text and a collection of parts is message content
    unless its other members (``None`` aside) outnumber those content members.

    ``str | list[Part] | None`` and ``str | list[Part] | bytes`` are content; a tool result
    typed ``str | int | float | bool | list[Part]`` is a value of many kinds that may happen
    to be parts, and is judged as any other value (not reported as content).
    """
    return other_members > content_members


def classify_shape(typ: Type | None) -> ContentKind:
    """Classify by shape alone, whatever the items: for values known to come from content.

    ``str | list[str | dict]`` read from a ``content`` field is the content union even though
    its items are no SPI's part types; narrowed, it is TEXT or PARTS.
    """
    proper = get_proper_type(typ)
    if proper is None or isinstance(proper, AnyType):
        return ContentKind.ANY
    members = [m for m in _union_members(proper) if not isinstance(m, NoneType)]
    text = [m for m in members if _is_text(m)]
    collections = [m for m in members if _is_collection(m)]
    if len(text) + len(collections) != len(members) or not members:
        return ContentKind.OTHER
    if text and collections:
        return ContentKind.CONTENT
    return ContentKind.TEXT if text else ContentKind.PARTS


# How deep a type's arguments are followed for its classification key (``dict[str, list[X]]``
# is three); a deeper type is keyed by its own object.
_KEY_DEPTH = 4


def classification_key(typ: Type) -> object:
    """What ``classify`` and ``classify_shape`` read of a type, as a key: two types with equal
    keys are classified alike.

    mypy gives most expressions a type object of their own (every call's result, every
    attribute read, every reference to a function), most of them a few shapes: ``list[str]``,
    a callable. Keyed by shape, each is classified once per file. The key holds the ids of
    the classes involved, which the build keeps alive (so no id is reused while a file's
    facts are taken); a type too deep to key by shape is keyed by its own object."""
    key = _shape_key(get_proper_type(typ), _KEY_DEPTH)
    return id(typ) if key is None else key


def _shape_key(proper: ProperType | None, depth: int) -> object | None:
    if isinstance(proper, Instance):
        if not proper.args:
            return id(proper.type)
        args = _shape_keys(proper.args, depth)
        return None if args is None else (id(proper.type), *args)
    if isinstance(proper, UnionType):
        items = _shape_keys(proper.items, depth)
        return None if items is None else ("|", *items)
    if isinstance(proper, AnyType):
        return "any"
    if isinstance(proper, NoneType):
        return "none"
    if isinstance(proper, UninhabitedType):
        return "never"
    if isinstance(proper, LiteralType):
        return ("literal", id(proper.fallback.type))
    if isinstance(proper, TypedDictType):
        return ("typeddict", id(proper.fallback.type))
    if isinstance(proper, TupleType):
        items = _shape_keys(proper.items, depth)
        return None if items is None else ("tuple", id(proper.partial_fallback.type), *items)
    if isinstance(proper, (CallableType, Overloaded, TypeType, TypeVarLikeType)):
        # No class to read parts or text from: always "another value" (``_type_info``).
        return "other"
    return None


def _shape_keys(types: Sequence[Type], depth: int) -> tuple[object, ...] | None:
    """The keys of a type's arguments or members, one level down; None when one has none."""
    if depth == 0:
        return None
    keys: list[object] = []
    for typ in types:
        key = _shape_key(get_proper_type(typ), depth - 1)
        if key is None:
            return None
        keys.append(key)
    return tuple(keys)


def may_hold_dict_parts(typ: Type | None) -> bool:
    """Whether a collection's items could be parts of an SPI without part classes: a list whose
    items include something other than scalars (``list[dict]``, ``list[str | dict]``).

    The type oracle keeps its fact for such a local even though no declared part class says it
    is parts: the flow may know it came from content (``c = m.content`` narrowed to the list),
    and a missing fact would read as "mypy says this is not content". ``list[str]`` and other
    lists of scalars are never parts, so their facts are not kept.
    """
    proper = get_proper_type(typ)
    if proper is None:
        return False
    for member in _union_members(proper):
        items = _collection_items(member)
        if items and any(not _is_scalar(item) for item in items):
            return True
    return False


def is_content_field_type(typ: Type | None, spi: SpiModel) -> bool:
    """A content field's declared type: ``str`` together with any collection, or SPI content.

    A field read is an origin on the field's declared shape alone (``str | list[dict]`` of a
    field named ``content`` is content whatever its items), unlike a bare value, which needs
    SPI part items to count (``str | list[str]`` parameters are everywhere).
    """
    proper = get_proper_type(typ)
    if proper is None:
        return False
    members = _union_members(proper)
    return any(_is_text(m) for m in members) and any(_is_collection(m) for m in members)


def is_content_origin_type(typ: Type | None, spi: SpiModel) -> bool:
    """Whether a read of a content field declared ``typ`` is an origin.

    The content union (``is_content_field_type``), or a collection of the SPI's part types
    only: Anthropic's response ``Message.content`` is ``list[ContentBlock]``, never a string,
    so only turning it into a string is a finding (a parts list is never used as one branch).
    """
    if is_content_field_type(typ, spi):
        return True
    return classify(typ, spi) is ContentKind.PARTS


def is_content_cast_target(target: Type | None, spi: SpiModel) -> bool:
    """Whether ``cast(target, x)`` keeps content whole: the target's type *is* a content union
    (``cast(Content, x)``, ``cast("str | list[str | dict]", x)``), whatever it is spelt as.

    Such a cast is not LML004: it narrows nothing. The LibCST pass (through the oracle's facts)
    and the mypy plugin both judge casts here.
    """
    return classify(target, spi) is ContentKind.CONTENT or is_content_field_type(target, spi)


def is_json_content(typ: Type | None) -> bool | None:
    """Whether a content value, a parts list or a part is plain JSON by its type: text, and
    parts that are mappings (``dict``, a TypedDict), so ``json.dumps`` serialises it.

    False where a part is a class instance (the reference SPI's dataclass parts): there
    ``json.dumps`` raises TypeError. None where the type says nothing (``Any``): the active
    presets' ``json-parts`` decides.
    """
    proper = get_proper_type(typ)
    if proper is None or isinstance(proper, AnyType):
        return None
    for member in _union_members(proper):
        items = _collection_items(member)
        for item in items if items is not None else [member]:
            if isinstance(item, AnyType) or _is_scalar(item) or _is_mapping(item):
                continue
            return False
    return True


def _is_mapping(proper: ProperType) -> bool:
    if isinstance(proper, TypedDictType):
        return True
    return isinstance(proper, Instance) and any(
        base.fullname == _MAPPING for base in proper.type.mro
    )


def declared_field_type(receiver: Type | None, field: str, *, item: bool = False) -> Type | None:
    """The declared type of ``receiver.field`` (attribute, property), or with ``item`` of the
    TypedDict key ``receiver[field]``.

    For a union receiver, the union of what its members declare (mypy reports the members
    that lack the field on its own): ``SystemMessage | UserMessage`` whose ``content`` is
    ``str`` in one and the content union in the other holds content. A member that declares
    ``Any`` says nothing of the others' (a tool return part beside a user prompt part).
    """
    proper = get_proper_type(receiver)
    if isinstance(proper, UnionType):
        declared = [
            found
            for member in proper.items
            if (found := declared_field_type(member, field, item=item)) is not None
        ]
        typed = [t for t in declared if not isinstance(get_proper_type(t), AnyType)]
        declared = typed or declared
        if len(declared) > 1:
            # Not simplified: `str` would vanish into another member's `Sequence[str | ...]`.
            return UnionType.make_union(declared)
        return declared[0] if declared else None
    if isinstance(proper, TypeVarType):
        # self in a method, or a T bound to a message class: its bound declares the field.
        return declared_field_type(proper.upper_bound, field, item=item)
    if item:
        return proper.items.get(field) if isinstance(proper, TypedDictType) else None
    if isinstance(proper, TypedDictType):
        return None
    if isinstance(proper, TupleType):
        proper = proper.partial_fallback
    if isinstance(proper, LiteralType):
        proper = proper.fallback
    if isinstance(proper, TypeType) and isinstance(proper.item, Instance):
        proper = proper.item
    if isinstance(proper, Instance):
        return _instance_member_type(proper, field)
    return None


def _instance_member_type(instance: Instance, field: str) -> Type | None:
    for base in instance.type.mro:
        symbol = base.names.get(field)
        if symbol is None or symbol.node is None:
            continue
        node = symbol.node
        declared: Type | None = None
        if isinstance(node, Var):
            declared = node.type
        elif isinstance(node, Decorator):
            declared = _getter_return_type(node.func.type)
        elif isinstance(node, OverloadedFuncDef) and node.items:
            first = node.items[0]
            getter = first.func if isinstance(first, Decorator) else first
            declared = _getter_return_type(getter.type)
        elif isinstance(node, FuncBase):
            declared = _getter_return_type(node.type) if node.is_property else None
        if declared is None:
            return None
        if base is not instance.type and base.type_vars:
            # Generic base: expand the declared type in terms of the receiver's arguments.
            from mypy.expandtype import expand_type_by_instance

            declared = expand_type_by_instance(declared, map_instance_to_supertype(instance, base))
        elif base is instance.type and instance.args:
            from mypy.expandtype import expand_type_by_instance

            declared = expand_type_by_instance(declared, instance)
        return declared
    return None


def _getter_return_type(typ: Type | None) -> Type | None:
    proper = get_proper_type(typ)
    if isinstance(proper, CallableType):
        return proper.ret_type
    return None


def accepts_content(formal: Type | None, value: Type | None) -> bool:
    """Whether a declared parameter, field or return type preserves the content union.

    It must accept each of the value's branches (``takes_each_branch``) and say something
    about it: ``object``, ``Any`` and an unannotated position accept everything and preserve
    nothing.
    """
    proper_formal = get_proper_type(formal)
    if proper_formal is None or value is None:
        return False
    if isinstance(proper_formal, TypeVarLikeType):
        # A generic position hands the value back with its own type (identity, list.append
        # of an un-specialised list): the union survives.
        return True
    formal_members = _union_members(proper_formal)
    for member in formal_members:
        if isinstance(member, AnyType):
            return False
        if isinstance(member, Instance) and member.type.fullname == "builtins.object":
            return False
    if formal is not None and is_subtype(value, formal):
        return True
    return takes_each_branch(formal_members, value)


def takes_each_branch(formal_members: Sequence[ProperType], value: Type) -> bool:
    """Whether a declared type has a member for each branch of a content value, though it
    is no supertype of the value: ``str | list[TextBlock]`` receiving ``str | list[str |
    dict]`` (an SDK's own content union, given another's). The text goes to a member that
    takes a string, the list to a collection member that takes no string; whether the parts
    suit that collection's items is a type error mypy reports, not one branch used as the
    whole. A collection that takes a string too (``Iterable[str]``) gets the text as its
    characters: no member for the text branch."""
    members = _union_members(get_proper_type(value))
    texts = [m for m in members if _is_text(m)]
    if not texts or len(texts) == len(members):
        return False
    text = texts[0]
    for member in members:
        if any(is_subtype(member, formal) for formal in formal_members):
            continue
        if not isinstance(member, Instance) or _collection_items(member) is None:
            return False  # no list branch: text, a mapping, bytes, a tuple type
        if not any(
            isinstance(formal, Instance)
            and member.type.has_base(formal.type.fullname)
            and formal.type.has_base(_ITERABLE)
            and not is_subtype(text, formal)
            for formal in formal_members
        ):
            return False
    return True


def erases_content(formal: Type | None) -> bool:
    """Whether a declared parameter, field or return type keeps nothing of a content value's
    type: ``Any``, ``object``, unannotated (or a union with one of them). Content there is not
    used as one branch yet; what happens next decides (the callee's body, where it can be
    followed)."""
    proper = get_proper_type(formal)
    if proper is None:
        return True
    return any(
        isinstance(member, AnyType)
        or (isinstance(member, Instance) and member.type.fullname == "builtins.object")
        for member in _union_members(proper)
    )


# Modules whose classes a string may be an instance of: its own bases (``Sequence``) and
# protocols it satisfies (``Hashable``, ``Sized``).
_ABSTRACT_MODULES = ("typing.", "typing_extensions.", "collections.abc.", "abc.", "numbers.")


def may_be_text(typ: Type | None) -> bool | None:
    """Whether a value of this type may be a ``str``: a member of it is ``str`` or a subclass, a
    literal string, ``object``, a protocol or an abstract class of ``typing`` or
    ``collections.abc`` (``Sequence``), a type variable bound so. None when the type says
    nothing (unknown, ``Any``). A part class, a ``dict``, a ``TypedDict``, a tuple, ``None``, a
    number: no."""
    proper = get_proper_type(typ)
    if proper is None:
        return None
    answer = False
    for member in _union_members(proper):
        if isinstance(member, AnyType):
            return None
        if isinstance(member, TypeVarType):
            bound = may_be_text(member.upper_bound)
            if bound is None:
                return None
            answer = answer or bound
        elif isinstance(member, LiteralType):
            answer = answer or member.fallback.type.has_base("builtins.str")
        elif isinstance(member, Instance):
            instances = class_may_be_text(member.type)
            if instances is None:
                return None
            answer = answer or instances
        elif not isinstance(
            member, (NoneType, TupleType, TypedDictType, CallableType, Overloaded, TypeType)
        ):
            return None
    return answer


def is_list_type(typ: Type | None) -> bool:
    """Whether every value of this type is a ``list`` (or an instance of a subclass): what
    ``+=`` adds to content that only a list takes."""
    proper = get_proper_type(typ)
    if proper is None:
        return False
    members = _union_members(proper)
    return bool(members) and all(
        isinstance(member, Instance) and member.type.has_base("builtins.list") for member in members
    )


def class_may_be_text(info: TypeInfo) -> bool | None:
    """Whether an instance of this class may be a ``str`` (``may_be_text``); None when a base
    mypy could not tell may make it one."""
    if info.fallback_to_any:
        return None
    return (
        info.has_base("builtins.str")
        or info.fullname == "builtins.object"
        or info.is_protocol
        or info.fullname.startswith(_ABSTRACT_MODULES)
    )


def type_names(typ: Type | None) -> Iterator[str]:
    """Full names of a type's class and its bases (for matching catalog entries)."""
    proper = get_proper_type(typ)
    info = _type_info(proper)
    if info is None:
        return
    if isinstance(proper, TypedDictType):
        yield info.fullname  # a TypedDict is matched by its own name alone
        return
    for base in info.mro:
        yield base.fullname


def method_fullnames(receiver: Type | None, method: str) -> tuple[str, ...]:
    """``Class.method`` for every class in the receiver's MRO that defines ``method``."""
    proper = get_proper_type(receiver)
    if isinstance(proper, UnionType):
        names: dict[str, None] = {}
        for item in proper.items:
            for name in method_fullnames(item, method):
                names.setdefault(name, None)
        return tuple(names)
    info = _type_info(proper)
    if info is None:
        return ()
    return tuple(f"{base.fullname}.{method}" for base in info.mro if method in base.names)


def answers_with(receiver: Type | None, method: str, answers: frozenset[str]) -> bool:
    """Whether every class the receiver may be (``None`` aside) has in its MRO a class whose
    ``Class.method`` is one of ``answers`` (a preset's ``text-only-answers``)."""
    proper = get_proper_type(receiver)
    if proper is None:
        return False
    members = [m for m in _union_members(proper) if not isinstance(m, NoneType)]
    infos = [_type_info(member) for member in members]
    return bool(infos) and all(
        info is not None and any(f"{base.fullname}.{method}" in answers for base in info.mro)
        for info in infos
    )


def callable_narrows(callee: Type | None) -> bool:
    """Whether calling ``callee`` is a narrowing check (``TypeIs`` / ``TypeGuard``)."""
    proper = get_proper_type(callee)
    if isinstance(proper, CallableType):
        return proper.type_is is not None or proper.type_guard is not None
    if isinstance(proper, Overloaded):
        return any(item.type_is is not None or item.type_guard is not None for item in proper.items)
    return False


def _type_info(proper: ProperType | None) -> TypeInfo | None:
    if isinstance(proper, LiteralType):
        return proper.fallback.type
    if isinstance(proper, TupleType):
        return proper.partial_fallback.type
    if isinstance(proper, TypedDictType):
        return proper.fallback.type
    if isinstance(proper, Instance):
        return proper.type
    return None


def _union_members(proper: ProperType) -> list[ProperType]:
    if isinstance(proper, UnionType):
        members: list[ProperType] = []
        for item in proper.items:
            members.extend(_union_members(get_proper_type(item)))
        return members
    if isinstance(proper, UninhabitedType):
        return []
    return [proper]


def _is_text(proper: ProperType) -> bool:
    if isinstance(proper, LiteralType):
        return proper.fallback.type.fullname in _STRING_TYPES
    return isinstance(proper, Instance) and proper.type.fullname in _STRING_TYPES


def _collection_items(proper: ProperType) -> list[ProperType] | None:
    """The item types of a non-text, non-mapping iterable, or None for anything else."""
    if isinstance(proper, TupleType):
        items: list[ProperType] = []
        for item in proper.items:
            items.extend(_union_members(get_proper_type(item)))
        return items
    if not isinstance(proper, Instance):
        return None
    info = proper.type
    if info.fullname in _NOT_PART_COLLECTIONS:
        return None
    iterable = next((base for base in info.mro if base.fullname == _ITERABLE), None)
    if iterable is None or any(base.fullname == _MAPPING for base in info.mro):
        return None
    mapped = map_instance_to_supertype(proper, iterable)
    if not mapped.args:
        return []
    return _union_members(get_proper_type(mapped.args[0]))


_SCALARS = frozenset(
    {"builtins.str", "builtins.bytes", "builtins.int", "builtins.float", "builtins.bool"}
)


def _is_scalar(proper: ProperType) -> bool:
    if isinstance(proper, LiteralType):
        return True
    if isinstance(proper, NoneType):
        return True
    return isinstance(proper, Instance) and proper.type.fullname in _SCALARS


def _is_collection(proper: ProperType) -> bool:
    return _collection_items(proper) is not None


def _is_part_collection(proper: ProperType, spi: SpiModel) -> bool:
    items = _collection_items(proper)
    return bool(items) and any(_is_part(item, spi) for item in items or [])


def _is_part(proper: ProperType, spi: SpiModel) -> bool:
    return spi.part_type_matches(type_names(proper))
