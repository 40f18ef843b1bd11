"""The rule catalog: ``rules/`` (packaged as ``loomlint/_rules``) loaded into typed objects.

Everything loomlint knows about content (which rules exist, which callables coerce or sanction
content, which SPIs define content fields and accessors) is data in ``rules/``. This module is
the only reader of that data; the LibCST pass and the mypy plugin both go through it, so they
cannot disagree.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

import loomlint

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

ArgSelector = Literal["first", "all", "after-first", "elements-first"]
SinkRole = Literal["coercion", "use", "sanctioned", "cast"]

_ARG_SELECTORS: tuple[ArgSelector, ...] = ("first", "all", "after-first", "elements-first")
_SINK_ROLES: tuple[SinkRole, ...] = ("coercion", "use", "sanctioned", "cast")


class CatalogError(Exception):
    """The packaged or user-declared catalog data is malformed. The message names file and key."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule's catalog entry: ``rules/<CODE>.toml``."""

    code: str
    name: str
    summary: str
    what: str
    why: str
    example: str
    use_instead: str
    fix_safety: str
    options: str
    known_problems: str
    fixable: bool
    mypy_code: str | None
    # Off until selected by its full code (``selection``), like Ruff's opt-in rules.
    opt_in: bool = False


@dataclass(frozen=True, slots=True)
class Sink:
    """A callable that receives content, and what that does to it (``rules/sinks.toml``)."""

    role: SinkRole
    label: str
    args: ArgSelector
    callee: str | None = None
    method: str | None = None
    fix: bool = False
    narrowing: bool = False
    receiver: re.Pattern[str] | None = None
    # "json" for a JSON serialiser (json.dumps): content there is serialised, not turned into
    # a string; whether that works depends on whether the SPI's parts are JSON already.
    serialises: str | None = None
    # A call that reports a problem (a warning, an error log): a single part named in it is a
    # diagnostic about that part, not a leak of content.
    diagnostic: bool = False
    # A use that only iterates its argument or counts its items (``len``, ``list``): the empty
    # string gives what an empty list gives there.
    items_only: bool = False
    # A use that returns how many items its argument has (``len``): an emptiness test of the
    # result (``len(c) > 0``, ``if len(c)``) is right on both branches, as "" and [] both give 0.
    counts: bool = False

    def matches_method_name(self, name: str) -> bool:
        """Whether a method called ``name`` on an unknown receiver is this sink by name alone."""
        return self.method == name


