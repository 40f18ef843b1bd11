"""to_json / from_json: the exact wire shapes, and from_json's field-path errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from guard_helpers import half_built

from loomlint.content import (
    MAX_TOOL_INPUT_DEPTH,
    AudioPart,
    ContentRef,
    DataSource,
    FilePart,
    ImagePart,
    JSONValue,
    LlmMessage,
    LlmMessageDict,
    RefSource,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    UntrustedOrigin,
    from_json,
    to_json,
)
from loomlint.content.words import with_article

EVERY_PART = LlmMessage(
    role="user",
    content=[
        TextPart("hi"),
        ImagePart("image/png", DataSource("QQ==")),
        AudioPart("audio/wav", RefSource(ContentRef("sha256:ab", size=3)), UntrustedOrigin("web")),
        FilePart("application/pdf", RefSource(ContentRef("sha256:cd")), name="a.pdf"),
        ToolUsePart("call_1", "lookup", {"q": ["x", 1, 2.5, None, True]}),
        ToolResultPart(
            "call_1",
            [TextPart("r"), FilePart("text/plain", DataSource(""), UntrustedOrigin("t"), "n")],
            is_error=True,
        ),
        ToolResultPart("call_2", "plain"),
    ],
)

EVERY_PART_JSON: LlmMessageDict = {
    "role": "user",
    "content": [
        {"type": "text", "text": "hi"},
        {"type": "image", "media_type": "image/png", "source": {"kind": "data", "data": "QQ=="}},
        {
            "type": "audio",
            "media_type": "audio/wav",
            "source": {"kind": "ref", "ref": {"address": "sha256:ab", "size": 3}},
            "untrusted": {"origin": "web"},
        },
        {
            "type": "file",
            "media_type": "application/pdf",
            "source": {"kind": "ref", "ref": {"address": "sha256:cd"}},
            "name": "a.pdf",
        },
        {
            "type": "tool_use",
            "id": "call_1",
            "name": "lookup",
            "input": {"q": ["x", 1, 2.5, None, True]},
        },
        {
            "type": "tool_result",
            "tool_use_id": "call_1",
            "content": [
                {"type": "text", "text": "r"},
                {
                    "type": "file",
                    "media_type": "text/plain",
                    "source": {"kind": "data", "data": ""},
                    "untrusted": {"origin": "t"},
                    "name": "n",
                },
            ],
            "is_error": True,
        },
        {"type": "tool_result", "tool_use_id": "call_2", "content": "plain"},
    ],
}


def test_to_json_writes_the_exact_wire_shape() -> None:
    assert to_json(EVERY_PART) == EVERY_PART_JSON


def test_from_json_reads_it_back() -> None:
    assert from_json(EVERY_PART_JSON) == EVERY_PART
    assert from_json(json.loads(json.dumps(to_json(EVERY_PART)))) == EVERY_PART


def test_string_content_stays_a_string() -> None:
    assert to_json(LlmMessage("assistant", "hello")) == {"role": "assistant", "content": "hello"}
    assert from_json({"role": "system", "content": ""}) == LlmMessage("system", "")


def test_nothing_is_shared_between_a_message_and_its_wire_form() -> None:
    data: dict[str, JSONValue] = {"q": [1]}
    message = LlmMessage("assistant", [ToolUsePart("c", "f", data)])
    wire: Any = to_json(message)
    data["q"] = "changed"
    assert wire["content"][0]["input"] == {"q": [1]}
    source: Any = {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "c", "name": "f", "input": {"q": [1]}}],
    }
    read = from_json(source)
    source["content"][0]["input"]["q"].append(2)
    assert read == LlmMessage("assistant", [ToolUsePart("c", "f", {"q": [1]})])


def test_to_json_refuses_a_non_json_tool_input_naming_the_path() -> None:
    message = LlmMessage("assistant", [TextPart("x"), ToolUsePart("c", "f", {"a": (1,)})])  # type: ignore[dict-item]
    with pytest.raises(
        ValueError, match=r"^content\[1\]\.input\.a: expected a JSON value, got a tuple$"
    ):
        to_json(message)


_PNG = DataSource("QQ==")


@pytest.mark.parametrize(
    ("message", "error"),
    [
        (None, "message: expected an LlmMessage, got null"),
        ({"role": "user", "content": "x"}, "message: expected an LlmMessage, got an object"),
        (LlmMessage(None, "x"), "role: expected one of 'system', 'user' or 'assistant', got null"),  # type: ignore[arg-type]
        (LlmMessage("user", 5), "content: expected a string or a list of parts, got 5"),  # type: ignore[arg-type]
        (LlmMessage("user", ("a",)), "content: expected a string or a list of parts, got a tuple"),  # type: ignore[arg-type]
        (LlmMessage("user", [TextPart("x"), 5]), "content[1]: expected a content part, got 5"),  # type: ignore[list-item]
        (LlmMessage("user", [TextPart(5)]), "content[0].text: expected a string, got 5"),  # type: ignore[arg-type]
        (
            LlmMessage("user", [ImagePart(5, _PNG)]),  # type: ignore[arg-type]
            "content[0].media_type: expected a string, got 5",
        ),
        (
            LlmMessage("user", [ImagePart("image/png", None)]),  # type: ignore[arg-type]
            "content[0].source: expected a RefSource or a DataSource, got null",
        ),
        (
            LlmMessage("user", [ImagePart("image/png", DataSource(b"QQ=="))]),  # type: ignore[arg-type]
            "content[0].source.data: expected a string, got a bytes",
        ),
        (
            LlmMessage("user", [AudioPart("audio/wav", RefSource("sha256:ab"))]),  # type: ignore[arg-type]
            "content[0].source.ref: expected a ContentRef, got 'sha256:ab'",
        ),
        (
            LlmMessage("user", [FilePart("text/plain", RefSource(ContentRef(None)))]),  # type: ignore[arg-type]
            "content[0].source.ref.address: expected a string, got null",
        ),
        (
            LlmMessage("user", [FilePart("text/plain", RefSource(ContentRef("a", "3")))]),  # type: ignore[arg-type]
            "content[0].source.ref.size: expected an integer or None, got '3'",
        ),
        (
            LlmMessage("user", [FilePart("text/plain", RefSource(ContentRef("a", True)))]),
            "content[0].source.ref.size: expected an integer or None, got true",
        ),
        (
            LlmMessage("user", [ImagePart("image/png", _PNG, "web")]),  # type: ignore[arg-type]
            "content[0].untrusted: expected an UntrustedOrigin or None, got 'web'",
        ),
        (
            LlmMessage("user", [ImagePart("image/png", _PNG, UntrustedOrigin(1))]),  # type: ignore[arg-type]
            "content[0].untrusted.origin: expected a string, got 1",
        ),
        (
            LlmMessage("user", [FilePart("text/plain", _PNG, name=3)]),  # type: ignore[arg-type]
            "content[0].name: expected a string or None, got 3",
        ),
        (
            LlmMessage("assistant", [ToolUsePart(1, "f", {})]),  # type: ignore[arg-type]
            "content[0].id: expected a string, got 1",
        ),
        (
            LlmMessage("user", [ToolResultPart("c", 5)]),  # type: ignore[arg-type]
            "content[0].content: expected a string or a list of text and media parts, got 5",
        ),
        (
            LlmMessage("user", [ToolResultPart("c", [ToolUsePart("c", "f", 1)])]),  # type: ignore[list-item]
            "content[0].content[0]: expected a content part, got a ToolUsePart",
        ),
        (
            LlmMessage("user", [ToolResultPart("c", "x", is_error=1)]),  # type: ignore[arg-type]
            "content[0].is_error: expected true or false, got 1",
        ),
        (
            LlmMessage("user", [ToolResultPart(["c"], "x")]),  # type: ignore[arg-type]
            "content[0].tool_use_id: expected a string, got an array",
        ),
        (half_built(LlmMessage), "role: is not set (a half-built LlmMessage?)"),
        (
            half_built(LlmMessage, role="user"),
            "content: is not set (a half-built LlmMessage?)",
        ),
        (
            LlmMessage("user", [half_built(TextPart)]),
            "content[0].text: is not set (a half-built TextPart?)",
        ),
        (
            LlmMessage("user", [half_built(ImagePart, media_type="image/png", source=_PNG)]),
            "content[0].untrusted: is not set (a half-built ImagePart?)",
        ),
        (
            LlmMessage("user", [ImagePart("image/png", half_built(DataSource))]),
            "content[0].source.data: is not set (a half-built DataSource?)",
        ),
        (
            LlmMessage("user", [ImagePart("image/png", RefSource(half_built(ContentRef)))]),
            "content[0].source.ref.address: is not set (a half-built ContentRef?)",
        ),
        (
            LlmMessage("assistant", [half_built(ToolUsePart, id="c", name="f")]),
            "content[0].input: is not set (a half-built ToolUsePart?)",
        ),
    ],
)
def test_to_json_names_the_field_of_a_wrong_type(message: Any, error: str) -> None:
    with pytest.raises(ValueError) as raised:
        to_json(message)
    assert type(raised.value) is ValueError
    assert str(raised.value) == error


def test_to_json_reports_a_field_whose_property_raises() -> None:
    class Broken(TextPart):
        @property
        def text(self) -> str:
            raise KeyError("boom")

    with pytest.raises(ValueError) as raised:
        to_json(LlmMessage("user", [Broken.__new__(Broken)]))
    assert str(raised.value) == "content[0].text: cannot be read (KeyError)"


def _part(**fields: Any) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "text", "text": "ok"}, {"type": "text", "text": "ok"}, fields],
    }


def _image(source: Any, **extra: Any) -> dict[str, Any]:
    return _part(type="image", media_type="image/png", source=source, **extra)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (
            _image({"kind": "url", "url": "https://x"}),
            "content[2].source.kind: expected 'ref' or 'data', got 'url'",
        ),
        (_image({"data": "QQ=="}), "content[2].source: missing key 'kind'"),
        (_image({"kind": 5}), "content[2].source.kind: expected 'ref' or 'data', got 5"),
        (_image({"kind": "data"}), "content[2].source: missing key 'data'"),
        (_image({"kind": "data", "data": 5}), "content[2].source.data: expected a string, got 5"),
        (_image({"kind": "data", "data": "", "x": 1}), "content[2].source: unexpected key 'x'"),
        (
            _image({"kind": "ref", "ref": "sha"}),
            "content[2].source.ref: expected an object, got 'sha'",
        ),
        (
            _image({"kind": "ref", "ref": {"address": "a", "size": True}}),
            "content[2].source.ref.size: expected an integer, got true",
        ),
        (
            _image({"kind": "ref", "ref": {"address": "a", "size": 1.0}}),
            "content[2].source.ref.size: expected an integer, got 1.0",
        ),
        (
            _image({"kind": "ref", "ref": {"address": "a", "size": None}}),
            "content[2].source.ref.size: expected an integer, got null",
        ),
        (
            _image({"kind": "ref", "ref": {"size": 1}}),
            "content[2].source.ref: missing key 'address'",
        ),
        (
            _image({"kind": "data", "data": ""}, untrusted="web"),
            "content[2].untrusted: expected an object, got 'web'",
        ),
        (
            _image({"kind": "data", "data": ""}, untrusted={"origin": None}),
            "content[2].untrusted.origin: expected a string, got null",
        ),
        (_image({"kind": "data", "data": ""}, name="x.png"), "content[2]: unexpected key 'name'"),
        (
            _part(type="image", mediaType="image/png", source={"kind": "data", "data": ""}),
            "content[2]: missing key 'media_type'",
        ),
        (
            _part(
                type="image",
                media_type="image/png",
                source={"kind": "data", "data": ""},
                mediaType="x",
            ),
            "content[2]: unexpected key 'mediaType'",
        ),
        (
            _part(type="video"),
            "content[2].type: expected one of 'text', 'image', 'audio', 'file', 'tool_use' "
            "or 'tool_result', got 'video'",
        ),
        (_part(text="hi"), "content[2]: missing key 'type'"),
        (_part(type=None, text="hi"), "content[2].type: expected one of"),
        (_part(type="text", text=["hi"]), "content[2].text: expected a string, got an array"),
        (_part(type="text"), "content[2]: missing key 'text'"),
        (_part(type="tool_use", id="c", name="f"), "content[2]: missing key 'input'"),
        (
            _part(type="tool_use", id="c", name="f", input={"x": float("nan")}),
            "content[2].input.x: expected a finite number, got nan",
        ),
        (
            _part(type="tool_use", id="c", name="f", input={"a b": [1, {2: 3}]}),
            'content[2].input["a b"][1]: object key 2 is not a string',
        ),
        (
            _part(type="tool_use", id=1, name="f", input=None),
            "content[2].id: expected a string, got 1",
        ),
        (
            _part(type="tool_result", tool_use_id="c", content="x", is_error="yes"),
            "content[2].is_error: expected true or false, got 'yes'",
        ),
        (
            _part(type="tool_result", tool_use_id="c", content=5),
            "content[2].content: expected a string or an array of text and media parts, got 5",
        ),
        (
            _part(
                type="tool_result",
                tool_use_id="c",
                content=[{"type": "tool_use", "id": "c", "name": "f", "input": 1}],
            ),
            "content[2].content[0].type: expected one of 'text', 'image', 'audio' or 'file', "
            "got 'tool_use'",
        ),
        (
            _part(type="tool_result", tool_use_id="c", content=[{"type": "text", "text": 1}]),
            "content[2].content[0].text: expected a string, got 1",
        ),
        (_part(type="tool_result", content="x"), "content[2]: missing key 'tool_use_id'"),
        ([], "message: expected an object, got an array"),
        (None, "message: expected an object, got null"),
        ("hi", "message: expected an object, got 'hi'"),
        ({"role": "user"}, "message: missing key 'content'"),
        ({"content": "x"}, "message: missing key 'role'"),
        ({"role": "user", "content": "x", "name": "bob"}, "message: unexpected key 'name'"),
        (
            {"role": "tool", "content": "x"},
            "role: expected one of 'system', 'user' or 'assistant', got 'tool'",
        ),
        (
            {"role": ["user"], "content": "x"},
            "role: expected one of 'system', 'user' or 'assistant', got an array",
        ),
        ({"role": "user", "content": 5}, "content: expected a string or an array of parts, got 5"),
        (
            {"role": "user", "content": {"type": "text"}},
            "content: expected a string or an array of parts, got an object",
        ),
        ({"role": "user", "content": [5]}, "content[0]: expected an object, got 5"),
        ({"role": "user", 5: "x", "content": "x"}, "message: object key 5 is not a string"),
        (
            {"role": "user", "content": ("a",)},
            "content: expected a string or an array of parts, got a tuple",
        ),
        (
            {"role": "user", "content": [{"type": "text", "text": "x" * 100}, 10**400]},
            "content[1]: expected an object, got a 1329-bit integer",
        ),
    ],
)
def test_from_json_names_the_field_path_and_the_reason(data: Any, error: str) -> None:
    with pytest.raises(ValueError) as raised:
        from_json(data)
    assert type(raised.value) is ValueError
    assert str(raised.value).startswith(error), str(raised.value)


def test_from_json_refuses_a_very_deep_input_without_recursion_error() -> None:
    value: JSONValue = 0
    for _ in range(200_000):
        value = [value]
    with pytest.raises(ValueError) as raised:
        from_json(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "c", "name": "f", "input": value}],
            }
        )
    assert str(raised.value) == f"content[0].input: nested more than {MAX_TOOL_INPUT_DEPTH} deep"


def test_from_json_refuses_a_cyclic_input() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match=r"content\[0\]\.input\[0\]: cyclic"):
        from_json(
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "c", "name": "f", "input": loop}],
            }
        )


def test_from_json_refuses_dict_and_str_subclasses() -> None:
    class Sneaky(dict[str, Any]):
        def items(self) -> Any:
            raise RuntimeError("boom")

    with pytest.raises(ValueError, match=r"message: expected an object, got a Sneaky"):
        from_json(Sneaky(role="user", content="x"))

    class Str(str):
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("boom")

        __hash__ = str.__hash__

    with pytest.raises(ValueError, match=r"role: expected one of .* got a Str"):
        from_json({"role": Str("user"), "content": "x"})


@pytest.mark.parametrize(
    ("part", "described"),
    [(object(), "an object"), (LlmMessage("user", "x"), "an LlmMessage"), (b"x", "a bytes")],
)
def test_a_value_of_the_wrong_type_is_named_with_its_article(part: object, described: str) -> None:
    with pytest.raises(ValueError) as raised:
        to_json(LlmMessage("user", [part]))  # type: ignore[list-item]
    assert str(raised.value) == f"content[0]: expected a content part, got {described}"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("object", "an object"),
        ("int", "an int"),
        ("LlmMessage", "an LlmMessage"),
        ("HTTPError", "an HTTPError"),
        ("PdfPart", "a PdfPart"),
        ("Str", "a Str"),
        ("UserMessage", "a UserMessage"),
        ("UpdateEvent", "an UpdateEvent"),
        ("Message", "a Message"),
        ("Image", "an Image"),
    ],
)
def test_with_article(name: str, expected: str) -> None:
    assert with_article(name) == expected
