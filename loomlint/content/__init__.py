"""loomlint's reference implementation of the LLM message SPI's content types.

A message's ``content`` is ``str | list[LlmContentPart]`` (`Content`). Read it with
`text_of` / `to_parts` / `has_structured_parts`, never as if it were always a string. The wire
form is plain JSON (`to_json` / `from_json`, the ``*Dict`` TypedDicts); `guard_request` and
`assert_request_supported` are the checks a request passes before it reaches a provider.

The names are defined in the submodules (``parts``, ``wire``, ``accessors``, ...) and are all
re-exported here; ``loomlint.content.<Name>`` is the public spelling. ``conformance`` is the kit
a provider adapter runs against the record's cases (``loomlint.content.conformance``).

A library of its own: it imports nothing else of loomlint (an import-linter contract), so that
the linter and the library never depend on each other's internals.
"""

from __future__ import annotations

from loomlint.content.accessors import (
    assistant_message_of,
    has_structured_parts,
    text_of,
    to_parts,
)
from loomlint.content.capabilities import ProviderCapabilities, assert_request_supported
from loomlint.content.decode import from_json
from loomlint.content.encode import to_json
from loomlint.content.errors import (
    GuardError,
    InvalidMediaError,
    MalformedRequestError,
    MisplacedPartError,
    OrphanToolResultError,
    OversizedInlinePartError,
    OversizedToolInputError,
    UnresolvedContentError,
    UnsupportedModalityError,
    UntrustedContentError,
    Where,
)
from loomlint.content.fence import FENCE_CLOSE, FENCE_OPEN
from loomlint.content.guard import guard_request
from loomlint.content.json_value import JSONValue
from loomlint.content.limits import (
    MAX_INLINE_BYTES,
    MAX_INLINE_TOTAL_BYTES,
    MAX_RESOLVED_BYTES,
    MAX_TOOL_INPUT_DEPTH,
    MAX_TOOL_INPUT_NODES,
    MAX_TOTAL_JSON_NODES,
)
from loomlint.content.media import Modality
from loomlint.content.model_families import DEFAULT_BASE_URLS, Vendor, default_capabilities
from loomlint.content.parts import (
    AudioPart,
    Content,
    ContentRef,
    DataSource,
    FilePart,
    ImagePart,
    LlmContentPart,
    LlmMessage,
    MediaPart,
    MediaSource,
    RefSource,
    Role,
    TextPart,
    ToolResultContent,
    ToolResultContentPart,
    ToolResultPart,
    ToolUsePart,
    UntrustedOrigin,
)
from loomlint.content.request import LlmRequest, LlmResponse, ToolCall, ToolSpec, Usage
from loomlint.content.wire import (
    AudioPartDict,
    ContentDict,
    ContentRefDict,
    DataSourceDict,
    FilePartDict,
    ImagePartDict,
    LlmContentPartDict,
    LlmMessageDict,
    MediaSourceDict,
    RefSourceDict,
    TextPartDict,
    ToolResultContentDict,
    ToolResultContentPartDict,
    ToolResultPartDict,
    ToolUsePartDict,
    UntrustedOriginDict,
)

__all__ = [
    "DEFAULT_BASE_URLS",
    "FENCE_CLOSE",
    "FENCE_OPEN",
    "MAX_INLINE_BYTES",
    "MAX_INLINE_TOTAL_BYTES",
    "MAX_RESOLVED_BYTES",
    "MAX_TOOL_INPUT_DEPTH",
    "MAX_TOOL_INPUT_NODES",
    "MAX_TOTAL_JSON_NODES",
    "AudioPart",
    "AudioPartDict",
    "Content",
    "ContentDict",
    "ContentRef",
    "ContentRefDict",
    "DataSource",
    "DataSourceDict",
    "FilePart",
    "FilePartDict",
    "GuardError",
    "ImagePart",
    "ImagePartDict",
    "InvalidMediaError",
    "JSONValue",
    "LlmContentPart",
    "LlmContentPartDict",
    "LlmMessage",
    "LlmMessageDict",
    "LlmRequest",
    "LlmResponse",
    "MalformedRequestError",
    "MediaPart",
    "MediaSource",
    "MediaSourceDict",
    "MisplacedPartError",
    "Modality",
    "OrphanToolResultError",
    "OversizedInlinePartError",
    "OversizedToolInputError",
    "ProviderCapabilities",
    "RefSource",
    "RefSourceDict",
    "Role",
    "TextPart",
    "TextPartDict",
    "ToolCall",
    "ToolResultContent",
    "ToolResultContentDict",
    "ToolResultContentPart",
    "ToolResultContentPartDict",
    "ToolResultPart",
    "ToolResultPartDict",
    "ToolSpec",
    "ToolUsePart",
    "ToolUsePartDict",
    "UnresolvedContentError",
    "UnsupportedModalityError",
    "UntrustedContentError",
    "UntrustedOrigin",
    "UntrustedOriginDict",
    "Usage",
    "Vendor",
    "Where",
    "assert_request_supported",
    "assistant_message_of",
    "default_capabilities",
    "from_json",
    "guard_request",
    "has_structured_parts",
    "text_of",
    "to_json",
    "to_parts",
]
