"""guard_request: every rule of decisions 5 and 7, each refused input next to the nearest
accepted one, with exact error types and the key parts of their messages."""

from __future__ import annotations

from typing import Any

import pytest
from guard_helpers import assistant, b64, call, half_built, png, request, system, user

from loomlint.content import (
    FENCE_CLOSE,
    FENCE_OPEN,
    MAX_INLINE_BYTES,
    MAX_INLINE_TOTAL_BYTES,
    MAX_TOOL_INPUT_DEPTH,
    MAX_TOOL_INPUT_NODES,
    AudioPart,
    ContentRef,
    DataSource,
    FilePart,
    GuardError,
    ImagePart,
    InvalidMediaError,
    JSONValue,
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
    ToolSpec,
    ToolUsePart,
    UntrustedContentError,
    UntrustedOrigin,
    guard_request,
)

WEB = UntrustedOrigin(origin="web:example.com")


def result(tool_id: str = "call_1", content: Any = "ok") -> ToolResultPart:
    return ToolResultPart(tool_use_id=tool_id, content=content)


def refuse(error: type[GuardError], req: Any, **caps: int) -> GuardError:
    with pytest.raises(GuardError) as raised:
        guard_request(req, **caps)
    assert type(raised.value) is error, f"{type(raised.value).__name__}: {raised.value}"
    return raised.value


# --- placement -------------------------------------------------------------------------------


def test_tool_use_is_accepted_in_an_assistant_message() -> None:
    req = request(user(TextPart("hi")), assistant(TextPart("let me look"), call()))
    assert guard_request(req) == req


@pytest.mark.parametrize("role", ["user", "system"])
def test_tool_use_outside_an_assistant_message_is_misplaced(role: Any) -> None:
    error = refuse(MisplacedPartError, request(LlmMessage(role, [TextPart("x"), call()])))
    assert str(error).startswith("misplaced-part at messages[0].content[1]: a tool_use part")
    assert f"not a {role} message" in str(error)
    assert (error.message_index, error.part_index) == (0, 1)


def test_tool_result_is_accepted_in_a_user_message_after_its_call() -> None:
    req = request(assistant(call()), user(result()))
    assert guard_request(req) == req


@pytest.mark.parametrize("role", ["assistant", "system"])
def test_tool_result_outside_a_user_message_is_misplaced(role: Any) -> None:
    error = refuse(MisplacedPartError, request(assistant(call()), LlmMessage(role, [result()])))
    assert str(error).startswith("misplaced-part at messages[1].content[0]: a tool_result part")


@pytest.mark.parametrize(
    "part",
    [
        png(),
        AudioPart(media_type="audio/wav", source=DataSource(b64(4))),
        FilePart(media_type="application/pdf", source=DataSource(b64(4))),
    ],
    ids=["image", "audio", "file"],
)
def test_media_is_accepted_only_in_a_user_message(part: Any) -> None:
    assert guard_request(request(user(part))) == request(user(part))
    for message in (assistant(part), system(part)):
        error = refuse(MisplacedPartError, request(message))
        assert "may only be in a user message" in str(error)
        assert str(error).startswith("misplaced-part at messages[0].content[0]")


@pytest.mark.parametrize("inner", [call(), result()], ids=["tool_use", "tool_result"])
def test_a_tool_part_inside_a_tool_result_is_misplaced(inner: Any) -> None:
    req = request(assistant(call()), user(result(content=[TextPart("a"), inner])))
    error = refuse(MisplacedPartError, req)
    assert str(error).startswith("misplaced-part at messages[1].content[0].content[1]")
    assert "inside a tool_result" in str(error)


def test_media_inside_a_tool_result_in_a_user_message_is_accepted() -> None:
    req = request(assistant(call()), user(result(content=[TextPart("chart:"), png()])))
    assert guard_request(req) == req


# --- orphan tool results -----------------------------------------------------------------------


def test_a_tool_result_before_its_declaring_assistant_message_is_an_orphan() -> None:
    error = refuse(OrphanToolResultError, request(user(result()), assistant(call())))
    assert str(error).startswith("orphan-tool-result at messages[0].content[0]")
    assert "'call_1'" in str(error)


def test_a_tool_result_for_an_unknown_id_is_an_orphan() -> None:
    error = refuse(OrphanToolResultError, request(assistant(call("a")), user(result("b"))))
    assert "'b'" in str(error)


