"""text_of, to_parts, has_structured_parts and assistant_message_of."""

from __future__ import annotations

from typing import Any

from loomlint.content import (
    Content,
    ContentRef,
    DataSource,
    ImagePart,
    LlmContentPart,
    LlmMessage,
    LlmResponse,
    RefSource,
    TextPart,
    ToolCall,
    ToolResultPart,
    ToolUsePart,
    Usage,
    assistant_message_of,
    has_structured_parts,
    text_of,
    to_json,
    to_parts,
)

MIXED: list[LlmContentPart] = [
    TextPart("Hello, "),
    ImagePart("image/png", DataSource("QQ==")),
    ToolUsePart("c", "f", {"a": 1}),
    TextPart("world"),
    ToolResultPart("c", [TextPart("inner text is not the message's text")]),
    TextPart(""),
    TextPart("!"),
]


def test_text_of_a_string_is_the_string() -> None:
    assert text_of("") == ""
    assert text_of("[TextPart(text='hi')]") == "[TextPart(text='hi')]"


def test_text_of_parts_joins_text_parts_with_no_separator_and_skips_the_rest() -> None:
    assert text_of(MIXED) == "Hello, world!"
    assert text_of([]) == ""
    assert text_of([ImagePart("image/png", RefSource(ContentRef("a")))]) == ""


def test_text_of_never_returns_a_repr() -> None:
    assert "TextPart" not in text_of(MIXED)
    assert "Part(" not in text_of([ToolUsePart("c", "f", None)])


def test_text_of_reads_the_wire_form_the_same_way() -> None:
    wire = to_json(LlmMessage("user", MIXED))
    assert text_of(wire["content"]) == "Hello, world!"
    malformed: Any = [{"type": "text", "text": 5}, {"type": "text", "text": "x"}]
    assert text_of(malformed) == "x"


def test_text_of_reads_a_tool_results_content() -> None:
    result = ToolResultPart(
        "c", [TextPart("a"), ImagePart("image/png", DataSource("")), TextPart("b")]
    )
    assert text_of(result.content) == "ab"


def test_to_parts_wraps_a_string_in_one_text_part() -> None:
    assert to_parts("hi") == [TextPart("hi")]
    assert to_parts("") == [TextPart("")]


def test_to_parts_returns_a_new_list_of_the_same_parts() -> None:
    parts = to_parts(MIXED)
    assert parts == MIXED
    assert parts is not MIXED
    parts.append(TextPart("x"))
    assert len(MIXED) == 7


def test_has_structured_parts_is_true_exactly_for_lists() -> None:
    content: Content = [TextPart("a")]
    assert has_structured_parts(content)
    assert has_structured_parts([])
    assert not has_structured_parts("a")
    assert not has_structured_parts("")


def test_assistant_message_of_text_and_calls_is_text_then_one_tool_use_per_call() -> None:
    response = LlmResponse(
        content="Looking it up.",
        tool_calls=[ToolCall("c1", "lookup", {"q": "x"}), ToolCall("c2", "fetch", [1])],
        stop_reason="tool_use",
        usage=Usage(input_tokens=3, output_tokens=4),
    )
    assert assistant_message_of(response) == LlmMessage(
        "assistant",
        [
            TextPart("Looking it up."),
            ToolUsePart("c1", "lookup", {"q": "x"}),
            ToolUsePart("c2", "fetch", [1]),
        ],
    )


def test_assistant_message_of_calls_with_empty_text_has_no_empty_text_part() -> None:
    response = LlmResponse(content="", tool_calls=[ToolCall("c1", "f", {})], stop_reason="tool_use")
    assert assistant_message_of(response) == LlmMessage("assistant", [ToolUsePart("c1", "f", {})])


def test_assistant_message_of_a_text_only_response_is_string_content() -> None:
    response = LlmResponse(content="Hi there.", tool_calls=[], stop_reason="end_turn")
    assert assistant_message_of(response) == LlmMessage("assistant", "Hi there.")
    empty = LlmResponse(content="", tool_calls=[], stop_reason="end_turn")
    assert assistant_message_of(empty) == LlmMessage("assistant", "")
