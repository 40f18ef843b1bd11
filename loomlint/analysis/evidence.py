"""What syntax alone says about a receiver or an annotation, when no type oracle answers.

Without types, a read of ``x.content`` is an origin unless there is evidence that ``x`` is
not a message: an annotation naming an unrelated type or a local class whose ``content`` is
declared otherwise, a receiver assigned from ``open()`` or a call into an unrelated module
(``rules/unrelated.toml``), or the class ``x`` is an instance of (its annotation, an
``isinstance`` test, its constructor, a ``cast`` or a lookup such as ``query_one("#id", Static)``)
saying what its ``content`` holds. A use of ``x.content`` that neither a string nor a list
supports (``x.content.decode()``, ``x.content.plain``) says the same. An annotation naming a
content alias (``Content``) is evidence of content. With types none of this is consulted:
declared types decide.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import libcst as cst

from loomlint.analysis.index import ModuleIndex
from loomlint.analysis.syntax import all_params, dotted_name, string_value, suite_body
from loomlint.analysis.typefacts import ContentKind
from loomlint.catalog import Unrelated
from loomlint.spi import SpiModel

TEXT_TYPES = frozenset({"builtins.str"})
PART_COLLECTION_TYPES = frozenset(
    {
        "builtins.list",
        "builtins.tuple",
        "typing.List",
        "typing.Sequence",
        "typing.MutableSequence",
        "typing.Iterable",
        "typing.Collection",
        "collections.abc.Sequence",
        "collections.abc.MutableSequence",
        "collections.abc.Iterable",
        "collections.abc.Collection",
    }
)
# What a string or a list supports: any other attribute of a content value is no content's.
BRANCH_ATTRIBUTES = frozenset(dir(str)) | frozenset(dir(list))
_CAST = frozenset({"typing.cast", "typing_extensions.cast"})
# Local classes deriving from local classes: how far their bases are followed.
_MAX_BASE_DEPTH = 8


class Evidence:
    def __init__(self, index: ModuleIndex, spi: SpiModel, unrelated: Unrelated) -> None:
        self._index = index
        self._spi = spi
        self._unrelated = unrelated

    def self_is_foreign(self, function: cst.FunctionDef) -> str | None:
        """The name of ``self`` in a method of a local class whose content field is declared,
        and not as content (``content: str`` of a pydantic model): that ``self`` is no message.
        """
        parent = self._index.parent(function)
        while parent is not None and not isinstance(
            parent, (cst.ClassDef, cst.FunctionDef, cst.Module)
        ):
            parent = self._index.parent(parent)
        if not isinstance(parent, cst.ClassDef):
            return None
        positional = [*function.params.posonly_params, *function.params.params]
        if not positional or positional[0].annotation is not None:
            return None
        if any(dotted_name(d.decorator) == "staticmethod" for d in function.decorators):
            return None
        declared = class_field_annotation(parent, self._spi.content_fields)
        if declared is not None and not self.looks_like_content_annotation(declared):
            return positional[0].name.value
        return None

    def receiver_is_foreign(self, receiver: cst.BaseExpression, foreign: frozenset[str]) -> bool:
        """A receiver known not to be a message: a foreign name, or a foreign call."""
        if isinstance(receiver, cst.Name):
            return receiver.value in foreign
        return self.is_foreign_call(receiver, foreign)

    def is_foreign_call(self, node: cst.BaseExpression, foreign: frozenset[str]) -> bool:
        """A call into a module known to have a ``.content`` of its own, or ``open()``, or a
        method of an object known not to be a message (``client.get(url)`` of an
        ``httpx.Client``)."""
        while isinstance(node, cst.Await):
            node = node.expression
        if not isinstance(node, cst.Call):
            return False
        func = node.func
        if foreign and isinstance(func, cst.Attribute):
            root: cst.BaseExpression = func.value
            while isinstance(root, cst.Attribute):
                root = root.value
            if isinstance(root, cst.Name) and root.value in foreign:
                return True
        qualified = self._index.names.qualified(func)
        if qualified is None and isinstance(func, cst.Attribute):
            qualified = self._index.names.qualified(func.value)
        if qualified is None:
            return False
        return qualified == "builtins.open" or self._unrelated.is_unrelated_module(qualified)

    def instance_classes(self, node: cst.BaseExpression) -> list[cst.BaseExpression]:
        """The classes a call's result is an instance of, as far as syntax says: ``Cls(...)``
        of a class this module defines or an unrelated module's, ``cast(Cls, v)``, and
        ``x.query_one(sel, Cls)`` (a lookup method, ``rules/unrelated.toml``); else none."""
        while isinstance(node, cst.Await):
            node = node.expression
        if not isinstance(node, cst.Call):
            return []
        func = node.func
        positional = _positional(node)
        if self._index.names.qualified(func) in _CAST and positional:
            return [parse_name(n) for n in union_members(positional[0])]
        lookup = self.lookup_classes(node)
        if lookup:
            return lookup
        if self._index.names.local_class(func) is not None:
            return [func]
        qualified = self._index.names.qualified(func)
        if qualified is not None and self._unrelated.is_unrelated_module(qualified):
            return [func]
        return []

    def lookup_classes(self, node: cst.BaseExpression) -> list[cst.BaseExpression]:
        """The class a lookup method is asked for (``query_one(sel, Cls)``, ``query(Cls)``):
        its result is an instance of it, or, iterated, yields instances of it."""
        while isinstance(node, cst.Await):
            node = node.expression
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return []
        positional = _positional(node)
        if (
            node.func.attr.value in self._unrelated.lookup_methods
            and positional
            and dotted_name(positional[-1]) is not None
        ):
            return [positional[-1]]
        return []

    def used_as_neither_branch(self, read: cst.BaseExpression) -> bool:
        """``x.content.decode()``, ``x.content.plain``: an attribute that neither a string nor
        a list has, so the code's author knows ``x.content`` to be something else."""
        parent = self._index.parent(read)
        return (
            isinstance(parent, cst.Attribute)
            and parent.value is read
            and parent.attr.value not in BRANCH_ATTRIBUTES
        )

    def class_kind(self, cls: cst.BaseExpression, depth: int = 0) -> ContentKind | None:
        """What a class says its instances' content field holds: TEXT or PARTS for the SPI's
        text-only or parts-only types, OTHER for a class that is no message (an unrelated
        module's or builtin, or a local class whose content field is declared otherwise, or
        that derives from such a class); None when syntax cannot tell."""
        qualified = self._index.names.qualified(cls)
        if qualified is not None:
            if qualified in self._spi.text_only_types:
                return ContentKind.TEXT
            if qualified in self._spi.parts_only_types:
                return ContentKind.PARTS
            if qualified in TEXT_TYPES or qualified in PART_COLLECTION_TYPES:
                return None
            if qualified.startswith("builtins.") or self._name_is_foreign(qualified, qualified):
                return ContentKind.OTHER
            return None
        local = self._index.names.local_class(cls)
        if local is None:
            return None
        declared = class_field_annotation(local, self._spi.content_fields)
        if declared is not None:
            return None if self.looks_like_content_annotation(declared) else ContentKind.OTHER
        if depth < _MAX_BASE_DEPTH and any(
            self.class_kind(base.value, depth + 1) is ContentKind.OTHER for base in local.bases
        ):
            return ContentKind.OTHER
        return None

    def annotation(self, annotation: cst.BaseExpression) -> Literal["content", "foreign"] | None:
        """What an annotation says without a type checker: content, not a message, or unknown."""
        names = [n for n in annotation_names(annotation) if n not in ("None", "Optional", "Union")]
        if not names:
            return None
        qualified = [(n, self._index.names.qualified(parse_name(n))) for n in names]
        # Content only where the alias is the value's own type (``Content``, ``Content | None``),
        # not an item of a container (``list[Content]``, ``dict[str, Content]``).
        members = [
            (n, self._index.names.qualified(parse_name(n))) for n in union_members(annotation)
        ]
        if any(
            q in self._spi.content_types
            or (q is None and n.rpartition(".")[2] in self._spi.content_types.short_names)
            for n, q in members
        ):
            return "content"
        if any(q is not None and q in self._spi.message_types for _, q in qualified):
            return None
        verdicts = [self._name_is_foreign(n, q) for n, q in qualified]
        return "foreign" if all(verdicts) else None

    def _name_is_foreign(self, name: str, qualified: str | None) -> bool:
        if qualified is not None:
            return qualified in self._unrelated.types or self._unrelated.is_unrelated_module(
                qualified
            )
        local = self._index.names.classes.get(name)
        if local is None:
            return False
        field_annotation = class_field_annotation(local, self._spi.content_fields)
        if field_annotation is None:
            return False
        return not self.looks_like_content_annotation(field_annotation)

    def looks_like_content_annotation(self, annotation: cst.BaseExpression) -> bool:
        return looks_like_content_annotation(annotation, self._index, self._spi)


