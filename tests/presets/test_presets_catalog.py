"""The packaged presets as data: they load, every name they give exists in the real SDKs, and
the fix / accessor schema (`[fix] accessor` or `[fix] attribute`) is validated and merged."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any, cast, get_args, get_origin

import pytest
from typing_extensions import (  # as the SDKs declare them
    NotRequired,
    Required,
    get_type_hints,
    is_typeddict,
)

from loomlint.catalog.rules import (
    CatalogError,
    PartsSetting,
    TextPartShape,
    load_catalog,
    preset_from_mapping,
    rules_dir,
)
from loomlint.catalog.spi import QualifiedNames, build_spi_model

PACKAGED = (
    "anthropic",
    "bedrock",
    "cohere",
    "langchain",
    "loom",
    "mcp",
    "openai",
    "pydantic-ai",
    "semantic-kernel",
)
# The presets that only say what other reads hold (``Preset.owns_content`` false): no content
# of their own, so no text part a loop over it could pick.
EVIDENCE_ONLY = ("bedrock", "cohere", "mcp", "semantic-kernel")
# Packages a preset names but the dev extra does not install: LangGraph's prebuilt helpers, and
# the SDKs of the presets that only say what other reads hold (their names were read in mcp
# 2.3, cohere 7.3, semantic-kernel 1.45 and mypy-boto3-bedrock-runtime 1.43).
_OPTIONAL_PACKAGES = frozenset(
    {"langgraph", "mcp", "mcp_types", "cohere", "semantic_kernel", "mypy_boto3_bedrock_runtime"}
)
# Names of recent SDK releases only: on Python 3.10 pip resolves older ones (pydantic-ai-slim
# 2.54 has no StructuredContent). A preset name that is not there simply never matches.
_RECENT_ONLY = frozenset({"pydantic_ai.messages.StructuredContent"})
_NAME_KEYS = (
    "message_types",
    "content_types",
    "part_types",
    "text_only_types",
    "parts_only_types",
    "accessors",
    "narrowing",
)


def test_the_packaged_presets_are_one_file_each() -> None:
    catalog = load_catalog()
    assert sorted(catalog.presets) == list(PACKAGED)
    files = sorted(p.stem for p in (rules_dir() / "presets").glob("*.toml"))
    assert files == list(PACKAGED)


@pytest.mark.parametrize("name", PACKAGED)
def test_every_qualified_name_of_a_preset_exists(name: str) -> None:
    """Presets name public paths of the installed SDKs (the dev extra installs all four)."""
    preset = load_catalog().presets[name]
    missing: list[str] = []
    for key in _NAME_KEYS:
        for qualified in getattr(preset, key):
            module, _, attribute = qualified.rpartition(".")
            if qualified.split(".")[0] in _OPTIONAL_PACKAGES or qualified in _RECENT_ONLY:
                continue
            try:
                getattr(importlib.import_module(module), attribute)
            except (ImportError, AttributeError):
                missing.append(f"{key}: {qualified}")
    if preset.fix_accessor is not None:
        module, _, attribute = preset.fix_accessor.rpartition(".")
        assert hasattr(importlib.import_module(module), attribute)
    assert missing == []


def test_langchain_text_is_a_property_of_every_message() -> None:
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

    preset = load_catalog().presets["langchain"]
    assert preset.fix_attribute == "text"
    assert isinstance(BaseMessage.__dict__["text"], property)
    assert isinstance(BaseMessage.__dict__["content_blocks"], property)
    parts = [{"type": "text", "text": "a"}, {"type": "image", "url": "u"}, "b"]
    assert AIMessage(content=parts).text == "ab"
    assert HumanMessage(content="plain").text == "plain"


def test_each_fix_is_kept_and_the_first_preset_with_one_names_it() -> None:
    presets = load_catalog().presets
    langchain_first = build_spi_model([presets["openai"], presets["langchain"], presets["loom"]])
    assert (langchain_first.fix_accessor, langchain_first.fix_attribute) == (
        "loomlint.content.text_of",
        "text",
    )
    assert langchain_first.fix_accessor_modules == ("loomlint.content",)
    assert langchain_first.accessor_label == ".text"
    assert "text" in langchain_first.attribute_accessors
    loom_first = build_spi_model([presets["loom"], presets["langchain"]])
    assert (loom_first.fix_accessor, loom_first.fix_attribute) == (
        "loomlint.content.text_of",
        "text",
    )
    assert loom_first.accessor_label == "text_of(...)"
    none = build_spi_model([presets["openai"], presets["anthropic"]])
    assert none.accessor_label is None


@pytest.mark.parametrize(
    ("fix", "problem"),
    [
        ({"accessor": "m.text_of", "attribute": "text"}, "not both"),
        ({"attribute": "text()"}, "must be an attribute name"),
        ({"accessor": "text_of"}, "must be a qualified name"),
        ({"method": "text"}, "unknown key 'method'"),
    ],
)
def test_a_malformed_fix_names_the_key(fix: dict[str, object], problem: str) -> None:
    with pytest.raises(CatalogError, match=problem):
        preset_from_mapping({"name": "x", "fix": fix}, where="x.toml")


@pytest.mark.parametrize(
    ("shape", "problem"),
    [
        ("choices[0].message.content", "names, calls `()` and `[]` joined by dots"),
        ("choices[].message.text", "must end in a content field"),
        ("content", "after at least one other segment"),
    ],
)
def test_a_malformed_text_only_read_names_the_key(shape: str, problem: str) -> None:
    data = {"name": "x", "content-fields": ["content"], "text-only-reads": [shape]}
    with pytest.raises(CatalogError, match=re.escape(problem)) as raised:
        preset_from_mapping(data, where="x.toml")
    assert "key 'text-only-reads'" in str(raised.value)


@pytest.mark.parametrize("method", ["invoke", "ChatOllama.invoke", "models.Chat.in voke"])
def test_a_text_only_answer_must_name_a_class_and_its_method(method: str) -> None:
    data = {"name": "x", "text-only-answers": [method]}
    with pytest.raises(CatalogError) as raised:
        preset_from_mapping(data, where="x.toml")
    assert str(raised.value) == (
        "x.toml: key 'text-only-answers' must list methods as "
        f"'package.module.Class.method', got {method!r}"
    )


def test_the_langchain_preset_knows_chatollama_answers_text() -> None:
    answers = load_catalog().presets["langchain"].text_only_answers
    methods = ("invoke", "ainvoke", "stream", "astream")
    assert answers == tuple(f"langchain_ollama.chat_models.ChatOllama.{m}" for m in methods)


def test_a_text_only_answer_is_known_by_the_name_a_file_imports() -> None:
    """Without types, ``from langchain_ollama import ChatOllama`` names the class."""
    spi = build_spi_model([load_catalog().presets["langchain"]])
    assert spi.answers_text_by_name("langchain_ollama.ChatOllama", "invoke")
    assert spi.answers_text_by_name("langchain_ollama.chat_models.ChatOllama", "astream")
    assert not spi.answers_text_by_name("langchain_ollama.ChatOllama", "batch")
    assert not spi.answers_text_by_name("langchain_ollama.OllamaLLM", "invoke")
    assert not spi.answers_text_by_name("langchain_openai.ChatOllama", "invoke")
    assert not spi.answers_text_by_name("ChatOllama", "invoke")


def test_the_openai_preset_knows_its_response_shapes() -> None:
    preset = load_catalog().presets["openai"]
    assert preset.text_only_reads == (
        ("choices", "[]", "message", "content"),
        ("choices", "[]", "delta", "content"),
    )
    assert "litellm" in preset.modules


def test_attribute_accessors_must_be_names() -> None:
    with pytest.raises(CatalogError, match="attribute-accessors"):
        preset_from_mapping({"name": "x", "attribute-accessors": ["m.text"]}, where="x.toml")


def test_presets_doc_covers_every_packaged_preset() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "presets.md").read_text("utf-8")
    for name in PACKAGED:
        assert f"## `{name}`" in doc


def test_a_re_export_of_an_ancestor_package_matches() -> None:
    spi = build_spi_model([load_catalog().presets["pydantic-ai"]])
    assert "pydantic_ai.messages.ThinkingPart" in spi.text_only_types
    assert "pydantic_ai.ThinkingPart" in spi.text_only_types  # from pydantic_ai import ...
    assert "pydantic_ai.messages._parts.ThinkingPart" in spi.text_only_types  # defined there
    assert "pydantic_ai.other.ThinkingPart" not in spi.text_only_types
    assert "ThinkingPart" not in spi.text_only_types


def _declared(qualified: str) -> object:
    module, _, attribute = qualified.rpartition(".")
    return getattr(importlib.import_module(module), attribute)


def _runtime_class(declared: object) -> type:
    """What an instance is at run time: a TypedDict's are dicts."""
    return dict if is_typeddict(declared) else cast("type", declared)


