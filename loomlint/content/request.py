"""A model call's request and response (the record's decision 8: the response is unchanged)."""

from __future__ import annotations

from dataclasses import dataclass, field

from loomlint.content.json_value import JSONValue
from loomlint.content.parts import LlmMessage

__all__ = ["LlmRequest", "LlmResponse", "ToolCall", "ToolSpec", "Usage"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool the model may call: its name, a description and a JSON schema for its input."""

    name: str
    description: str
    input_schema: dict[str, JSONValue]


@dataclass(frozen=True, slots=True)
class LlmRequest:
    """What a provider is asked: the messages, an optional system prompt and the tool menu."""

    messages: list[LlmMessage]
    system: str | None = None
    tools: list[ToolSpec] = field(default_factory=lambda: list[ToolSpec]())


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call in a response; `assistant_message_of` turns it into a `ToolUsePart`."""

    id: str
    name: str
    input: JSONValue


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one call."""

    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, slots=True)
class LlmResponse:
    """A provider's answer: text content, tool calls, why it stopped and optional usage."""

    content: str
    tool_calls: list[ToolCall]
    stop_reason: str
    usage: Usage | None = None
