"""`to_json`: a message to its wire form, checking the type of every field on the way.

Like `from_json`, the checks are of type only (what a message means is `guard_request`'s job),
so that whatever `to_json` returns, `from_json` reads back and ``json.dumps`` serialises.
"""

from __future__ import annotations

from typing import NoReturn

from loomlint.content.budget import JSONBudget
from loomlint.content.fields import ROLES, UnreadableFieldError, as_role, one_of, read_field
from loomlint.content.json_value import JSONShapeError, JSONTooLargeError, describe, exact_list
from loomlint.content.parts import (
    AudioPart,
    ContentRef,
    DataSource,
    FilePart,
    ImagePart,
    LlmMessage,
    RefSource,
    TextPart,
    ToolResultPart,
    ToolUsePart,
    UntrustedOrigin,
)
from loomlint.content.wire import (
    AudioPartDict,
    ContentRefDict,
    FilePartDict,
    ImagePartDict,
    LlmContentPartDict,
    LlmMessageDict,
    MediaSourceDict,
    ToolResultContentPartDict,
    ToolResultPartDict,
    ToolUsePartDict,
    UntrustedOriginDict,
)

__all__ = ["to_json"]

_MEDIA_CLASSES = (ImagePart, AudioPart, FilePart)


def to_json(message: LlmMessage) -> LlmMessageDict:
    """The wire form of ``message``: plain JSON data with ``type`` discriminants.

    String content stays a string. Nothing is shared with the message: a tool_use input is
    deep-copied (iteratively), so mutating the result never changes the message. Raises
    `ValueError` (and nothing else, on any value) naming the field path and the reason, e.g.
    ``content[1].source.data: expected a string, got 5``: for a field of the wrong type or one
    not set, and for a tool_use input that is not JSON or is over `MAX_TOOL_INPUT_NODES`
    nodes, `MAX_TOOL_INPUT_DEPTH` deep, or (with the message's other inputs)
    `MAX_TOTAL_JSON_NODES` nodes.
    """
    return _message(message)


def _message(message: object) -> LlmMessageDict:
    if not isinstance(message, LlmMessage):
        _fail("message", f"expected an LlmMessage, got {describe(message)}")
    role_value = _field(message, "role", "")
    role = as_role(role_value)
    if role is None:
        _fail("role", f"expected one of {one_of(ROLES)}, got {describe(role_value)}")
    content = _field(message, "content", "")
    if type(content) is str:
        return {"role": role, "content": content}
    items = _list(content, "content", "a string or a list of parts")
    budget = JSONBudget()
    return {
        "role": role,
        "content": [_part(part, f"content[{index}]", budget) for index, part in enumerate(items)],
    }


def _part(part: object, path: str, budget: JSONBudget) -> LlmContentPartDict:
    if isinstance(part, ToolUsePart):
        value = _field(part, "input", path)
        try:
            data = budget.validated(value)
        except JSONShapeError as error:
            _fail(f"{path}.input{error.path}", error.reason)
        except JSONTooLargeError as error:
            _fail(f"{path}.input", error.reason)
        tool_use: ToolUsePartDict = {
            "type": "tool_use",
            "id": _string(part, "id", path),
            "name": _string(part, "name", path),
            "input": data,
        }
        return tool_use
    if isinstance(part, ToolResultPart):
        tool_use_id = _string(part, "tool_use_id", path)
        content = _field(part, "content", path)
        result: ToolResultPartDict = {
            "type": "tool_result",
            "tool_use_id": tool_use_id,
            "content": content if type(content) is str else _result_content(content, path),
        }
        is_error = _field(part, "is_error", path)
        if not isinstance(is_error, bool):
            _fail(f"{path}.is_error", f"expected true or false, got {describe(is_error)}")
        if is_error:
            result["is_error"] = True
        return result
    return _result_part(part, path)


def _result_content(content: object, path: str) -> list[ToolResultContentPartDict]:
    items = _list(content, f"{path}.content", "a string or a list of text and media parts")
    return [_result_part(item, f"{path}.content[{index}]") for index, item in enumerate(items)]


def _result_part(part: object, path: str) -> ToolResultContentPartDict:
    if isinstance(part, TextPart):
        return {"type": "text", "text": _string(part, "text", path)}
    if not isinstance(part, _MEDIA_CLASSES):
        _fail(path, f"expected a content part, got {describe(part)}")
    media_type = _string(part, "media_type", path)
    source = _source(_field(part, "source", path), f"{path}.source")
    untrusted = _untrusted(_field(part, "untrusted", path), f"{path}.untrusted")
    if isinstance(part, ImagePart):
        image: ImagePartDict = {"type": "image", "media_type": media_type, "source": source}
        if untrusted is not None:
            image["untrusted"] = untrusted
        return image
    if isinstance(part, AudioPart):
        audio: AudioPartDict = {"type": "audio", "media_type": media_type, "source": source}
        if untrusted is not None:
            audio["untrusted"] = untrusted
        return audio
    name = _field(part, "name", path)
    if name is not None and type(name) is not str:
        _fail(f"{path}.name", f"expected a string or None, got {describe(name)}")
    file: FilePartDict = {"type": "file", "media_type": media_type, "source": source}
    if untrusted is not None:
        file["untrusted"] = untrusted
    if name is not None:
        file["name"] = name
    return file


def _source(source: object, path: str) -> MediaSourceDict:
    if isinstance(source, RefSource):
        return {"kind": "ref", "ref": _ref(_field(source, "ref", path), f"{path}.ref")}
    if isinstance(source, DataSource):
        return {"kind": "data", "data": _string(source, "data", path)}
    _fail(path, f"expected a RefSource or a DataSource, got {describe(source)}")


def _ref(ref: object, path: str) -> ContentRefDict:
    if not isinstance(ref, ContentRef):
        _fail(path, f"expected a ContentRef, got {describe(ref)}")
    address = _string(ref, "address", path)
    size = _field(ref, "size", path)
    if size is None:
        return {"address": address}
    # Exact int: a bool is an int subclass, but True is not a byte count.
    if not isinstance(size, int) or type(size) is not int:
        _fail(f"{path}.size", f"expected an integer or None, got {describe(size)}")
    return {"address": address, "size": size}


def _untrusted(marker: object, path: str) -> UntrustedOriginDict | None:
    if marker is None:
        return None
    if not isinstance(marker, UntrustedOrigin):
        _fail(path, f"expected an UntrustedOrigin or None, got {describe(marker)}")
    return {"origin": _string(marker, "origin", path)}


def _field(owner: object, name: str, path: str) -> object:
    try:
        return read_field(owner, name)
    except UnreadableFieldError as error:
        _fail(f"{path}.{name}" if path else name, str(error))


def _string(owner: object, name: str, path: str) -> str:
    value = _field(owner, name, path)
    if not isinstance(value, str) or type(value) is not str:
        _fail(f"{path}.{name}" if path else name, f"expected a string, got {describe(value)}")
    return value


def _list(value: object, path: str, expected: str) -> list[object]:
    items = exact_list(value)
    if items is None:
        _fail(path, f"expected {expected}, got {describe(value)}")
    return items


def _fail(path: str, reason: str) -> NoReturn:
    raise ValueError(f"{path}: {reason}")