def _fields(declared: object) -> dict[str, object]:
    if hasattr(declared, "model_fields"):
        model_fields = cast("dict[str, Any]", declared.model_fields)
        return {key: field.annotation for key, field in model_fields.items()}
    # typing_extensions': on 3.10 typing's keeps a TypedDict's Required[...] around the type.
    # A dataclass's `_: KW_ONLY` marker is no type: typing refuses it on 3.10.
    return get_type_hints(declared, localns={"KW_ONLY": Any})


def _required_keys(declared: object) -> set[str]:
    """The keys a TypedDict (its string annotations resolved) or a model requires."""
    if not is_typeddict(declared):
        model_fields = cast("dict[str, Any]", cast("Any", declared).model_fields)
        return {key for key, field in model_fields.items() if field.is_required()}
    total = cast("bool", cast("Any", declared).__total__)
    required: set[str] = set()
    for key, hint in get_type_hints(declared, include_extras=True).items():
        marker = get_origin(hint)
        if marker is Required or (total and marker is not NotRequired):
            required.add(key)
    return required


def test_only_the_presets_owning_content_have_a_text_part() -> None:
    presets = load_catalog().presets
    assert [name for name in PACKAGED if not presets[name].owns_content] == list(EVIDENCE_ONLY)
    assert {presets[name].text_part for name in EVIDENCE_ONLY} == {TextPartShape()}


