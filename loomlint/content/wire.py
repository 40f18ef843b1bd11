"""The wire form: plain-JSON TypedDicts with ``type`` / ``kind`` discriminants.

Keys are the dataclass field names (snake_case, as Anthropic's wire uses). Optional fields are
absent rather than ``null``: ``size``, ``untrusted`` and ``name`` when None, ``is_error`` when
False. `to_json` writes this form and `from_json` reads it back.
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from typing_extensions import NotRequired, TypedDict

from loomlint.content.json_value import JSONValue
from loomlint.content.parts import Role

__all__ = [
    "AudioPartDict",
    "ContentDict",
    "ContentRefDict",
    "DataSourceDict",
    "FilePartDict",
    "ImagePartDict",
    "LlmContentPartDict",
    "LlmMessageDict",
    "MediaSourceDict",
    "RefSourceDict",
    "TextPartDict",
    "ToolResultContentDict",
    "ToolResultContentPartDict",
    "ToolResultPartDict",
    "ToolUsePartDict",
    "UntrustedOriginDict",
]


class ContentRefDict(TypedDict):
    """Wire form of `ContentRef`."""

    address: str
    size: NotRequired[int]


class RefSourceDict(TypedDict):
    """Wire form of `RefSource`: ``{"kind": "ref", "ref": {...}}``."""

    kind: Literal["ref"]
    ref: ContentRefDict


class DataSourceDict(TypedDict):
    """Wire form of `DataSource`: ``{"kind": "data", "data": "<base64>"}``."""

    kind: Literal["data"]
    data: str


MediaSourceDict: TypeAlias = RefSourceDict | DataSourceDict
"""Wire form of `MediaSource`."""


class UntrustedOriginDict(TypedDict):
    """Wire form of `UntrustedOrigin`."""

    origin: str


class TextPartDict(TypedDict):
    """Wire form of `TextPart`."""

    type: Literal["text"]
    text: str


class ImagePartDict(TypedDict):
    """Wire form of `ImagePart`."""

    type: Literal["image"]
    media_type: str
    source: MediaSourceDict
    untrusted: NotRequired[UntrustedOriginDict]


class AudioPartDict(TypedDict):
    """Wire form of `AudioPart`."""

    type: Literal["audio"]
    media_type: str
    source: MediaSourceDict
    untrusted: NotRequired[UntrustedOriginDict]


class FilePartDict(TypedDict):
    """Wire form of `FilePart`."""

    type: Literal["file"]
    media_type: str
    source: MediaSourceDict
    untrusted: NotRequired[UntrustedOriginDict]
    name: NotRequired[str]


class ToolUsePartDict(TypedDict):
    """Wire form of `ToolUsePart`."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: JSONValue


ToolResultContentPartDict: TypeAlias = TextPartDict | ImagePartDict | AudioPartDict | FilePartDict
"""Wire form of `ToolResultContentPart`."""

ToolResultContentDict: TypeAlias = str | list[ToolResultContentPartDict]
"""Wire form of `ToolResultContent`."""


class ToolResultPartDict(TypedDict):
    """Wire form of `ToolResultPart`; its ``"content"`` is a string or a list of part dicts."""

    type: Literal["tool_result"]
    tool_use_id: str
    content: ToolResultContentDict
    is_error: NotRequired[bool]


LlmContentPartDict: TypeAlias = (
    TextPartDict
    | ImagePartDict
    | AudioPartDict
    | FilePartDict
    | ToolUsePartDict
    | ToolResultPartDict
)
"""Wire form of `LlmContentPart`."""

ContentDict: TypeAlias = str | list[LlmContentPartDict]
"""Wire form of `Content`."""


class LlmMessageDict(TypedDict):
    """Wire form of `LlmMessage`: ``{"role": ..., "content": str | [part dicts]}``."""

    role: Role
    content: ContentDict
