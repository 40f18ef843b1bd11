"""The active SPI model: what content is, for this run, once presets and configuration merge.

Both the LibCST pass and the mypy plugin decide "is this content?" and "is this call an
accessor?" from one ``SpiModel``, built once from the selected presets plus the user's extra
accessors, sanitizers and content fields.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from loomlint.catalog.rules import PartsSetting, Preset, TextPartShape


@dataclass(frozen=True)
class QualifiedNames:
    """A set of qualified names that also matches where a type checker says they are defined.

    Presets name things by their public path (``loomlint.content.TextPart``); mypy reports the
    defining module (``loomlint.content.parts.TextPart``), and code may import a re-export of
    an ancestor package (``from pydantic_ai import TextPart`` for
    ``pydantic_ai.messages.TextPart``). A name matches an entry when it is the entry, or has
    the same last component inside the entry's package or in one of its ancestor packages.
    """

    names: frozenset[str]

    @classmethod
    def of(cls, names: Iterable[str]) -> QualifiedNames:
        return cls(frozenset(names))

    def __contains__(self, fullname: object) -> bool:
        if not isinstance(fullname, str):
            return False
        # Fact collection asks about every base class of every typed expression: the same
        # few hundred names, hundreds of thousands of times.
        known = self._verdicts.get(fullname)
        if known is None:
            known = self._verdicts[fullname] = self._matches(fullname)
        return known

    @functools.cached_property
    def _verdicts(self) -> dict[str, bool]:
        return {}

    def _matches(self, fullname: str) -> bool:
        if fullname in self.names:
            return True
        module, _, short = fullname.rpartition(".")
        return bool(module) and any(
            module.startswith(package + ".")
            or module == package
            or package.startswith(module + ".")
            for package in self._packages_by_short_name.get(short, ())
        )

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self.names))

    def __len__(self) -> int:
        return len(self.names)

    def __or__(self, other: QualifiedNames) -> QualifiedNames:
        return QualifiedNames(self.names | other.names)

    @property
    def short_names(self) -> frozenset[str]:
        return frozenset(name.rpartition(".")[2] for name in self.names)

    @functools.cached_property
    def _packages_by_short_name(self) -> dict[str, tuple[str, ...]]:
        grouped: dict[str, list[str]] = {}
        for name in self.names:
            package, _, short = name.rpartition(".")
            if package:
                grouped.setdefault(short, []).append(package)
        return {short: tuple(packages) for short, packages in grouped.items()}


@dataclass(frozen=True, slots=True)
class TextParts:
    """The text parts of every active SPI (``[text-part]`` of the presets): what a loop over
    content must not pick, since a string content's characters are never one."""

    classes: QualifiedNames = field(default_factory=lambda: QualifiedNames.of(()))
    bases: QualifiedNames = field(default_factory=lambda: QualifiedNames.of(()))
    keys: frozenset[str] = frozenset()
    # Each discriminating key or attribute with the values that mean a text part.
    types: tuple[tuple[str, frozenset[str]], ...] = ()

    @classmethod
    def merged(cls, shapes: Iterable[TextPartShape]) -> TextParts:
        shapes = tuple(shapes)
        types: dict[str, set[str]] = {}
        for shape in shapes:
            if shape.type_key is not None:
                types.setdefault(shape.type_key, set()).update(shape.types)
        return cls(
            QualifiedNames.of(_ordered_union(shape.classes for shape in shapes)),
            QualifiedNames.of(_ordered_union(shape.bases for shape in shapes)),
            frozenset(_ordered_union(shape.keys for shape in shapes)),
            tuple((key, frozenset(values)) for key, values in sorted(types.items())),
        )

    def type_values(self, key: str) -> frozenset[str] | None:
        """The values of ``key`` that mean a text part; None when no SPI discriminates by it."""
        for name, values in self.types:
            if name == key:
                return values
        return None


@dataclass(frozen=True, slots=True)
class SpiFix:
    """How one SPI reads a message's text safely: an accessor function (``text_of``) or a
    message property (``.text``); neither when it has none (the advice is then to narrow)."""

    accessor: str | None = None
    attribute: str | None = None

    @property
    def label(self) -> str | None:
        """How messages name it: ``text_of(...)``, ``.text``; None when there is none."""
        if self.accessor is not None:
            return f"{self.accessor.rsplit('.', 1)[-1]}(...)"
        if self.attribute is not None:
            return f".{self.attribute}"
        return None


