"""The content part classes, `Content` and `LlmMessage` (the record's decisions 1 and 3).

Frozen, slotted dataclasses: a part is a value. Field names are the Python spelling of the
record's (``mediaType`` -> ``media_type``, ``toolUseId`` -> ``tool_use_id``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias

from loomlint.content.json_value import JSONValue

__all__ = [
    "AudioPart",
    "Content",
    "ContentRef",
    "DataSource",
    "FilePart",
    "ImagePart",
    "LlmContentPart",
    "LlmMessage",
    "MediaPart",
    "MediaSource",
    "RefSource",
    "Role",
    "TextPart",
    "ToolResultContent",
    "ToolResultContentPart",
    "ToolResultPart",
    "ToolUsePart",
    "UntrustedOrigin",
]

Role: TypeAlias = Literal["system", "user", "assistant"]
"""A message's role. There is no tool role: tool results are parts of a user message."""


@dataclass(frozen=True, slots=True)
class ContentRef:
    """A claim-check on stored bytes: the store ``address`` and, optionally, their ``size``."""

    address: str
    size: int | None = None


@dataclass(frozen=True, slots=True)
class RefSource:
    """Media held in the content store, named by ``ref`` (resolved just before the call)."""

    ref: ContentRef


@dataclass(frozen=True, slots=True)
class DataSource:
    """Media inline, as a base64 string in ``data`` (capped by `MAX_INLINE_BYTES`)."""

    data: str


MediaSource: TypeAlias = RefSource | DataSource
"""Where a media part's bytes are: a stored ref or inline base64 data."""


@dataclass(frozen=True, slots=True)
class UntrustedOrigin:
    """Marks a media part as coming from an untrusted party; ``origin`` says which."""

    origin: str


@dataclass(frozen=True, slots=True)
class TextPart:
    """A piece of text."""

    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image: ``media_type`` ``image/...`` and its source."""

    media_type: str
    source: MediaSource
    untrusted: UntrustedOrigin | None = None


@dataclass(frozen=True, slots=True)
class AudioPart:
    """An audio clip: ``media_type`` ``audio/...`` and its source."""

    media_type: str
    source: MediaSource
    untrusted: UntrustedOrigin | None = None


@dataclass(frozen=True, slots=True)
class FilePart:
    """A document (a PDF, a text file): its media type, source and optional file ``name``."""

    media_type: str
    source: MediaSource
    untrusted: UntrustedOrigin | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ToolUsePart:
    """A tool call the model made; only in an assistant message."""

    id: str
    name: str
    input: JSONValue


MediaPart: TypeAlias = ImagePart | AudioPart | FilePart
"""The three media part classes."""

ToolResultContentPart: TypeAlias = TextPart | ImagePart | AudioPart | FilePart
"""What a tool_result's content list may hold: text and media, never tool parts."""

ToolResultContent: TypeAlias = str | list[ToolResultContentPart]
"""A tool_result's content: a string or a list of text and media parts."""


@dataclass(frozen=True, slots=True)
class ToolResultPart:
    """The answer to the tool_use ``tool_use_id``; only in a user message after that call."""

    tool_use_id: str
    content: ToolResultContent
    is_error: bool = False


LlmContentPart: TypeAlias = (
    TextPart | ImagePart | AudioPart | FilePart | ToolUsePart | ToolResultPart
)
"""Any content part."""

Content: TypeAlias = str | list[LlmContentPart]
"""A message's content: a string, or a list of parts. Read it with `text_of` / `to_parts`.

At run time it is the ``types.UnionType`` ``str | list[LlmContentPart]``, for annotations and
``typing.get_args``; it is no ``isinstance`` target (a list's items cannot be checked so:
Python 3.10 raises ``TypeError`` for every value, 3.11 and later for every value but a str).
Tell the branches apart with ``isinstance(c, str)`` or `has_structured_parts`."""


@dataclass(frozen=True, slots=True)
class LlmMessage:
    """One message of a conversation."""

    role: Role
    content: Content