@dataclass(frozen=True, slots=True)
class TextPartShape:
    """What an SPI's text part is (``[text-part]``), so that a loop over content can be told to
    pick it or not: a string content's characters are never it, so a loop that acts on text
    parts does nothing for a text message (``engine.guards``)."""

    # Its classes (TypedDicts included): ``isinstance(p, TextPart)`` picks it.
    classes: tuple[str, ...] = ()
    # What else it is an instance of at run time (``dict`` for a TypedDict, the SDK's
    # ``BaseModel`` for a model): ``isinstance(p, dict)`` lets it through with every other part,
    # and a test after it that names it (``p["type"] == "text"``) picks it.
    bases: tuple[str, ...] = ()
    # The keys that make a block a text block (its text's): ``"text" in block`` picks it;
    # ``"type" in block`` or ``"image_url" in block`` does not.
    keys: tuple[str, ...] = ()
    # Its discriminating key or attribute and the values that mean the text part:
    # ``block["type"] == "text"``, ``block.get("type") == "text"``, ``block.type == "text"``.
    type_key: str | None = None
    types: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PartsSetting:
    """A setting whose value makes an SPI's messages hold a list of parts (``[parts-when]``):
    LangChain's ``output_version``, whose ``"v1"`` gives a chat model's messages the standard
    content blocks. Code that tests the setting says which branch holds where."""

    # The setting's name, however it is read: a name, an attribute, a key.
    key: str
    # Its values under which content is a list of parts.
    parts: tuple[str, ...]
    # Its other values (content is the union): a test that it is none of them holds only where
    # it is one of ``parts``.
    others: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Preset:
    """An SPI's content fields, types and accessors (``rules/presets/<name>.toml``)."""

    name: str
    description: str
    modules: tuple[str, ...]
    content_fields: tuple[str, ...]
    content_types: tuple[str, ...]
    message_types: tuple[str, ...]
    part_types: tuple[str, ...]
    # Classes whose content field is only text (a response message, a text part) or only a
    # list of parts (Anthropic's response Message): evidence for the syntactic fallback.
    text_only_types: tuple[str, ...]
    parts_only_types: tuple[str, ...]
    accessors: tuple[str, ...]
    narrowing: tuple[str, ...]
    attribute_accessors: tuple[str, ...]
    # What ``loomlint fix`` rewrites a coerced content read to: a function wrapped around it
    # (``text_of(m.content)``), or a property of the message read instead (``m.text``).
    fix_accessor: str | None
    fix_attribute: str | None = None
    # Whether the SPI's parts are plain JSON (dicts, TypedDicts): json.dumps of its content
    # serialises it. Otherwise (dataclass parts) json.dumps raises TypeError on parts.
    json_parts: bool = False
    # Whether messages of this SPI are also dicts (TypedDict wire forms), whose content is read
    # as ``m["content"]`` or ``m.get("content")``. LangChain's messages are objects only: without
    # types, a dict's "content" key in a LangChain codebase is a file's, a search hit's, a tool
    # argument's, not a message's.
    dict_messages: bool = True
    # Reads whose content the SDK declares text only, by their shape: each a path of names
    # and ``[]`` (any index), ending in a content field (``choices[].message.content``). The
    # syntactic fallback judges a read ending in that shape as text (a response, not a request).
    text_only_reads: tuple[tuple[str, ...], ...] = ()
    # Reads whose content the SDK declares a list of blocks only, by their shape (a Bedrock
    # Converse response's ``output.message.content``, ``call_tool().content`` of an MCP session):
    # judged as a list of parts where the receiver's class is unknown (``parts_only_types``).
    parts_only_reads: tuple[tuple[str, ...], ...] = ()
    # Reads whose content the SDK declares the union itself, by their shape (the messages of a
    # LangChain agent's ``invoke()``): where the receiver's type is unknown, they rest on the
    # preset's data as a declared message type's do.
    content_reads: tuple[tuple[str, ...], ...] = ()
    # Keys that only this SDK's blocks have (Bedrock Converse's ``toolUse``, ``cachePoint``):
    # content whose items the code reads by one (``content[0]["toolUse"]``, ``"cachePoint" in
    # content[-1]``, ``for b in content: b.get("toolResult")``) is this SDK's, a list of blocks
    # only, where the receiver's class is unknown.
    parts_only_block_keys: tuple[str, ...] = ()
    # Methods whose answer's content is text only, each ``package.module.Class.method``: the
    # message a receiver of that class (or a subclass) returns, or each it yields, holds a
    # string (ChatOllama's ``invoke`` and ``stream``). Judged with types: mypy names the class.
    text_only_answers: tuple[str, ...] = ()
    text_part: TextPartShape = TextPartShape()
    parts_when: PartsSetting | None = None

    @property
    def owns_content(self) -> bool:
        """Whether the SPI declares content of its own (messages, content aliases, parts): a
        preset without it only says what other reads hold (``mcp``, ``bedrock``), and has no
        say in a run's fix or in how its content serialises."""
        return bool(self.message_types or self.content_types or self.part_types)