@dataclass(frozen=True, slots=True)
class SpiOwner:
    """One active SPI: its name, the types that are its own (messages, parts, content
    aliases), and its fix."""

    name: str
    types: QualifiedNames
    fix: SpiFix
    # Modules whose import marks a file as using this SPI (``Preset.modules``).
    modules: tuple[str, ...] = ()
    # Whether it declares content of its own (``Preset.owns_content``): one that does not
    # (``mcp``) only says what other reads hold, and advises no fix.
    owns_content: bool = True


@dataclass(frozen=True, slots=True)
class SpiModel:
    """Merged content knowledge of every selected preset and the user's configuration."""

    preset_names: tuple[str, ...]
    # Modules whose import marks a file as using one of the SPIs (syntactic mode evidence).
    modules: tuple[str, ...]
    content_fields: frozenset[str]
    # Type aliases that mean content (``Content``): evidence when no type oracle answers.
    content_types: QualifiedNames
    message_types: QualifiedNames
    part_types: QualifiedNames
    # Classes whose content field is only text, or only a list of parts (syntactic evidence:
    # ``isinstance(p, TextPart)`` or ``response: Message`` says what ``.content`` holds there).
    text_only_types: QualifiedNames
    parts_only_types: QualifiedNames
    # Callables whose argument position is sanctioned: accessors and sanitizers by full name.
    accessors: QualifiedNames
    narrowing: QualifiedNames
    # Attributes or properties of a message that read content safely (msg.text).
    attribute_accessors: frozenset[str]
    # The accessor ``loomlint fix`` inserts, by qualified name (``module.function``).
    fix_accessor: str | None
    # Or the message property ``loomlint fix`` reads instead (``m.content`` -> ``m.text``).
    fix_attribute: str | None = None
    # Whether every active SPI's parts are plain JSON (``json-parts`` in its preset): then
    # json.dumps of content is serialisation, not a bug. Used where no type says otherwise.
    json_parts: bool = False
    # Whether some active SPI has dict messages (``m["content"]``); see ``Preset.dict_messages``.
    dict_messages: bool = True
    # The modules of the SPI whose accessor ``fix_accessor`` is: a file must import one of
    # them for the accessor to be inserted there (``text_of`` knows loomlint's parts, not
    # LangChain's dicts). Empty: no such condition (an SPI that names no modules).
    fix_accessor_modules: tuple[str, ...] = ()
    # Whether the first preset with a fix has the property (it names the fix in messages).
    fix_attribute_first: bool = False
    # Callables, parameters (``module.function.param``) and fields (``module.Class.field``) the
    # user declared content-preserving (``content-preserving``): content passed or stored
    # there is kept whole even where the declared type is ``Any`` or ``object``.
    preserving: QualifiedNames = field(default_factory=lambda: QualifiedNames.of(()))

    def preserves(self, owners: Iterable[str], member: str | None) -> bool:
        """Whether a parameter or field ``member`` of any of ``owners`` (a callee's qualified
        names, a class's MRO) is declared content-preserving, or the owner as a whole is."""
        if not self.preserving:
            return False
        return any(
            owner in self.preserving
            or (member is not None and f"{owner}.{member}" in self.preserving)
            for owner in owners
        )

    # Shapes of reads whose content an SDK declares text only (``Preset.text_only_reads``),
    # or a list of parts only (``Preset.parts_only_reads``).
    text_only_reads: tuple[tuple[str, ...], ...] = ()
    parts_only_reads: tuple[tuple[str, ...], ...] = ()
    # And of reads it declares the union itself (``Preset.content_reads``).
    content_reads: tuple[tuple[str, ...], ...] = ()
    # Keys only one SDK's blocks have, whose content is a list of blocks only
    # (``Preset.parts_only_block_keys``).
    parts_only_block_keys: frozenset[str] = frozenset()
    # Methods whose answer's content is text only (``Preset.text_only_answers``), by the full
    # name of a class of the receiver's MRO and the method's name.
    text_only_answers: frozenset[str] = frozenset()

    @property
    def text_only_answer_methods(self) -> frozenset[str]:
        """The method names of ``text_only_answers``: a call of no other method is none."""
        return frozenset(m.rpartition(".")[2] for m in self.text_only_answers)

    def answers_text_by_name(self, imported_class: str, method: str) -> bool:
        """Whether ``method`` of the class a file imports as ``imported_class`` answers text,
        where no types give the class's own full name: matched as ``QualifiedNames`` match a
        re-export (``langchain_ollama.ChatOllama`` for ``langchain_ollama.chat_models``')."""
        classes = QualifiedNames.of(
            owner
            for owner, _, answered in (m.rpartition(".") for m in self.text_only_answers)
            if answered == method
        )
        return imported_class in classes

    # The text parts of the active SPIs: a loop that picks them out of content loses the text
    # of a string content (``engine.guards``).
    text_parts: TextParts = field(default_factory=TextParts)

    # Settings whose values make content a list of parts (``Preset.parts_when``).
    parts_when: tuple[PartsSetting, ...] = ()

    # Each active SPI with its own types and fix, in preset order: the advice for a value is
    # its owner's (``fix_for``), never another SPI's (no ``.text`` on an ``LlmMessage``).
    owners: tuple[SpiOwner, ...] = ()

    def owner_of(self, type_names: Iterable[str]) -> str | None:
        """The first active SPI one of whose own types is among ``type_names``."""
        names = tuple(type_names)
        if not names or not self.owners:
            return None
        for owner in self.owners:
            if any(name in owner.types for name in names):
                return owner.name
        return None

    def fix_for(
        self,
        owner: str | None,
        *,
        uses_accessor_spi: bool = True,
        imports: Iterable[str] | None = None,
    ) -> SpiFix:
        """The fix to advise for a value of ``owner``'s SPI. With no known owner, the fix all
        active SPIs share, else none: advice that fits another SPI would be wrong.
        ``uses_accessor_spi=False`` (the file imports no module of the SPI of ``fix_accessor``)
        rules that SPI's fix out for a value whose owner is unknown. ``imports`` (the modules
        the file imports) rules out, for such a value, every SPI the file does not import: a
        file that imports no LangChain is not advised LangChain's ``.text``."""
        for candidate in self.owners:
            if candidate.name == owner:
                return candidate.fix
        candidates = [
            candidate
            for candidate in self.owners
            if candidate.owns_content
            and (uses_accessor_spi or candidate.fix.accessor != self.fix_accessor)
        ]
        if imports is not None:
            imported = tuple(imports)
            candidates = [
                candidate
                for candidate in candidates
                if not candidate.modules or imports_any(imported, candidate.modules)
            ]
            if self.owners and not candidates:
                return SpiFix()
        fixes = {candidate.fix for candidate in candidates}
        if len(fixes) == 1:
            return fixes.pop()
        if not self.owners:
            return SpiFix(self.fix_accessor, self.fix_attribute)
        return SpiFix()

    @property
    def has_fixes(self) -> bool:
        """Whether some active SPI has a fix: a value's owner decides whether it applies (a
        file that imports no module of that SPI is not advised it, unless types say the value
        is that SPI's)."""
        return any(candidate.fix.label is not None for candidate in self.owners)

    @property
    def accessor_label(self) -> str | None:
        """How messages name the safe way to read the text: ``text_of(...)``, ``.text``.

        None when the active SPIs name no accessor (the fix is then to narrow the value).
        """
        return self.accessor_label_for(uses_accessor_spi=True)

    def accessor_label_for(self, *, uses_accessor_spi: bool) -> str | None:
        """The label in a file that does, or does not, import the SPI of ``fix_accessor``:
        ``text_of(...)`` is no advice for code that reads another SPI's messages."""
        if uses_accessor_spi and self.fix_accessor is not None and not self.fix_attribute_first:
            return f"{self.fix_accessor.rsplit('.', 1)[-1]}(...)"
        if self.fix_attribute is not None:
            return f".{self.fix_attribute}"
        if uses_accessor_spi and self.fix_accessor is not None:
            return f"{self.fix_accessor.rsplit('.', 1)[-1]}(...)"
        return None

    @property
    def screening_words(self) -> frozenset[str]:
        """Names a file must mention to hold a content origin: the content fields and the
        content types' short names (screening by text and by CPython's parser)."""
        return self.content_fields | self.content_types.short_names

    @property
    def accessor_short_names(self) -> frozenset[str]:
        """Accessors by their last name component, for code the pass cannot resolve."""
        return (self.accessors | self.narrowing).short_names

    def is_accessor(self, fullname: str) -> bool:
        return fullname in self.accessors or fullname in self.narrowing

    def part_type_matches(self, fullnames: Iterable[str]) -> bool:
        """Whether any of ``fullnames`` (a type and its bases) is a declared part type."""
        return any(name in self.part_types for name in fullnames)