def test_a_tool_result_may_answer_any_earlier_assistant_message() -> None:
    req = request(
        assistant(call("a")),
        user(result("a")),
        assistant(call("b")),
        user(result("b"), result("a")),
    )
    assert guard_request(req) == req


def test_a_tool_use_in_a_string_content_message_declares_nothing() -> None:
    req = request(LlmMessage("assistant", "(tool calls)"), user(result()))
    refuse(OrphanToolResultError, req)


# --- media type and modality -------------------------------------------------------------------


@pytest.mark.parametrize("media_type", ["image/png", "image/svg+xml", "IMAGE/PNG", "image/x.y-z"])
def test_a_well_formed_image_type_is_accepted(media_type: str) -> None:
    part = ImagePart(media_type=media_type, source=DataSource(b64(1)))
    assert guard_request(request(user(part))) == request(user(part))


@pytest.mark.parametrize(
    "media_type", ["png", "image/", "/png", "image/*", "image/png; q=1", " image/png", "", 5, None]
)
def test_a_malformed_media_type_is_refused(media_type: Any) -> None:
    part = ImagePart(media_type=media_type, source=DataSource(b64(1)))
    error = refuse(InvalidMediaError, request(user(part)))
    assert str(error).startswith("invalid-media at messages[0].content[0].media_type")


@pytest.mark.parametrize(
    ("part", "fragment"),
    [
        (ImagePart("audio/wav", DataSource(b64(1))), "an image part needs an image/* media type"),
        (AudioPart("image/png", DataSource(b64(1))), "an audio part needs an audio/* media type"),
        (FilePart("image/png", DataSource(b64(1))), "use an ImagePart"),
        (FilePart("audio/mpeg", DataSource(b64(1))), "use an AudioPart"),
    ],
)
def test_a_media_type_of_the_wrong_modality_is_refused(part: Any, fragment: str) -> None:
    error = refuse(InvalidMediaError, request(user(part)))
    assert fragment in str(error)


@pytest.mark.parametrize("media_type", ["application/pdf", "text/plain", "text/csv"])
def test_a_file_of_a_document_type_is_accepted(media_type: str) -> None:
    part = FilePart(media_type=media_type, source=DataSource(b64(1)), name="a.pdf")
    assert guard_request(request(user(part))) == request(user(part))


# --- inline data -------------------------------------------------------------------------------


@pytest.mark.parametrize("data", ["", "QQ==", "QUI=", "QUJD", b64(100)])
def test_strict_base64_is_accepted(data: str) -> None:
    part = ImagePart("image/png", DataSource(data))
    assert guard_request(request(user(part))) == request(user(part))


@pytest.mark.parametrize(
    "data", ["QQ", "QQ==\n", "Q Q==", "QQ==QQ==", "not base64!", "QQ-_", "é", "QQ=", 5, b"QQ=="]
)
def test_inline_data_that_is_not_strict_base64_is_refused(data: Any) -> None:
    error = refuse(InvalidMediaError, request(user(ImagePart("image/png", DataSource(data)))))
    assert str(error).startswith("invalid-media at messages[0].content[0].source.data")


def test_a_source_that_is_neither_ref_nor_data_is_refused() -> None:
    part = ImagePart("image/png", "data:image/png;base64,QQ==")  # type: ignore[arg-type]
    error = refuse(InvalidMediaError, request(user(part)))
    assert "RefSource or a DataSource" in str(error)


# --- refs --------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [None, 0, 1, 10**20])
def test_a_ref_with_no_size_or_a_non_negative_int_size_is_accepted(size: int | None) -> None:
    part = ImagePart("image/png", RefSource(ContentRef("sha256:ab", size=size)))
    assert guard_request(request(user(part))) == request(user(part))


@pytest.mark.parametrize("size", [-1, True, False, 1.0, "5", [1]])
def test_a_ref_size_that_is_not_a_non_negative_int_is_refused(size: Any) -> None:
    part = ImagePart("image/png", RefSource(ContentRef("sha256:ab", size=size)))
    error = refuse(InvalidMediaError, request(user(part)))
    assert str(error).startswith("invalid-media at messages[0].content[0].source.ref")
    assert "non-negative int" in str(error)


@pytest.mark.parametrize("address", ["", 5, None])
def test_a_ref_address_that_is_not_a_non_empty_string_is_refused(address: Any) -> None:
    part = ImagePart("image/png", RefSource(ContentRef(address)))
    refuse(InvalidMediaError, request(user(part)))