@dataclass(frozen=True)
class SinkCatalog:
    """All sinks, indexed for lookup by qualified name and by bare method name."""

    sinks: tuple[Sink, ...]

    @functools.cached_property
    def by_callee(self) -> Mapping[str, Sink]:
        return {s.callee: s for s in self.sinks if s.callee is not None}

    @functools.cached_property
    def by_method(self) -> Mapping[str, Sink]:
        return {s.method: s for s in self.sinks if s.method is not None}

    @functools.cached_property
    def methods_by_name(self) -> Mapping[str, tuple[Sink, ...]]:
        """Sinks that are methods (``Class.method``), keyed by the method's bare name."""
        grouped: dict[str, list[Sink]] = {}
        for sink in self.sinks:
            if sink.callee is not None and _is_method_name(sink.callee):
                grouped.setdefault(sink.callee.rsplit(".", 1)[1], []).append(sink)
        return {name: tuple(group) for name, group in grouped.items()}

    def lookup(self, fullnames: Sequence[str]) -> Sink | None:
        """The sink for the first of ``fullnames`` (a callee and its base-class spellings)."""
        for fullname in fullnames:
            sink = self.by_callee.get(fullname)
            if sink is not None:
                return sink
        return None


def _is_method_name(callee: str) -> bool:
    # "logging.Logger.info" is a method, "logging.info" a function: a class name is capitalised,
    # and builtins.str.* are the methods of a lower-case class.
    parts = callee.split(".")
    return len(parts) >= 3 and (parts[-2][:1].isupper() or callee.startswith("builtins.str."))


@dataclass(frozen=True, slots=True)
class Unrelated:
    """Evidence for the syntactic fallback that a ``.content`` is not message content."""

    modules: tuple[str, ...]
    types: tuple[str, ...]
    # Methods whose result is an instance (or, iterated, instances) of the class passed as their
    # last positional argument (Textual's ``query_one("#id", Static)``).
    lookup_methods: frozenset[str] = frozenset()

    def is_unrelated_module(self, qualified: str) -> bool:
        return any(qualified == m or qualified.startswith(m + ".") for m in self.modules)


@dataclass(frozen=True, slots=True)
class Catalog:
    rules: Mapping[str, Rule]
    sinks: SinkCatalog
    presets: Mapping[str, Preset]
    unrelated: Unrelated

    def rule(self, code: str) -> Rule:
        try:
            return self.rules[code.upper()]
        except KeyError:
            raise CatalogError(f"unknown rule code {code!r}") from None

    @property
    def sdk_modules(self) -> tuple[str, ...]:
        """The modules of every preset, active or not: a file importing one reads an SDK's
        messages (``Evidence.records_hold_other``)."""
        return tuple(module for preset in self.presets.values() for module in preset.modules)


def rules_dir() -> Path:
    """Where the catalog lives: packaged beside the module, or the source tree's ``rules/``."""
    package = Path(loomlint.__file__).parent
    packaged = package / "_rules"
    if packaged.is_dir():
        return packaged
    return package.resolve().parent / "rules"


@functools.cache
def load_catalog(directory: Path | None = None) -> Catalog:
    """Load and validate the whole catalog once per process."""
    root = rules_dir() if directory is None else directory
    rules: dict[str, Rule] = {}
    for path in sorted(root.glob("LML*.toml")):
        rule = _load_rule(path)
        if rule.code != path.stem:
            raise CatalogError(f"{path}: code {rule.code!r} does not match the file name")
        rules[rule.code] = rule
    sinks = _load_sinks(root / "sinks.toml")
    presets: dict[str, Preset] = {}
    for path in sorted((root / "presets").glob("*.toml")):
        preset = preset_from_mapping(_read_toml(path), where=str(path))
        presets[preset.name] = preset
    if not rules:
        raise CatalogError(f"{root}: no rule files (LML*.toml) found")
    unrelated_path = root / "unrelated.toml"
    unrelated_data = _read_toml(unrelated_path)
    _reject_unknown_keys(
        unrelated_data, frozenset({"modules", "types", "lookup-methods"}), str(unrelated_path)
    )
    unrelated = Unrelated(
        modules=_names(unrelated_data, "modules", str(unrelated_path)),
        types=_names(unrelated_data, "types", str(unrelated_path)),
        lookup_methods=frozenset(_names(unrelated_data, "lookup-methods", str(unrelated_path))),
    )
    return Catalog(rules=rules, sinks=sinks, presets=presets, unrelated=unrelated)


