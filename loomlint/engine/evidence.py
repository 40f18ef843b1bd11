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

import builtins
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import libcst as cst

from loomlint.catalog.rules import Unrelated
from loomlint.catalog.spi import SpiModel, imports_any
from loomlint.engine.imported import ImportedClass, ImportedClasses
from loomlint.engine.index import ModuleIndex
from loomlint.engine.syntax import (
    all_params,
    dotted_name,
    is_self_field,
    string_value,
    suite_body,
)
from loomlint.engine.typefacts import ContentKind

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
# What a field that holds content and nothing else is a union of (``None`` aside).
_TEXT_OR_LIST = PART_COLLECTION_TYPES | {"builtins.str"}
# What a string or a list supports: any other attribute of a content value is no content's.
BRANCH_ATTRIBUTES = frozenset(dir(str)) | frozenset(dir(list))
_CAST = frozenset({"typing.cast", "typing_extensions.cast"})
_MAPPINGS = frozenset({"builtins.dict", "collections.OrderedDict", "collections.defaultdict"})
# Classes whose instances may hold any key: what they say of a ``.content`` attribute says
# nothing of ``d["content"]``, which may be a message dict's.
_ANY_KEY = _MAPPINGS | frozenset(
    {
        "builtins.object",
        "typing.Any",
        "typing.Dict",
        "typing.DefaultDict",
        "typing.OrderedDict",
        "typing.Mapping",
        "typing.MutableMapping",
        "collections.abc.Mapping",
        "collections.abc.MutableMapping",
    }
)
_PROPERTIES = frozenset({"property", "functools.cached_property", "cached_property"})
_ANYTHING = frozenset({"typing.Any", "typing_extensions.Any", "builtins.object"})
_ANNOTATED = frozenset({"typing.Annotated", "typing_extensions.Annotated"})
# Local classes deriving from local classes: how far their bases are followed.
_MAX_BASE_DEPTH = 8
# Builtin classes no string is an instance of (``dict``, ``int``, ``object``: all but ``str``).
_NO_TEXT_BUILTINS = frozenset(
    f"builtins.{name}"
    for name, value in vars(builtins).items()
    if isinstance(value, type) and not issubclass(value, str)
)
# Bases of the standard library that make no class a ``str`` (``StrEnum`` does).
_NO_TEXT_BASES = frozenset(
    {
        "abc.ABC",
        "enum.Enum",
        "enum.Flag",
        "enum.IntEnum",
        "enum.IntFlag",
        "typing.Generic",
        "typing.NamedTuple",
        "typing.Protocol",
        "typing.TypedDict",
        "typing_extensions.Generic",
        "typing_extensions.NamedTuple",
        "typing_extensions.Protocol",
        "typing_extensions.TypedDict",
    }
)


@dataclass(slots=True)
class _Records:
    """What the records a module defines or imports from the project declare their content
    field to hold (``Evidence.records_hold_other``)."""

    # Some may hold content (a content union, ``Any``), or the module imports an SDK's module.
    hold_content: bool = False
    # Some hold something else: a ``TypedDict`` (its ``"content"`` key), another class.
    other_items: bool = False
    other_attributes: bool = False