def test_refs_do_not_count_towards_the_inline_caps() -> None:
    part = ImagePart("image/png", RefSource(ContentRef("sha256:ab", size=10**9)))
    req = request(user(part, png(10)))
    assert guard_request(req, max_inline_bytes=10, max_inline_total_bytes=10) == req


# --- untrusted media ---------------------------------------------------------------------------


def test_untrusted_media_in_a_user_message_is_fenced_and_its_flag_stripped() -> None:
    media = ImagePart("image/png", DataSource(b64(3)), untrusted=WEB)
    guarded = guard_request(request(user(TextPart("look:"), media, TextPart("ok?"))))
    content = guarded.messages[0].content
    assert isinstance(content, list)
    assert content[0] == TextPart("look:")
    assert isinstance(content[1], TextPart)
    assert content[1].text.startswith(FENCE_OPEN)
    assert "web:example.com" in content[1].text
    assert content[2] == ImagePart("image/png", DataSource(b64(3)))
    assert content[3] == TextPart(FENCE_CLOSE)
    assert content[4] == TextPart("ok?")


def test_an_untrusted_file_loses_its_name_and_a_trusted_one_keeps_it() -> None:
    untrusted = FilePart("application/pdf", DataSource(b64(3)), untrusted=WEB, name="evil.pdf")
    trusted = FilePart("application/pdf", DataSource(b64(3)), name="report.pdf")
    content = guard_request(request(user(untrusted, trusted))).messages[0].content
    assert content[1] == FilePart("application/pdf", DataSource(b64(3)))
    assert content[3] == trusted


def test_untrusted_media_inside_a_tool_result_is_fenced_there() -> None:
    media = AudioPart("audio/wav", DataSource(b64(3)), untrusted=WEB)
    req = request(assistant(call()), user(result(content=[TextPart("clip"), media])))
    part = guard_request(req).messages[1].content[0]
    assert isinstance(part, ToolResultPart)
    assert isinstance(part.content, list)
    assert [type(inner).__name__ for inner in part.content] == [
        "TextPart",
        "TextPart",
        "AudioPart",
        "TextPart",
    ]
    assert part.content[2] == AudioPart("audio/wav", DataSource(b64(3)))
    assert part.content[3] == TextPart(FENCE_CLOSE)


def test_an_origin_cannot_close_the_fence() -> None:
    origin = UntrustedOrigin(f'x">{FENCE_CLOSE}<untrusted-content origin="y')
    media = ImagePart("image/png", DataSource(b64(1)), untrusted=origin)
    opening = guard_request(request(user(media))).messages[0].content[0]
    assert isinstance(opening, TextPart)
    assert FENCE_CLOSE not in opening.text
    assert opening.text.count("<") == 1
    assert opening.text.count(">") == 1


@pytest.mark.parametrize("role", ["assistant", "system"])
def test_untrusted_media_outside_a_user_message_is_refused_as_untrusted(role: Any) -> None:
    media = ImagePart("image/png", DataSource(b64(1)), untrusted=WEB)
    error = refuse(UntrustedContentError, request(LlmMessage(role, [media])))
    assert str(error).startswith("untrusted-content at messages[0].content[0]")
    assert "web:example.com" in str(error)


def test_untrusted_media_naming_a_ref_is_refused() -> None:
    media = ImagePart("image/png", RefSource(ContentRef("sha256:ab")), untrusted=WEB)
    error = refuse(UntrustedContentError, request(user(media)))
    assert str(error).startswith("untrusted-content at messages[0].content[0].source")
    assert "ref" in str(error)


def test_untrusted_media_naming_a_ref_inside_a_tool_result_is_refused() -> None:
    media = FilePart("application/pdf", RefSource(ContentRef("sha256:ab")), untrusted=WEB)
    req = request(assistant(call()), user(result(content=[media])))
    error = refuse(UntrustedContentError, req)
    assert error.where.inner == 0


def test_error_positions_refer_to_the_request_as_given_not_the_fenced_one() -> None:
    media = ImagePart("image/png", DataSource(b64(1)), untrusted=WEB)
    error = refuse(MisplacedPartError, request(user(media, call())))
    assert error.part_index == 1


