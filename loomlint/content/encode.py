"""`to_json`: a message to its wire form."""

from __future__ import annotations

from loomlint.content.json_value import JSONShapeError, validated_json
from loomlint.content.parts import (
    AudioPart,
    ContentRef,
    FilePart,
    ImagePart,
    LlmContentPart,
    LlmMessage,
    MediaSource,
    RefSource,
    TextPart,
    ToolResultPart,
    ToolUsePart,
)
from loomlint.content.wire import (
    AudioPartDict,
    ContentRefDict,
    FilePartDict,
    ImagePartDict,
    LlmContentPartDict,
    LlmMessageDict,
    MediaSourceDict,
    TextPartDict,
    ToolResultContentPartDict,
    ToolResultPartDict,
    ToolUsePartDict,
)

__all__ = ["to_json"]


def to_json(message: LlmMessage) -> LlmMessageDict:
    """The wire form of ``message``: plain JSON data with ``type`` discriminants.

    String content stays a string. Nothing is shared with the message: a tool_use input is
    deep-copied (iteratively), so mutating the result never changes the message. Raises
    `ValueError` naming the path if a tool_use input is not JSON.
    """
    content = message.content
    if isinstance(content, str):
        return {"role": message.role, "content": content}
    return {
        "role": message.role,
        "content": [_part(part, f"content[{index}]") for index, part in enumerate(content)],
    }


def _part(part: LlmContentPart, path: str) -> LlmContentPartDict:
    if isinstance(part, ToolUsePart):
        try:
            data = validated_json(part.input)
        except JSONShapeError as error:
            raise ValueError(f"{path}.input{error.path}: {error.reason}") from None
        tool_use: ToolUsePartDict = {
            "type": "tool_use",
            "id": part.id,
            "name": part.name,
            "input": data,
        }
        return tool_use
    if isinstance(part, ToolResultPart):
        result: ToolResultPartDict = {
            "type": "tool_result",
            "tool_use_id": part.tool_use_id,
            "content": part.content
            if isinstance(part.content, str)
            else [_result_part(inner) for inner in part.content],
        }
        if part.is_error:
            result["is_error"] = True
        return result
    return _result_part(part)


def _result_part(part: TextPart | ImagePart | AudioPart | FilePart) -> ToolResultContentPartDict:
    if isinstance(part, TextPart):
        text: TextPartDict = {"type": "text", "text": part.text}
        return text
    source = _source(part.source)
    if isinstance(part, ImagePart):
        image: ImagePartDict = {"type": "image", "media_type": part.media_type, "source": source}
        if part.untrusted is not None:
            image["untrusted"] = {"origin": part.untrusted.origin}
        return image
    if isinstance(part, AudioPart):
        audio: AudioPartDict = {"type": "audio", "media_type": part.media_type, "source": source}
        if part.untrusted is not None:
            audio["untrusted"] = {"origin": part.untrusted.origin}
        return audio
    file: FilePartDict = {"type": "file", "media_type": part.media_type, "source": source}
    if part.untrusted is not None:
        file["untrusted"] = {"origin": part.untrusted.origin}
    if part.name is not None:
        file["name"] = part.name
    return file


def _source(source: MediaSource) -> MediaSourceDict:
    if isinstance(source, RefSource):
        return {"kind": "ref", "ref": _ref(source.ref)}
    return {"kind": "data", "data": source.data}


def _ref(ref: ContentRef) -> ContentRefDict:
    if ref.size is None:
        return {"address": ref.address}
    return {"address": ref.address, "size": ref.size}