def build_spi_model(
    presets: Sequence[Preset],
    *,
    extra_accessors: Sequence[str] = (),
    extra_sanitizers: Sequence[str] = (),
    extra_content_fields: Sequence[str] = (),
    extra_preserving: Sequence[str] = (),
) -> SpiModel:
    """Merge presets (in order) with the user's extra names.

    The first preset with a fix accessor gives the accessor, and the first with a fix property
    gives the property: each is used only on its own SPI's values (see ``fix_accessor_modules``
    and the receiver's declared properties).
    """
    accessor_fixer = next((p for p in presets if p.fix_accessor), None)
    # A preset that only says what other reads hold has no say in how content serialises.
    owning = [p for p in presets if p.owns_content]
    attribute_fixer = next((p for p in presets if p.fix_attribute), None)
    fix_attribute = attribute_fixer.fix_attribute if attribute_fixer is not None else None
    return SpiModel(
        preset_names=tuple(p.name for p in presets),
        modules=_ordered_union(p.modules for p in presets),
        content_fields=frozenset(
            _ordered_union([*(p.content_fields for p in presets), extra_content_fields])
        ),
        content_types=QualifiedNames.of(_ordered_union(p.content_types for p in presets)),
        message_types=QualifiedNames.of(_ordered_union(p.message_types for p in presets)),
        part_types=QualifiedNames.of(_ordered_union(p.part_types for p in presets)),
        text_only_types=QualifiedNames.of(_ordered_union(p.text_only_types for p in presets)),
        parts_only_types=QualifiedNames.of(_ordered_union(p.parts_only_types for p in presets)),
        accessors=QualifiedNames.of(
            _ordered_union([*(p.accessors for p in presets), extra_accessors, extra_sanitizers])
        ),
        narrowing=QualifiedNames.of(_ordered_union(p.narrowing for p in presets)),
        attribute_accessors=frozenset(
            _ordered_union(
                [
                    *(p.attribute_accessors for p in presets),
                    (fix_attribute,) if fix_attribute else (),
                ]
            )
        ),
        fix_accessor=accessor_fixer.fix_accessor if accessor_fixer is not None else None,
        fix_attribute=fix_attribute,
        json_parts=bool(owning) and all(p.json_parts for p in owning),
        dict_messages=not owning or any(p.dict_messages for p in owning),
        fix_accessor_modules=accessor_fixer.modules if accessor_fixer is not None else (),
        fix_attribute_first=attribute_fixer is not None
        and (
            accessor_fixer is None or presets.index(attribute_fixer) < presets.index(accessor_fixer)
        ),
        owners=tuple(
            SpiOwner(
                p.name,
                QualifiedNames.of(
                    _ordered_union(
                        [
                            p.message_types,
                            p.part_types,
                            p.content_types,
                            p.text_only_types,
                            p.parts_only_types,
                        ]
                    )
                ),
                SpiFix(p.fix_accessor, p.fix_attribute),
                p.modules,
                p.owns_content,
            )
            for p in presets
        ),
        preserving=QualifiedNames.of(extra_preserving),
        text_only_reads=tuple(dict.fromkeys(shape for p in presets for shape in p.text_only_reads)),
        parts_only_reads=tuple(
            dict.fromkeys(shape for p in presets for shape in p.parts_only_reads)
        ),
        content_reads=tuple(dict.fromkeys(shape for p in presets for shape in p.content_reads)),
        parts_only_block_keys=frozenset(k for p in presets for k in p.parts_only_block_keys),
        text_only_answers=frozenset(m for p in presets for m in p.text_only_answers),
        text_parts=TextParts.merged(p.text_part for p in presets),
        parts_when=tuple(p.parts_when for p in presets if p.parts_when is not None),
    )


def imports_any(imported: Iterable[str], modules: Sequence[str]) -> bool:
    """Whether one of the ``imported`` names (what a file's imports bind, qualified) is one of
    ``modules`` or inside one."""
    return any(
        name == module
        or name.startswith(module + ".")
        or module.startswith(name + ".")  # `import loomlint.content` binds `loomlint`
        for name in imported
        for module in modules
    )


def _ordered_union(groups: Iterable[Sequence[str]]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for group in groups:
        for name in group:
            seen.setdefault(name, None)
    return tuple(seen)