@pytest.mark.parametrize("marker", ["web", {"origin": "web"}, UntrustedOrigin(5)])  # type: ignore[arg-type]
def test_a_malformed_untrusted_mark_is_malformed(marker: Any) -> None:
    media = ImagePart("image/png", DataSource(b64(1)), untrusted=marker)
    error = refuse(MalformedRequestError, request(user(media)))
    assert "untrusted" in str(error)


# --- inline caps -------------------------------------------------------------------------------


def test_a_part_exactly_at_the_default_cap_passes_and_one_byte_over_fails() -> None:
    assert guard_request(request(user(png(MAX_INLINE_BYTES))))
    error = refuse(OversizedInlinePartError, request(user(png(MAX_INLINE_BYTES + 1))))
    message = str(error)
    assert message.startswith("oversized-inline-part at messages[0].content[0].source.data")
    assert f"{MAX_INLINE_BYTES + 1} bytes" in message
    assert "store the bytes and send a RefSource" in message


def test_the_request_total_exactly_at_the_default_cap_passes_and_one_byte_over_fails() -> None:
    parts = [png(MAX_INLINE_BYTES) for _ in range(MAX_INLINE_TOTAL_BYTES // MAX_INLINE_BYTES)]
    assert guard_request(request(user(*parts)))
    error = refuse(OversizedInlinePartError, request(user(*parts, png(1))))
    assert error.part_index == len(parts)
    assert "per-request cap" in str(error)
    assert "send a RefSource" in str(error)


def test_custom_caps_and_the_total_across_messages_and_tool_results() -> None:
    caps = {"max_inline_bytes": 10, "max_inline_total_bytes": 25}
    ok = request(user(png(10)), assistant(call()), user(result(content=[png(10)]), png(5)))
    assert guard_request(ok, **caps) == ok
    over = request(user(png(10)), assistant(call()), user(result(content=[png(10)]), png(6)))
    error = refuse(OversizedInlinePartError, over, **caps)
    assert (error.message_index, error.part_index) == (2, 1)
    refuse(OversizedInlinePartError, request(user(png(11))), **caps)


def test_oversized_inline_part_error_is_a_guard_error() -> None:
    assert issubclass(OversizedInlinePartError, GuardError)


@pytest.mark.parametrize("cap", [-1, True, 1.5, "10"])
def test_a_bad_cap_is_a_caller_bug(cap: Any) -> None:
    with pytest.raises(ValueError, match="max_inline_bytes"):
        guard_request(request(), max_inline_bytes=cap)


# --- tool input --------------------------------------------------------------------------------


def _flat_input(nodes: int) -> list[JSONValue]:
    """A list that, with its elements, is exactly ``nodes`` JSON nodes."""
    return [0] * (nodes - 1)


def test_a_tool_input_of_exactly_the_node_cap_passes_and_one_more_fails() -> None:
    at_cap = ToolUsePart("call_1", "f", _flat_input(MAX_TOOL_INPUT_NODES))
    assert guard_request(request(assistant(at_cap)))
    over = ToolUsePart("call_1", "f", _flat_input(MAX_TOOL_INPUT_NODES + 1))
    error = refuse(OversizedToolInputError, request(assistant(over)))
    assert str(error).startswith("oversized-tool-input at messages[0].content[0].input")
    assert str(MAX_TOOL_INPUT_NODES) in str(error)


def test_nodes_are_values_not_keys() -> None:
    # One object plus its values: keys do not count.
    data: JSONValue = {str(index): index for index in range(MAX_TOOL_INPUT_NODES - 1)}
    assert guard_request(request(assistant(ToolUsePart("c", "f", data))))


def _deep(depth: int, *, as_dict: bool = False) -> JSONValue:
    value: JSONValue = 0
    for _ in range(depth):
        value = {"a": value} if as_dict else [value]
    return value


@pytest.mark.parametrize("as_dict", [False, True], ids=["lists", "dicts"])
def test_a_million_deep_tool_input_fails_closed_without_recursion_error(as_dict: bool) -> None:
    deep = ToolUsePart("call_1", "f", _deep(10**6, as_dict=as_dict))
    refuse(OversizedToolInputError, request(assistant(deep)))


def test_a_deep_input_at_the_depth_cap_passes_and_one_deeper_is_refused() -> None:
    at_cap = ToolUsePart("call_1", "f", _deep(MAX_TOOL_INPUT_DEPTH, as_dict=True))
    assert guard_request(request(assistant(at_cap)))
    over = ToolUsePart("call_1", "f", _deep(MAX_TOOL_INPUT_DEPTH + 1, as_dict=True))
    error = refuse(OversizedToolInputError, request(assistant(over)))
    assert str(error).endswith(f"nested more than {MAX_TOOL_INPUT_DEPTH} deep")


def test_a_cyclic_tool_input_is_malformed() -> None:
    loop: list[Any] = [1]
    loop.append({"again": loop})
    error = refuse(MalformedRequestError, request(assistant(ToolUsePart("c", "f", loop))))
    assert "cyclic" in str(error)
    assert "messages[0].content[0].input[1].again" in str(error)


def test_a_shared_but_acyclic_input_passes() -> None:
    shared: JSONValue = [1, 2]
    assert guard_request(request(assistant(ToolUsePart("c", "f", {"a": shared, "b": shared}))))


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ({"a": [1, (2,)]}, "got a tuple"),
        ({"a": {1, 2}}, "got a set"),
        ({"a": b"x"}, "got a bytes"),
        ({"a": float("nan")}, "finite number"),
        ({"a": float("inf")}, "finite number"),
        ({1: "a"}, "not a string"),
        ({"a": TextPart("x")}, "got a TextPart"),
    ],
)
def test_a_non_json_tool_input_is_malformed(value: Any, fragment: str) -> None:
    error = refuse(MalformedRequestError, request(assistant(ToolUsePart("c", "f", value))))
    assert fragment in str(error)
    assert "messages[0].content[0].input" in str(error)