class Evidence:
    def __init__(
        self,
        index: ModuleIndex,
        spi: SpiModel,
        unrelated: Unrelated,
        imported: ImportedClasses | None = None,
        *,
        modules: dict[str, Evidence] | None = None,
        sdk_modules: tuple[str, ...] = (),
    ) -> None:
        self._index = index
        # Every preset's modules (``Catalog.sdk_modules``): importing one, a module reads an
        # SDK's messages, whatever its own records hold.
        self._sdk_modules = sdk_modules
        # What this module's records hold (``_records``), learnt on the first question.
        self._records: _Records | None = None
        self._spi = spi
        self._unrelated = unrelated
        # The project's other modules, read for the classes this one imports; None: only this
        # module's own classes count (with types, where mypy reads the others).
        self._imported = imported
        # The evidence of each module read for its classes, by path, shared by every module's
        # evidence of one analysis: what it learnt of its classes is learnt once.
        self._modules: dict[str, Evidence] = {} if modules is None else modules
        # What was learnt of names, classes and annotations: a module's flow asks the same
        # questions once per method, per parameter, per narrowing (a class's fields are
        # narrowed in each of its methods). Keyed by node identity, or by qualified name.
        self._imported_classes: dict[str, tuple[Evidence, cst.ClassDef] | None] = {}
        self._class_kinds: dict[tuple[str, int], ContentKind | None] = {}
        self._own_class_kinds: dict[tuple[cst.ClassDef, int], ContentKind | None] = {}
        self._field_annotations: dict[cst.ClassDef, cst.BaseExpression | None] = {}
        self._annotation_kinds: dict[cst.BaseExpression, ContentKind | None] = {}
        self._member_kinds: dict[cst.BaseExpression, tuple[tuple[str, ContentKind, bool], ...]] = {}
        self._self_fields: dict[cst.ClassDef, list[tuple[str, cst.BaseExpression]]] = {}

    @property
    def unrelated(self) -> Unrelated:
        return self._unrelated

    @property
    def imported(self) -> ImportedClasses | None:
        return self._imported

    def _imported_class(self, qualified: str) -> tuple[Evidence, cst.ClassDef] | None:
        """A class of another module of the project, with the evidence of its own module."""
        if qualified in self._imported_classes:
            return self._imported_classes[qualified]
        found = self._imported.find(qualified) if self._imported is not None else None
        result = self._with_its_module(found) if found is not None else None
        self._imported_classes[qualified] = result
        return result

    def _with_its_module(self, found: ImportedClass) -> tuple[Evidence, cst.ClassDef]:
        """A class of another module, with the evidence of that module (made once)."""
        assert self._imported is not None
        module = self._modules.get(found.path)
        if module is None or module._index is not found.index:
            module = Evidence(
                found.index,
                self._spi,
                self._unrelated,
                self._imported.beside(found.path),
                modules=self._modules,
            )
            self._modules[found.path] = module
        return module, found.node

    def records_hold_other(self, item_read: bool) -> bool:
        """Whether the records of this module say that a content read nothing else identifies
        is no message's: the module defines or imports a class (a capitalised name, of the
        project's own modules: beside the file, above it, or in a ``src/`` above it; not an
        installed package's) that declares its content field as neither content nor ``Any``
        (``content: str``, ``content: list[Block]``), of the kind the read can reach (a
        ``TypedDict`` for ``x["content"]`` and ``x.get("content")``, any other class for
        ``x.content``), and neither a class whose content field may be content nor anything of
        an SDK's modules. A project that declares what its own ``content`` holds reads its own
        records where it names no message: strands-agents' ``Message`` and ``ToolResult``
        TypedDicts (a list of blocks), gptme's ``Message`` (text). Asked only without types."""
        if self._records is None:
            self._records = self._module_records()
        records = self._records
        if records.hold_content:
            return False
        return records.other_items if item_read else records.other_attributes

    def _module_records(self) -> _Records:
        names = self._index.names
        if imports_any([*names.imports.values(), *names.star_imports], self._sdk_modules):
            return _Records(hold_content=True)
        found: list[tuple[Evidence, cst.ClassDef]] = [
            (self, cls) for cls in names.classes.values() if cls is not None
        ]
        for name, qualified in names.imports.items():
            if name[:1].isupper() and qualified.split(".", 1)[0] not in sys.stdlib_module_names:
                project_class = self._project_class(qualified)
                if project_class is not None:
                    found.append(project_class)
        records = _Records()
        for module, cls in found:
            declared = module._field_annotation(cls)
            if declared is None:
                continue
            if module.looks_like_content_annotation(declared) or module._says_anything(declared):
                records.hold_content = True
            elif module._is_typed_dict(cls):
                records.other_items = True
            else:
                records.other_attributes = True
        return records

    def _project_class(self, qualified: str) -> tuple[Evidence, cst.ClassDef] | None:
        """A class of the project's own modules (an installed package's aside: reading one
        for every import would cost more than the module's analysis)."""
        if self._imported is None:
            return None
        found = self._imported.find(qualified, installed=False)
        return self._with_its_module(found) if found is not None else None

    def _says_anything(self, annotation: cst.BaseExpression) -> bool:
        """``Any``, ``object``: a content field so declared may hold content."""
        return any(
            self._index.names.qualified(parse_name(n)) in _ANYTHING
            for n in union_members(annotation)
        )

    def _is_typed_dict(self, cls: cst.ClassDef, depth: int = 0) -> bool:
        for base in cls.bases:
            name = dotted_name(base.value)
            if name is not None and name.rpartition(".")[2] == "TypedDict":
                return True
            local = self._index.names.local_class(base.value)
            if (
                local is not None
                and depth < _MAX_BASE_DEPTH
                and self._is_typed_dict(local, depth + 1)
            ):
                return True
        return False

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
        declared = self._field_annotation(parent)
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
        if qualified is not None and (
            self._unrelated.is_unrelated_module(qualified) or self._is_known_class(qualified)
        ):
            return [func]
        return []

    def _is_known_class(self, qualified: str) -> bool:
        """A class of an SPI, or of the project's other modules (``AssistantMessage(...)``
        imported from the package under check)."""
        spi = self._spi
        return (
            qualified in spi.message_types
            or qualified in spi.text_only_types
            or qualified in spi.parts_only_types
            or self._imported_class(qualified) is not None
        )

    def constructs_no_text(self, call: cst.Call) -> bool:
        """Whether ``call`` makes an instance of a class no string is an instance of: a builtin
        class other than ``str`` (``dict(...)``), a part class of the presets, or a class of
        this module or of the project (its other modules and installed packages, read by
        ``ImportedClasses``) whose every base is known to be no ``str``, followed to its root.
        A name that is not found may be anything (a function named like a class, a ``str``
        subclass): its call alone says nothing."""
        local = self._index.names.local_class(call.func)
        if local is not None:
            return self._own_class_is_no_text(local, 0)
        qualified = self._index.names.qualified(call.func)
        return qualified is not None and self._is_no_text_class(qualified, 0)

    def _is_no_text_class(self, qualified: str, depth: int) -> bool:
        if qualified in _NO_TEXT_BUILTINS or qualified in _NO_TEXT_BASES:
            return True
        if qualified.startswith("builtins."):
            return False  # str, or a function (repr)
        if self._spi.part_type_matches((qualified,)):
            return True
        if depth >= _MAX_BASE_DEPTH:
            return False
        imported = self._imported_class(qualified)
        return imported is not None and imported[0]._own_class_is_no_text(imported[1], depth + 1)

    def _own_class_is_no_text(self, cls: cst.ClassDef, depth: int) -> bool:
        """Whether every base of a class of this module is known to be no ``str``."""
        for base in cls.bases:
            node = base.value
            if base.star or isinstance(node, cst.Call):
                return False
            if isinstance(node, cst.Subscript):
                node = node.value  # Generic[T], BaseModel[...]
            local = self._index.names.local_class(node)
            if local is not None:
                if local is cls or depth >= _MAX_BASE_DEPTH:
                    return False
                if not self._own_class_is_no_text(local, depth + 1):
                    return False
                continue
            qualified = self._index.names.qualified(node)
            if qualified is None or not self._is_no_text_class(qualified, depth + 1):
                return False
        return True

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

    def falls_back_to_other(self, read: cst.BaseExpression) -> bool:
        """``a.content or b""``, ``r.content or {}``: the code falls back to bytes or a
        mapping where the field is empty, so it knows the field to hold one."""
        parent = self._index.parent(read)
        if (
            not isinstance(parent, cst.BooleanOperation)
            or not isinstance(parent.operator, cst.Or)
            or parent.left is not read
        ):
            return False
        fallback = parent.right
        if isinstance(fallback, cst.SimpleString):
            return "b" in fallback.prefix.lower()
        return isinstance(fallback, (cst.Dict, cst.DictComp)) or (
            isinstance(fallback, cst.Call)
            and self._index.names.qualified(fallback.func) in _MAPPINGS
        )

    def self_fields(
        self, function: cst.FunctionDef
    ) -> tuple[str, list[tuple[str, cst.BaseExpression]]] | None:
        """In a method, the name of ``self`` and the fields its class annotates, at class
        level (``notes: list[Note]``) or in a method (``self._contents: list[Memory] = []``):
        what is known below ``self.notes``."""
        cls = self._enclosing_class(function)
        positional = [*function.params.posonly_params, *function.params.params]
        if cls is None or not positional or positional[0].annotation is not None:
            return None
        if any(
            dotted_name(d.decorator) in ("staticmethod", "classmethod") for d in function.decorators
        ):
            return None
        fields = self._self_fields.get(cls)
        if fields is None:
            fields = self._fields(cls)
            for statement in suite_body(cls.body):
                if isinstance(statement, cst.FunctionDef):
                    fields.extend(_self_annotations(statement, self._spi.content_fields))
            self._self_fields[cls] = fields
        return (positional[0].name.value, list(fields)) if fields else None

    def _enclosing_class(self, function: cst.FunctionDef) -> cst.ClassDef | None:
        parent = self._index.parent(function)
        while parent is not None and not isinstance(
            parent, (cst.ClassDef, cst.FunctionDef, cst.Module)
        ):
            parent = self._index.parent(parent)
        return parent if isinstance(parent, cst.ClassDef) else None

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
        text-only or parts-only types, CONTENT for its message types, OTHER for a class that is
        no message (an unrelated module's or builtin, or a class of the project whose content
        field is declared otherwise, or that derives from such a class); None when syntax
        cannot tell."""
        qualified = self._index.names.qualified(cls)
        if qualified is not None:
            key = (qualified, depth)
            if key not in self._class_kinds:
                self._class_kinds[key] = self._qualified_class_kind(qualified, depth)
            return self._class_kinds[key]
        local = self._index.names.local_class(cls)
        return self._own_class_kind(local, depth) if local is not None else None

    def _qualified_class_kind(self, qualified: str, depth: int) -> ContentKind | None:
        if qualified in self._spi.text_only_types:
            return ContentKind.TEXT
        if qualified in self._spi.parts_only_types:
            return ContentKind.PARTS
        if qualified in TEXT_TYPES or qualified in PART_COLLECTION_TYPES:
            return None
        if qualified.startswith("builtins.") or self._name_is_foreign(qualified, qualified):
            return ContentKind.OTHER
        if qualified in self._spi.message_types:
            return ContentKind.CONTENT
        if depth >= _MAX_BASE_DEPTH:
            return None
        imported = self._imported_class(qualified)
        return imported[0]._own_class_kind(imported[1], depth + 1) if imported else None

    def _own_class_kind(self, cls: cst.ClassDef, depth: int) -> ContentKind | None:
        key = (cls, depth)
        if key in self._own_class_kinds:
            return self._own_class_kinds[key]
        kind: ContentKind | None = None
        declared = self._field_annotation(cls)
        if declared is not None:
            kind = None if self.looks_like_content_annotation(declared) else ContentKind.OTHER
        elif depth < _MAX_BASE_DEPTH and any(
            self.class_kind(base.value, depth + 1) is ContentKind.OTHER for base in cls.bases
        ):
            kind = ContentKind.OTHER
        self._own_class_kinds[key] = kind
        return kind

    def _field_annotation(self, cls: cst.ClassDef) -> cst.BaseExpression | None:
        if cls not in self._field_annotations:
            self._field_annotations[cls] = class_field_annotation(cls, self._spi.content_fields)
        return self._field_annotations[cls]

    def kind_of_classes(self, classes: Sequence[cst.BaseExpression]) -> ContentKind | None:
        """What instances of every one of ``classes`` hold in their content field: TEXT when
        each is a text-only type of the SPI or no message, PARTS when each is a parts-only
        type, CONTENT when each is a message type, OTHER when none is a message; None
        otherwise (unknown, or a mix)."""
        kinds = {self.class_kind(c) for c in classes}
        if not kinds or None in kinds:
            return None
        if kinds == {ContentKind.TEXT, ContentKind.OTHER}:
            return ContentKind.TEXT
        return kinds.pop() if len(kinds) == 1 else None

    def annotation_kind(self, annotation: cst.BaseExpression) -> ContentKind | None:
        """What the classes an annotation names say its content field holds (``Note | None``)."""
        if annotation in self._annotation_kinds:
            return self._annotation_kinds[annotation]
        names = _class_names(annotation)
        kind = self.kind_of_classes([parse_name(n) for n in names]) if names else None
        self._annotation_kinds[annotation] = kind
        return kind

    def holds_any_key(self, annotation: cst.BaseExpression) -> bool:
        """Whether an annotation names a class whose instances may hold any key (``dict``,
        ``Mapping``, ``Any``): its ``"content"`` key may be a message's, whatever the class says
        of a ``.content`` attribute."""
        return any(self.is_any_key_class(parse_name(n)) for n in annotation_names(annotation))

    def is_any_key_class(self, cls: cst.BaseExpression) -> bool:
        return self._index.names.qualified(cls) in _ANY_KEY

    def grounding_kind(self, annotation: cst.BaseExpression) -> ContentKind | None:
        """What the classes an annotation names say its content field holds
        (``annotation_kind``), or CONTENT for a message class of the project's own
        (``declares_content``): a path whose kind is known so rests on that declaration."""
        kind = self.annotation_kind(annotation)
        if kind is None and self.declares_content(annotation):
            return ContentKind.CONTENT
        return kind

    def declares_content(self, annotation: cst.BaseExpression) -> bool:
        """Whether every class an annotation names is one of the project's whose content
        field is declared as content and nothing else (``content: str | list[Part]``,
        ``_is_only_content``): a message type of the project's own, whose reads rest on that
        declaration as an SPI's message type's rest on the presets' data."""
        names = _class_names(annotation)
        if not names:
            return False
        for name in names:
            found = self._class_named(parse_name(name))
            if found is None:
                return False
            module, cls = found
            declared = module._field_annotation(cls)
            if declared is None or not module._is_only_content(declared):
                return False
        return True

    def _is_only_content(self, annotation: cst.BaseExpression) -> bool:
        """Whether an annotation declares content and nothing else: a content alias, or a union
        of ``str`` and lists (``None`` aside). A field that may also hold a mapping, a model
        or ``Any`` (``Union[str, dict, list, BaseModel]``, a run's output) holds payloads of
        every kind, not a message's content."""
        if not self.looks_like_content_annotation(annotation):
            return False
        names = set(annotation_names(annotation))
        if any(
            self._index.names.qualified(parse_name(n)) in self._spi.content_types for n in names
        ):
            return True
        members = [n for n in union_members(annotation) if n != "None"]
        return all(self._index.names.qualified(parse_name(n)) in _TEXT_OR_LIST for n in members)

    def member_kinds(
        self, annotation: cst.BaseExpression
    ) -> tuple[tuple[str, ContentKind, bool], ...]:
        """What is known below a value so annotated, as path suffixes, the content field's
        kind there, and whether that kind holds for the ``"content"`` key too (no class there
        may hold any key, ``holds_any_key``): ``list[Note]`` -> ``[*]``; a class of the project
        (``state: State``, a ``TypedDict`` or a model) -> each field whose class is known,
        ``['notes'][*]`` and ``.notes[*]`` for ``notes: list[Note]``. A sequence's items are
        known by ``grounding_kind``: ``list[Message]`` of a message class of the project's own
        too."""
        known = self._member_kinds.get(annotation)
        if known is None:
            known = self._member_kinds[annotation] = tuple(self._found_member_kinds(annotation))
        return known

    def _found_member_kinds(
        self, annotation: cst.BaseExpression
    ) -> list[tuple[str, ContentKind, bool]]:
        found: list[tuple[str, ContentKind, bool]] = []
        element = self.element_annotation(annotation)
        kind = self.grounding_kind(element) if element is not None else None
        if kind is not None and element is not None:
            found.append(("[*]", kind, not self.holds_any_key(element)))
        owner = self._class_named(annotation)
        if owner is None:
            return found
        module, cls = owner
        for member, declared in module._fields(cls):
            kind = module.annotation_kind(declared)
            element = module.element_annotation(declared)
            item = module.annotation_kind(element) if element is not None else None
            for prefix in (f"[{member!r}]", f".{member}"):
                if kind is not None:
                    found.append((prefix, kind, not module.holds_any_key(declared)))
                if item is not None and element is not None:
                    found.append((prefix + "[*]", item, not module.holds_any_key(element)))
        return found

    def defined_class(self, node: cst.BaseExpression) -> cst.ClassDef | None:
        """The definition of the class ``node`` names: this module's, or (from its stub) one
        of the project's other modules'; None for an SPI's message class and the unknown."""
        found = self._class_named(node)
        return found[1] if found is not None else None

    def _class_named(self, annotation: cst.BaseExpression) -> tuple[Evidence, cst.ClassDef] | None:
        members = [n for n in union_members(annotation) if n != "None"]
        if len(members) != 1:
            return None
        node = parse_name(members[0])
        local = self._index.names.local_class(node)
        if local is not None:
            return self, local
        qualified = self._index.names.qualified(node)
        if qualified is None or qualified in self._spi.message_types:
            return None
        return self._imported_class(qualified)

    def _fields(self, cls: cst.ClassDef) -> list[tuple[str, cst.BaseExpression]]:
        """A class's annotated fields (a ``TypedDict``'s keys, a model's fields), but its
        content fields."""
        fields: list[tuple[str, cst.BaseExpression]] = []
        for statement in suite_body(cls.body):
            for small in _small_statements(statement):
                if (
                    isinstance(small, cst.AnnAssign)
                    and isinstance(small.target, cst.Name)
                    and small.target.value not in self._spi.content_fields
                ):
                    fields.append((small.target.value, small.annotation.annotation))
        return fields

    def element_annotation(self, annotation: cst.BaseExpression) -> cst.BaseExpression | None:
        """The item type of a sequence annotation: ``list[Note]``, ``Sequence[Note] | None``
        -> ``Note``; None for anything else."""
        value = string_value(annotation)
        if value is not None:
            try:
                annotation = cst.parse_expression(value)
            except cst.ParserSyntaxError:
                return None
        members = [m for m in _union_nodes(annotation) if dotted_name(m) != "None"]
        if len(members) != 1 or not isinstance(members[0], cst.Subscript):
            return None
        subscript = members[0]
        first = subscript.slice[0].slice
        if not isinstance(first, cst.Index):
            return None
        container = self._index.names.qualified(subscript.value)
        if container in _ANNOTATED:  # Annotated[list[Note], reducer]
            return self.element_annotation(first.value)
        return first.value if container in PART_COLLECTION_TYPES else None

    def annotation(self, annotation: cst.BaseExpression) -> Literal["content", "foreign"] | None:
        """What an annotation says without a type checker: content, not a message, or unknown."""
        names = _class_names(annotation)
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
        field_annotation = self._field_annotation(local)
        if field_annotation is None:
            return False
        return not self.looks_like_content_annotation(field_annotation)

    def looks_like_content_annotation(self, annotation: cst.BaseExpression) -> bool:
        return looks_like_content_annotation(annotation, self._index, self._spi)


