"""Small builders shared by the content tests."""

from __future__ import annotations

import base64
from typing import Any

from loomlint.content import (
    DataSource,
    ImagePart,
    LlmContentPart,
    LlmMessage,
    LlmRequest,
    ToolUsePart,
)


def b64(size: int) -> str:
    """Base64 of ``size`` zero bytes."""
    return base64.b64encode(bytes(size)).decode("ascii")


def png(size: int = 8) -> ImagePart:
    """An inline image/png part of ``size`` decoded bytes."""
    return ImagePart(media_type="image/png", source=DataSource(data=b64(size)))


def user(*parts: LlmContentPart) -> LlmMessage:
    return LlmMessage(role="user", content=list(parts))


def assistant(*parts: LlmContentPart) -> LlmMessage:
    return LlmMessage(role="assistant", content=list(parts))


def system(*parts: LlmContentPart) -> LlmMessage:
    return LlmMessage(role="system", content=list(parts))


def request(*messages: LlmMessage) -> LlmRequest:
    return LlmRequest(messages=list(messages))


def call(tool_id: str = "call_1") -> ToolUsePart:
    """A small tool_use part declaring ``tool_id``."""
    return ToolUsePart(id=tool_id, name="lookup", input={"q": "x"})


def half_built(kind: type[Any], **fields: Any) -> Any:
    """An instance of ``kind`` made without ``__init__``: only ``fields`` are set."""
    value = object.__new__(kind)
    for name, field_value in fields.items():
        object.__setattr__(value, name, field_value)
    return value