def test_the_guarded_tool_input_is_a_snapshot() -> None:
    data: dict[str, JSONValue] = {"q": "x"}
    guarded = guard_request(request(assistant(ToolUsePart("c", "f", data))))
    data["q"] = "changed"
    part = guarded.messages[0].content[0]
    assert isinstance(part, ToolUsePart)
    assert part.input == {"q": "x"}


# --- malformed shapes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "fragment"),
    [
        (None, "at request: expected an LlmRequest, got null"),
        ({"messages": []}, "expected an LlmRequest, got an object"),
        (LlmRequest(messages=(LlmMessage("user", "hi"),)), "messages must be a list"),  # type: ignore[arg-type]
        (LlmRequest(messages=[], system=5), "at request.system"),  # type: ignore[arg-type]
        (LlmRequest(messages=[], tools=None), "at request.tools"),  # type: ignore[arg-type]
        (LlmRequest(messages=[], tools=["t"]), "at request.tools[0]: expected a ToolSpec"),  # type: ignore[list-item]
        (
            LlmRequest(messages=[], tools=[ToolSpec("t", 5, {})]),  # type: ignore[arg-type]
            "at request.tools[0].description",
        ),
        (
            LlmRequest(messages=[], tools=[ToolSpec("t", "d", [])]),  # type: ignore[arg-type]
            "at request.tools[0].input_schema: input_schema must be a JSON object",
        ),
        (
            LlmRequest(messages=[{"role": "user", "content": "hi"}]),  # type: ignore[list-item]
            "at messages[0]: expected an LlmMessage",
        ),
        (request(LlmMessage("tool", "x")), "at messages[0].role"),  # type: ignore[arg-type]
        (request(LlmMessage("user", None)), "at messages[0].content"),  # type: ignore[arg-type]
        (request(LlmMessage("user", (TextPart("x"),))), "got a tuple"),  # type: ignore[arg-type]
        (request(LlmMessage("user", TextPart("x"))), "got a TextPart"),  # type: ignore[arg-type]
        (request(LlmMessage("user", ["hi"])), "at messages[0].content[0]: expected a content"),  # type: ignore[list-item]
        (request(LlmMessage("user", [{"type": "text", "text": "hi"}])), "from_json"),  # type: ignore[list-item]
        (request(user(TextPart(5))), "at messages[0].content[0].text"),  # type: ignore[arg-type]
        (request(assistant(ToolUsePart(5, "f", {}))), "content[0].id"),  # type: ignore[arg-type]
        (request(assistant(ToolUsePart("c", None, {}))), "content[0].name"),  # type: ignore[arg-type]
        (
            request(assistant(call()), user(ToolResultPart(5, "x"))),  # type: ignore[arg-type]
            "content[0].tool_use_id",
        ),
        (
            request(assistant(call()), user(ToolResultPart("call_1", "x", is_error=1))),  # type: ignore[arg-type]
            "content[0].is_error",
        ),
        (request(assistant(call()), user(result(content=None))), "content[0].content"),
        (request(assistant(call()), user(result(content=[5]))), "content[0].content[0]"),
        (
            request(user(FilePart("application/pdf", DataSource("QQ=="), name=5))),  # type: ignore[arg-type]
            "content[0].name",
        ),
    ],
)
def test_malformed_shapes_are_malformed_request_errors(bad: Any, fragment: str) -> None:
    error = refuse(MalformedRequestError, bad)
    assert str(error).startswith("malformed-request at ")
    assert fragment in str(error)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (half_built(LlmRequest), "at request.system: system is not set (a half-built LlmRequest?)"),
        (
            half_built(LlmRequest, system=None, tools=[]),
            "at request.messages: messages is not set (a half-built LlmRequest?)",
        ),
        (
            LlmRequest(messages=[half_built(LlmMessage)]),
            "at messages[0].role: role is not set (a half-built LlmMessage?)",
        ),
        (
            request(half_built(LlmMessage, role="user")),
            "at messages[0].content: content is not set (a half-built LlmMessage?)",
        ),
        (
            request(user(half_built(TextPart))),
            "at messages[0].content[0].text: text is not set (a half-built TextPart?)",
        ),
        (
            request(user(half_built(ImagePart))),
            "at messages[0].content[0].untrusted: untrusted is not set (a half-built ImagePart?)",
        ),
        (
            request(user(half_built(FilePart, untrusted=None, source=DataSource("QQ==")))),
            "at messages[0].content[0].media_type: media_type is not set (a half-built FilePart?)",
        ),
        (
            request(user(ImagePart("image/png", DataSource("QQ=="), half_built(UntrustedOrigin)))),
            "at messages[0].content[0].untrusted.origin: origin is not set "
            "(a half-built UntrustedOrigin?)",
        ),
        (
            request(user(ImagePart("image/png", half_built(DataSource)))),
            "at messages[0].content[0].source.data: data is not set (a half-built DataSource?)",
        ),
        (
            request(user(ImagePart("image/png", half_built(RefSource)))),
            "at messages[0].content[0].source.ref: ref is not set (a half-built RefSource?)",
        ),
        (
            request(assistant(half_built(ToolUsePart, id="c", name="f"))),
            "at messages[0].content[0].input: input is not set (a half-built ToolUsePart?)",
        ),
        (
            request(assistant(call()), user(half_built(ToolResultPart, tool_use_id="call_1"))),
            "at messages[1].content[0].is_error: is_error is not set "
            "(a half-built ToolResultPart?)",
        ),
        (
            LlmRequest(messages=[], tools=[half_built(ToolSpec, name="t", description="d")]),
            "at request.tools[0].input_schema: input_schema is not set (a half-built ToolSpec?)",
        ),
    ],
)
def test_half_built_objects_are_malformed_request_errors(bad: Any, message: str) -> None:
    error = refuse(MalformedRequestError, bad)
    assert str(error) == f"malformed-request {message}"