@pytest.mark.parametrize("name", [name for name in PACKAGED if name not in EVIDENCE_ONLY])
def test_the_text_part_of_a_preset_is_the_sdks(name: str) -> None:
    """`[text-part]` is the SDK's text part as it is: each of its classes is a part type of
    the preset, everything else it is an instance of at run time is a listed base (and every
    base is one), the key of its text is one every TypedDict and model of it requires, and its
    discriminator's Literal is among the listed values."""
    preset = load_catalog().presets[name]
    shape = preset.text_part
    assert shape.classes, "no text part class"
    bases = QualifiedNames.of(shape.bases)
    instance_of: set[type] = set()
    for qualified in shape.classes:
        assert qualified in preset.part_types
        cls = _declared(qualified)
        runtime = _runtime_class(cls)
        for base in runtime.__mro__[0 if runtime is dict else 1 : -1]:
            assert f"{base.__module__}.{base.__qualname__}" in bases, (qualified, base)
            instance_of.add(base)
        fields = _fields(cls)
        if is_typeddict(cls) or hasattr(cls, "model_fields"):
            assert set(shape.keys) <= _required_keys(cls), qualified
        if shape.type_key is not None and shape.type_key in fields:
            assert set(get_args(fields[shape.type_key])) <= set(shape.types), qualified
    assert {_declared(base) for base in shape.bases} == instance_of


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ([], "key 'text-part' must be a table"),
        ({"class": ["a.B"]}, "unknown key 'class'"),
        ({"classes": ["TextPart"]}, "must list qualified names"),
        ({"classes": "a.B"}, "key 'classes' must be a list of strings"),
        ({"bases": ["dict"]}, "key 'bases' must list qualified names"),
        ({"type-key": "type"}, "give 'type-key' and 'types' together"),
        ({"types": ["text"]}, "give 'type-key' and 'types' together"),
    ],
)
def test_a_malformed_text_part_names_the_key(table: object, problem: str) -> None:
    with pytest.raises(CatalogError, match=re.escape(problem)):
        preset_from_mapping({"name": "x", "text-part": table}, where="x.toml")


def test_the_text_parts_of_the_active_presets_merge() -> None:
    presets = load_catalog().presets
    spi = build_spi_model([presets["openai"], presets["pydantic-ai"]])
    assert spi.text_parts.type_values("type") == {"text", "input_text", "output_text"}
    assert spi.text_parts.type_values("kind") == {"text-content"}
    assert spi.text_parts.type_values("role") is None
    assert "openai.types.chat.ChatCompletionContentPartTextParam" in spi.text_parts.classes
    assert "loomlint.content.TextPart" not in spi.text_parts.classes
    assert "builtins.dict" in spi.text_parts.bases
    assert "builtins.dict" not in spi.text_parts.classes
    assert spi.text_parts.keys == {"text"}


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ("output_version", "key 'parts-when' must be a table"),
        ({"key": "v", "parts": ["v1"], "other": ["v0"]}, "unknown key 'other'"),
        ({"parts": ["v1"]}, "key 'key'"),
        ({"key": "a.b", "parts": ["v1"]}, "key 'key' must be a setting's name, got 'a.b'"),
        ({"key": "v", "parts": []}, "key 'parts' must list at least one value"),
        ({"key": "v", "parts": "v1"}, "key 'parts' must be a list of strings"),
        ({"key": "v", "parts": ["v1"], "others": ["v1"]}, "in both 'parts' and 'others'"),
    ],
)
def test_a_malformed_parts_setting_names_the_key(table: object, problem: str) -> None:
    with pytest.raises(CatalogError, match=re.escape(problem)):
        preset_from_mapping({"name": "x", "parts-when": table}, where="x.toml")


def test_langchain_names_the_output_version_that_gives_lists_of_parts() -> None:
    presets = load_catalog().presets
    setting = PartsSetting("output_version", ("v1", "responses/v1"), ("v0",))
    assert presets["langchain"].parts_when == setting
    spi = build_spi_model([presets["langchain"], presets["openai"]])
    assert spi.parts_when == (setting,)
    assert build_spi_model([presets["openai"]]).parts_when == ()