def looks_like_content_annotation(
    annotation: cst.BaseExpression, index: ModuleIndex, spi: SpiModel
) -> bool:
    """Whether an annotation spells a content union without types: it names a content alias,
    or ``str`` together with a list or sequence (``"str | list[LlmContentPart]"``)."""
    names = set(annotation_names(annotation))
    qualified = {index.names.qualified(parse_name(n)) for n in names}
    if any(q is not None and q in spi.content_types for q in qualified):
        return True
    return "builtins.str" in qualified and bool(qualified & PART_COLLECTION_TYPES)


_UNION_FORMS = frozenset({"Optional", "Union", "typing.Optional", "typing.Union"})


def union_members(annotation: cst.BaseExpression) -> list[str]:
    """Dotted names of an annotation's own union members (``A | Optional[B]`` -> A, B); a
    subscripted container counts as its container's name (``list[Content]`` -> list)."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return union_members(annotation.left) + union_members(annotation.right)
    if isinstance(annotation, cst.Subscript):
        container = dotted_name(annotation.value)
        if container in _UNION_FORMS:
            names: list[str] = []
            for element in annotation.slice:
                if isinstance(element.slice, cst.Index):
                    names += union_members(element.slice.value)
            return names
        return [container] if container is not None else []
    value = string_value(annotation)
    if value is not None:
        try:
            return union_members(cst.parse_expression(value))
        except cst.ParserSyntaxError:
            return []
    dotted = dotted_name(annotation)
    return [dotted] if dotted is not None else []


def annotation_names(annotation: cst.BaseExpression) -> list[str]:
    """Dotted names mentioned in an annotation (``Optional[m.Msg]`` -> Optional, m.Msg)."""
    dotted = dotted_name(annotation)
    if dotted is not None:
        return [dotted]
    if isinstance(annotation, cst.BinaryOperation):
        return annotation_names(annotation.left) + annotation_names(annotation.right)
    if isinstance(annotation, cst.Subscript):
        names = annotation_names(annotation.value)
        for element in annotation.slice:
            if isinstance(element.slice, cst.Index):
                names += annotation_names(element.slice.value)
        return names
    if isinstance(annotation, cst.Tuple):
        return [n for e in annotation.elements for n in annotation_names(e.value)]
    value = string_value(annotation)
    if value is not None:
        try:
            return annotation_names(cst.parse_expression(value))
        except cst.ParserSyntaxError:
            return []
    return []


def _positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def parse_name(dotted: str) -> cst.BaseExpression:
    parts = dotted.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def class_field_annotation(cls: cst.ClassDef, fields: frozenset[str]) -> cst.BaseExpression | None:
    """The declared type of a content field in a class of this module.

    A class-level annotation (``content: str``), or else the annotation of the parameter
    that a method stores into ``self.content``.
    """
    for statement in suite_body(cls.body):
        for small in _small_statements(statement):
            if (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and small.target.value in fields
            ):
                return small.annotation.annotation
    for statement in suite_body(cls.body):
        if isinstance(statement, cst.FunctionDef):
            found = _stored_field_annotation(statement, fields)
            if found is not None:
                return found
    return None


def _stored_field_annotation(
    method: cst.FunctionDef, fields: frozenset[str]
) -> cst.BaseExpression | None:
    params = {p.name.value: p for p in all_params(method.params)}
    for statement in suite_body(method.body):
        for small in _small_statements(statement):
            if isinstance(small, cst.AnnAssign) and _is_self_field(small.target, fields):
                return small.annotation.annotation
            if not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Name):
                continue
            if any(_is_self_field(t.target, fields) for t in small.targets):
                param = params.get(small.value.value)
                if param is not None and param.annotation is not None:
                    return param.annotation.annotation
    return None


def _is_self_field(target: cst.BaseExpression, fields: frozenset[str]) -> bool:
    return (
        isinstance(target, cst.Attribute)
        and isinstance(target.value, cst.Name)
        and target.value.value == "self"
        and target.attr.value in fields
    )


def _small_statements(
    statement: cst.BaseStatement | cst.BaseSmallStatement,
) -> Sequence[cst.BaseSmallStatement]:
    if isinstance(statement, cst.SimpleStatementLine):
        return statement.body
    return []