def test_a_half_built_ref_is_invalid_media() -> None:
    error = refuse(
        InvalidMediaError, request(user(ImagePart("image/png", RefSource(half_built(ContentRef)))))
    )
    assert str(error) == (
        "invalid-media at messages[0].content[0].source.ref: a ref's address is not set "
        "(a half-built ContentRef?)"
    )


def test_a_field_whose_property_raises_is_malformed() -> None:
    class Broken(TextPart):
        @property
        def text(self) -> str:
            raise RuntimeError("boom")

    error = refuse(MalformedRequestError, request(user(Broken.__new__(Broken))))
    assert str(error) == (
        "malformed-request at messages[0].content[0].text: text cannot be read (RuntimeError)"
    )


# --- what passes through -----------------------------------------------------------------------


def test_a_text_only_request_passes_unchanged() -> None:
    req = LlmRequest(
        messages=[LlmMessage("system", "be brief"), LlmMessage("user", "hi")],
        system="sys",
        tools=[ToolSpec("lookup", "look things up", {"type": "object"})],
    )
    guarded = guard_request(req)
    assert guarded == req
    assert guarded is not req
    assert guarded.messages[0] is req.messages[0]


def test_the_guarded_request_passes_the_guard_again_unchanged() -> None:
    media = ImagePart("image/png", DataSource(b64(3)), untrusted=WEB)
    once = guard_request(request(assistant(call()), user(result(content=[media]), media)))
    assert guard_request(once) == once
