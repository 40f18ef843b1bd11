"""Reading content of either form: `text_of`, `to_parts`, `has_structured_parts`, and
`assistant_message_of` (the assistant turn of a response)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from typing_extensions import TypeIs

from loomlint.content.json_value import exact_dict
from loomlint.content.parts import LlmContentPart, LlmMessage, TextPart, ToolUsePart
from loomlint.content.request import LlmResponse
from loomlint.content.wire import LlmContentPartDict

__all__ = ["assistant_message_of", "has_structured_parts", "text_of", "to_parts"]

_PartT = TypeVar("_PartT", bound="LlmContentPart | LlmContentPartDict")


def text_of(content: str | Sequence[LlmContentPart] | Sequence[LlmContentPartDict]) -> str:
    """The text of a content value: a string as is; for parts, the text parts joined with no
    separator, every other part skipped. Never a repr.

    Accepts the wire form too (a list of part dicts, ``m["content"]``), so the same call reads
    ``m.content`` and ``m["content"]``. A tool_result's content is accepted as well.
    """
    if isinstance(content, str):
        return content
    return "".join(_text_of_part(part) for part in content)


def _text_of_part(part: object) -> str:
    if isinstance(part, TextPart):
        return part.text
    fields = exact_dict(part)
    if fields is not None and fields.get("type") == "text":
        text = fields.get("text")
        if isinstance(text, str):
            return text
    return ""


def to_parts(content: str | Sequence[LlmContentPart]) -> list[LlmContentPart]:
    """``content`` as a list of parts: a string ``s`` becomes ``[TextPart(s)]`` (an empty
    string too), a list is copied (the result is always a new list the caller may mutate)."""
    if isinstance(content, str):
        return [TextPart(text=content)]
    return list(content)


def has_structured_parts(content: str | list[_PartT]) -> TypeIs[list[_PartT]]:
    """True when ``content`` is the parts form; narrows it to the list (and, when False, to
    ``str``). For `Content` that is ``TypeIs[list[LlmContentPart]]``; it narrows a tool
    result's content and the wire form's ``m["content"]`` the same way."""
    return isinstance(content, list)


def assistant_message_of(response: LlmResponse) -> LlmMessage:
    """The assistant turn that records ``response`` in a transcript (decision 8).

    With tool calls: a list of parts, a `TextPart` with the response text first when that
    text is non-empty (an empty text part carries nothing and some providers reject it), then
    one `ToolUsePart` per call, in order. Without tool calls: the text as string content,
    since the string form is first-class (decision 1) and keeps a text-only transcript
    byte-identical to what it was before parts existed.
    """
    if not response.tool_calls:
        return LlmMessage(role="assistant", content=response.content)
    parts: list[LlmContentPart] = []
    if response.content:
        parts.append(TextPart(text=response.content))
    parts.extend(
        ToolUsePart(id=call.id, name=call.name, input=call.input) for call in response.tool_calls
    )
    return LlmMessage(role="assistant", content=parts)