def _class_names(annotation: cst.BaseExpression) -> list[str]:
    """The dotted names an annotation names, but ``None`` and the union forms."""
    return [n for n in annotation_names(annotation) if n not in ("None", "Optional", "Union")]


def looks_like_content_annotation(
    annotation: cst.BaseExpression, index: ModuleIndex, spi: SpiModel
) -> bool:
    """Whether an annotation spells a content union without types: it names a content alias,
    or has ``str`` and a list or sequence among its union's members
    (``"str | list[LlmContentPart]"``; not ``list[str]``, a list of strings)."""
    names = set(annotation_names(annotation))
    qualified = {index.names.qualified(parse_name(n)) for n in names}
    if any(q is not None and q in spi.content_types for q in qualified):
        return True
    members = {index.names.qualified(parse_name(n)) for n in union_members(annotation)}
    return "builtins.str" in members and bool(members & PART_COLLECTION_TYPES)


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


def _union_nodes(annotation: cst.BaseExpression) -> list[cst.BaseExpression]:
    """An annotation's own union members as nodes (``list[A] | None`` -> ``list[A]``, None)."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return _union_nodes(annotation.left) + _union_nodes(annotation.right)
    if isinstance(annotation, cst.Subscript) and dotted_name(annotation.value) in _UNION_FORMS:
        nodes: list[cst.BaseExpression] = []
        for element in annotation.slice:
            if isinstance(element.slice, cst.Index):
                nodes += _union_nodes(element.slice.value)
        return nodes
    return [annotation]


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

    A class-level annotation (``content: str``), the return annotation of a property of that
    name, or else the annotation of the parameter that a method stores into ``self.content``.
    """
    for statement in suite_body(cls.body):
        for small in _small_statements(statement):
            if (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and small.target.value in fields
            ):
                return small.annotation.annotation
        if (
            isinstance(statement, cst.FunctionDef)
            and statement.name.value in fields
            and statement.returns is not None
            and any(dotted_name(d.decorator) in _PROPERTIES for d in statement.decorators)
        ):
            return statement.returns.annotation
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
            if isinstance(small, cst.AnnAssign) and is_self_field(small.target, fields):
                return small.annotation.annotation
            if not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Name):
                continue
            if any(is_self_field(t.target, fields) for t in small.targets):
                param = params.get(small.value.value)
                if param is not None and param.annotation is not None:
                    return param.annotation.annotation
    return None


def _self_annotations(
    method: cst.FunctionDef, content_fields: frozenset[str]
) -> list[tuple[str, cst.BaseExpression]]:
    """``self.notes: list[Note] = ...`` in a method's own statements: (``notes``, annotation),
    but for the content fields."""
    found: list[tuple[str, cst.BaseExpression]] = []
    for statement in suite_body(method.body):
        for small in _small_statements(statement):
            target = small.target if isinstance(small, cst.AnnAssign) else None
            if (
                isinstance(small, cst.AnnAssign)
                and isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value == "self"
                and target.attr.value not in content_fields
            ):
                found.append((target.attr.value, small.annotation.annotation))
    return found


def _small_statements(
    statement: cst.BaseStatement | cst.BaseSmallStatement,
) -> Sequence[cst.BaseSmallStatement]:
    if isinstance(statement, cst.SimpleStatementLine):
        return statement.body
    return []