def _read_toml(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read catalog file: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{path}: invalid TOML: {exc}") from exc


def _text(data: Mapping[str, object], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise CatalogError(f"{where}: key {key!r} must be a string")
    return value.strip()


def _optional_text(data: Mapping[str, object], key: str, where: str) -> str | None:
    if key not in data:
        return None
    return _text(data, key, where)


def _flag(data: Mapping[str, object], key: str, where: str, default: bool = False) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise CatalogError(f"{where}: key {key!r} must be true or false")
    return value


def _names(data: Mapping[str, object], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key, [])
    items = cast("list[object]", value) if isinstance(value, list) else None
    if items is None or not all(isinstance(item, str) for item in items):
        raise CatalogError(f"{where}: key {key!r} must be a list of strings")
    return tuple(str(item) for item in items)


_RULE_KEYS = frozenset(
    {
        "code",
        "name",
        "summary",
        "what",
        "why",
        "example",
        "use_instead",
        "fix_safety",
        "options",
        "known_problems",
        "fixable",
        "mypy_code",
        "opt_in",
    }
)


def _load_rule(path: Path) -> Rule:
    data = _read_toml(path)
    where = str(path)
    _reject_unknown_keys(data, _RULE_KEYS, where)
    return Rule(
        code=_text(data, "code", where),
        name=_text(data, "name", where),
        summary=_text(data, "summary", where),
        what=_text(data, "what", where),
        why=_text(data, "why", where),
        example=_text(data, "example", where),
        use_instead=_text(data, "use_instead", where),
        fix_safety=_text(data, "fix_safety", where),
        options=_text(data, "options", where),
        known_problems=_text(data, "known_problems", where),
        fixable=_flag(data, "fixable", where),
        mypy_code=_optional_text(data, "mypy_code", where),
        opt_in=_flag(data, "opt_in", where),
    )


_SINK_KEYS = frozenset(
    {
        "callee",
        "method",
        "args",
        "label",
        "fix",
        "narrowing",
        "receiver",
        "serialises",
        "diagnostic",
        "items-only",
        "counts",
    }
)
_SERIALISERS = frozenset({"json"})


def _load_sinks(path: Path) -> SinkCatalog:
    data = _read_toml(path)
    _reject_unknown_keys(data, frozenset(_SINK_ROLES), str(path))
    sinks: list[Sink] = []
    for role in _SINK_ROLES:
        entries = data.get(role, [])
        if not isinstance(entries, list):
            raise CatalogError(f"{path}: [[{role}]] must be an array of tables")
        for index, entry in enumerate(cast("list[object]", entries)):
            where = f"{path}: [[{role}]] #{index + 1}"
            if not isinstance(entry, dict):
                raise CatalogError(f"{where}: must be a table")
            sinks.append(_sink_from_mapping(role, cast("dict[str, object]", entry), where))
    return SinkCatalog(sinks=tuple(sinks))


def _sink_from_mapping(role: SinkRole, entry: Mapping[str, object], where: str) -> Sink:
    _reject_unknown_keys(entry, _SINK_KEYS, where)
    callee = _optional_text(entry, "callee", where)
    method = _optional_text(entry, "method", where)
    if (callee is None) == (method is None):
        raise CatalogError(f"{where}: exactly one of 'callee' and 'method' is required")
    args = _text(entry, "args", where)
    if args not in _ARG_SELECTORS:
        raise CatalogError(f"{where}: key 'args' must be one of {', '.join(_ARG_SELECTORS)}")
    serialises = _optional_text(entry, "serialises", where)
    if serialises is not None and serialises not in _SERIALISERS:
        raise CatalogError(
            f"{where}: key 'serialises' must be one of {', '.join(sorted(_SERIALISERS))}"
        )
    receiver_text = _optional_text(entry, "receiver", where)
    try:
        receiver = re.compile(receiver_text) if receiver_text is not None else None
    except re.error as exc:
        raise CatalogError(
            f"{where}: key 'receiver' is not a valid regular expression: {exc}"
        ) from exc
    return Sink(
        role=role,
        label=_text(entry, "label", where),
        args=args,
        callee=callee,
        method=method,
        fix=_flag(entry, "fix", where),
        narrowing=_flag(entry, "narrowing", where),
        receiver=receiver,
        serialises=serialises,
        diagnostic=_flag(entry, "diagnostic", where),
        items_only=_flag(entry, "items-only", where),
        counts=_flag(entry, "counts", where),
    )


_PRESET_KEYS = frozenset(
    {
        "name",
        "description",
        "modules",
        "content-fields",
        "content-types",
        "message-types",
        "part-types",
        "text-only-types",
        "parts-only-types",
        "accessors",
        "narrowing",
        "attribute-accessors",
        "json-parts",
        "dict-messages",
        "text-only-reads",
        "parts-only-reads",
        "content-reads",
        "parts-only-block-keys",
        "text-only-answers",
        "text-part",
        "parts-when",
        "fix",
    }
)
_TEXT_PART_KEYS = frozenset({"classes", "bases", "keys", "type-key", "types"})


def preset_from_mapping(data: Mapping[str, object], *, where: str) -> Preset:
    """Build a preset from its TOML table (packaged presets and user-declared SPIs alike)."""
    _reject_unknown_keys(data, _PRESET_KEYS, where)
    fix = data.get("fix", {})
    if not isinstance(fix, dict):
        raise CatalogError(f"{where}: key 'fix' must be a table")
    fix_table = cast("dict[str, object]", fix)
    fix_where = f"{where}: [fix]"
    _reject_unknown_keys(fix_table, frozenset({"accessor", "attribute"}), fix_where)
    fix_accessor = _optional_text(fix_table, "accessor", fix_where)
    fix_attribute = _optional_text(fix_table, "attribute", fix_where)
    if fix_accessor is not None and fix_attribute is not None:
        raise CatalogError(f"{fix_where}: give 'accessor' or 'attribute', not both")
    if fix_accessor is not None and not _is_qualified(fix_accessor):
        raise CatalogError(
            f"{fix_where}: key 'accessor' must be a qualified name "
            f"('package.module.function'), got {fix_accessor!r}"
        )
    if fix_attribute is not None and not fix_attribute.isidentifier():
        raise CatalogError(
            f"{fix_where}: key 'attribute' must be an attribute name (e.g. 'text'), "
            f"got {fix_attribute!r}"
        )
    attribute_accessors = _identifiers(
        data, "attribute-accessors", "attribute names (e.g. 'text')", where
    )
    content_fields = _names(data, "content-fields", where)
    text_only_reads = tuple(
        _read_shape(shape, content_fields, f"{where}: key 'text-only-reads'")
        for shape in _names(data, "text-only-reads", where)
    )
    parts_only_reads = tuple(
        _read_shape(shape, content_fields, f"{where}: key 'parts-only-reads'")
        for shape in _names(data, "parts-only-reads", where)
    )
    content_reads = tuple(
        _read_shape(shape, content_fields, f"{where}: key 'content-reads'")
        for shape in _names(data, "content-reads", where)
    )
    parts_only_block_keys = _identifiers(
        data, "parts-only-block-keys", "the keys of a block (e.g. 'toolUse')", where
    )
    text_only_answers = _names(data, "text-only-answers", where)
    for method in text_only_answers:
        if method.count(".") < 2 or not all(part.isidentifier() for part in method.split(".")):
            raise CatalogError(
                f"{where}: key 'text-only-answers' must list methods as "
                f"'package.module.Class.method', got {method!r}"
            )
    return Preset(
        name=_text(data, "name", where),
        description=_text(data, "description", where) if "description" in data else "",
        modules=_names(data, "modules", where),
        content_fields=content_fields,
        content_types=_names(data, "content-types", where),
        message_types=_names(data, "message-types", where),
        part_types=_names(data, "part-types", where),
        text_only_types=_names(data, "text-only-types", where),
        parts_only_types=_names(data, "parts-only-types", where),
        accessors=_names(data, "accessors", where),
        narrowing=_names(data, "narrowing", where),
        attribute_accessors=attribute_accessors,
        fix_accessor=fix_accessor,
        fix_attribute=fix_attribute,
        json_parts=_flag(data, "json-parts", where),
        dict_messages=_flag(data, "dict-messages", where, default=True),
        text_only_reads=text_only_reads,
        parts_only_reads=parts_only_reads,
        content_reads=content_reads,
        parts_only_block_keys=parts_only_block_keys,
        text_only_answers=text_only_answers,
        text_part=_text_part(data, where),
        parts_when=_parts_when(data, where),
    )


def _identifiers(data: Mapping[str, object], key: str, what: str, where: str) -> tuple[str, ...]:
    """A list of names under ``key``, each a Python identifier (an attribute's, a key's)."""
    names = _names(data, key, where)
    for name in names:
        if not name.isidentifier():
            raise CatalogError(f"{where}: key '{key}' must list {what}, got {name!r}")
    return names


def _parts_when(data: Mapping[str, object], where: str) -> PartsSetting | None:
    table = data.get("parts-when")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise CatalogError(f"{where}: key 'parts-when' must be a table")
    entry = cast("dict[str, object]", table)
    where = f"{where}: [parts-when]"
    _reject_unknown_keys(entry, frozenset({"key", "parts", "others"}), where)
    key = _text(entry, "key", where)
    if not key.isidentifier():
        raise CatalogError(f"{where}: key 'key' must be a setting's name, got {key!r}")
    parts = _names(entry, "parts", where)
    if not parts:
        raise CatalogError(f"{where}: key 'parts' must list at least one value")
    others = _names(entry, "others", where)
    if set(parts) & set(others):
        raise CatalogError(f"{where}: a value is in both 'parts' and 'others'")
    return PartsSetting(key, parts, others)


def _text_part(data: Mapping[str, object], where: str) -> TextPartShape:
    table = data.get("text-part", {})
    if not isinstance(table, dict):
        raise CatalogError(f"{where}: key 'text-part' must be a table")
    entry = cast("dict[str, object]", table)
    where = f"{where}: [text-part]"
    _reject_unknown_keys(entry, _TEXT_PART_KEYS, where)
    classes = _names(entry, "classes", where)
    bases = _names(entry, "bases", where)
    for key, names in (("classes", classes), ("bases", bases)):
        for name in names:
            if not _is_qualified(name):
                raise CatalogError(
                    f"{where}: key {key!r} must list qualified names "
                    f"('package.module.Class', 'builtins.dict'), got {name!r}"
                )
    type_key = _optional_text(entry, "type-key", where)
    types = _names(entry, "types", where)
    if (type_key is None) != (not types):
        raise CatalogError(f"{where}: give 'type-key' and 'types' together")
    return TextPartShape(classes, bases, _names(entry, "keys", where), type_key, types)


_READ_SEGMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\(\))?((?:\[\])*)")


def _read_shape(shape: str, content_fields: Sequence[str], where: str) -> tuple[str, ...]:
    """``choices[].message.content`` -> ``("choices", "[]", "message", "content")``; a call
    of a method keeps its parentheses: ``call_tool().content`` -> ``("call_tool()",
    "content")``."""
    segments: list[str] = []
    for piece in shape.split("."):
        matched = _READ_SEGMENT.fullmatch(piece)
        if matched is None:
            raise CatalogError(
                f"{where}: {shape!r} must be names, calls `()` and `[]` joined by dots "
                "(e.g. 'choices[].message.content', 'call_tool().content')"
            )
        segments.append(matched.group(1) + (matched.group(2) or ""))
        segments.extend(["[]"] * (len(matched.group(3)) // 2))
    if len(segments) < 2 or segments[-1] not in content_fields:
        raise CatalogError(
            f"{where}: {shape!r} must end in a content field ({', '.join(content_fields)}) "
            "after at least one other segment"
        )
    return tuple(segments)


def _is_qualified(name: str) -> bool:
    parts = name.split(".")
    return len(parts) >= 2 and all(part.isidentifier() for part in parts)


def _reject_unknown_keys(data: Mapping[str, object], known: frozenset[str], where: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise CatalogError(
            f"{where}: unknown key {unknown[0]!r} (expected one of {', '.join(sorted(known))})"
        )
