"""The part classes, aliases, constants and the package's public surface."""

from __future__ import annotations

import dataclasses
import inspect
import typing

import pytest

import loomlint.content as content
from loomlint.content import (
    FENCE_CLOSE,
    FENCE_OPEN,
    MAX_INLINE_BYTES,
    MAX_INLINE_TOTAL_BYTES,
    MAX_RESOLVED_BYTES,
    MAX_TOOL_INPUT_NODES,
    AudioPart,
    Content,
    ContentRef,
    DataSource,
    FilePart,
    GuardError,
    ImagePart,
    InvalidMediaError,
    LlmMessage,
    LlmRequest,
    MalformedRequestError,
    MisplacedPartError,
    OrphanToolResultError,
    OversizedInlinePartError,
    OversizedToolInputError,
    RefSource,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    UnresolvedContentError,
    UnsupportedModalityError,
    UntrustedContentError,
    UntrustedOrigin,
)

PART_CLASSES = [TextPart, ImagePart, AudioPart, FilePart, ToolUsePart, ToolResultPart]


def test_constants_have_the_records_values() -> None:
    assert MAX_INLINE_BYTES == 64 * 1024
    assert MAX_INLINE_TOTAL_BYTES == 256 * 1024
    assert MAX_RESOLVED_BYTES == 32 * 1024 * 1024
    assert MAX_TOOL_INPUT_NODES == 100_000
    assert FENCE_OPEN.startswith("<")
    assert FENCE_CLOSE.startswith("</")


@pytest.mark.parametrize(
    "cls",
    [*PART_CLASSES, ContentRef, RefSource, DataSource, UntrustedOrigin, LlmMessage, LlmRequest],
)
def test_value_classes_are_frozen_slotted_dataclasses(cls: type) -> None:
    assert dataclasses.is_dataclass(cls)
    assert cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert "__slots__" in cls.__dict__


def test_parts_are_immutable_values() -> None:
    part = TextPart("hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        part.text = "changed"  # type: ignore[misc]
    assert part == TextPart(text="hi")
    assert hash(part) == hash(TextPart("hi"))


def test_defaults() -> None:
    image = ImagePart("image/png", DataSource("QQ=="))
    assert image.untrusted is None
    assert FilePart("application/pdf", DataSource("")).name is None
    assert ContentRef("a").size is None
    assert ToolResultPart("c", "x").is_error is False
    request = LlmRequest(messages=[])
    assert request.system is None
    assert request.tools == []
    assert request.tools is not LlmRequest(messages=[]).tools


def test_content_is_a_runtime_union_of_str_and_a_list_of_the_six_parts() -> None:
    assert typing.get_origin(Content) in (typing.Union, __import__("types").UnionType)
    text, listed = typing.get_args(Content)
    assert text is str
    assert typing.get_origin(listed) is list
    assert set(typing.get_args(typing.get_args(listed)[0])) == set(PART_CLASSES)


def test_content_is_no_isinstance_target_on_any_supported_python() -> None:
    # What `Content` promises at run time (its docstring, docs/index.md "Narrowing"): an alias
    # for annotations and typing introspection. isinstance cannot check a list's items, so it
    # refuses the alias: Python 3.10 for every value, 3.11 and later for every value but a str.
    for value in ([TextPart("a")], [], b"x", 1, None):
        with pytest.raises(TypeError, match="parameterized generic"):
            isinstance(value, Content)
    # The checks that narrow it instead.
    assert content.has_structured_parts([TextPart("a")]) is True
    assert content.has_structured_parts("a") is False


def test_guard_errors_share_a_base_and_the_others_stand_apart() -> None:
    for error in (
        MalformedRequestError,
        MisplacedPartError,
        OrphanToolResultError,
        InvalidMediaError,
        UntrustedContentError,
        OversizedInlinePartError,
        OversizedToolInputError,
    ):
        assert issubclass(error, GuardError)
    assert not issubclass(UnsupportedModalityError, GuardError)
    assert not issubclass(UnresolvedContentError, GuardError)
    assert "sha256:ab" in str(UnresolvedContentError("sha256:ab", "absent"))


def test_every_public_name_is_exported_and_documented() -> None:
    for name in content.__all__:
        value = getattr(content, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert value.__doc__, name
    required = [
        "Content",
        "LlmMessage",
        "TextPart",
        "ImagePart",
        "AudioPart",
        "FilePart",
        "ToolUsePart",
        "ToolResultPart",
        "RefSource",
        "DataSource",
        "MediaSource",
        "ContentRef",
        "UntrustedOrigin",
        "LlmContentPart",
        "JSONValue",
        "text_of",
        "to_parts",
        "has_structured_parts",
        "assistant_message_of",
        "guard_request",
        "assert_request_supported",
        "default_capabilities",
        "ProviderCapabilities",
        "to_json",
        "from_json",
        "LlmRequest",
        "ToolSpec",
        "ToolCall",
        "LlmResponse",
        "Usage",
        "TextPartDict",
        "ImagePartDict",
        "AudioPartDict",
        "FilePartDict",
        "ToolUsePartDict",
        "ToolResultPartDict",
        "LlmContentPartDict",
        "LlmMessageDict",
        "ContentDict",
        "RefSourceDict",
        "DataSourceDict",
        "GuardError",
        "MalformedRequestError",
        "MisplacedPartError",
        "OrphanToolResultError",
        "InvalidMediaError",
        "UntrustedContentError",
        "OversizedInlinePartError",
        "OversizedToolInputError",
        "UnsupportedModalityError",
        "UnresolvedContentError",
        "MAX_INLINE_BYTES",
        "MAX_INLINE_TOTAL_BYTES",
        "MAX_RESOLVED_BYTES",
        "MAX_TOOL_INPUT_NODES",
        "FENCE_OPEN",
        "FENCE_CLOSE",
    ]
    for required_name in required:
        assert required_name in content.__all__, required_name
