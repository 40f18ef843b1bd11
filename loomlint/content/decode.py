"""`from_json`: the wire form back to a message, validating every field on the way.

Validation here is of shape and type, so that `from_json(to_json(m)) == m` for every message
whose fields have their declared types. What a message means in its conversation (placement,
orphan results, media types, base64, caps) is `guard_request`'s job, in one place.
"""

from __future__ import annotations

from typing import NoReturn

from loomlint.content.budget import JSONBudget
from loomlint.content.fields import ROLES, as_role, one_of
from loomlint.content.json_value import (
    JSONShapeError,
    JSONTooLargeError,
    describe,
    exact_dict,
    exact_list,
)
from loomlint.content.parts import (
    AudioPart,
    ContentRef,
    DataSource,
    FilePart,
    ImagePart,
    LlmContentPart,
    LlmMessage,
    MediaSource,
    RefSource,
    TextPart,
    ToolResultContentPart,
    ToolResultPart,
    ToolUsePart,
    UntrustedOrigin,
)

__all__ = ["from_json"]

_PART_TYPES = ("text", "image", "audio", "file", "tool_use", "tool_result")
_RESULT_PART_TYPES = ("text", "image", "audio", "file")
_MEDIA_KEYS = ("type", "media_type", "source")


def from_json(data: object) -> LlmMessage:
    """Read a message from its wire form (`LlmMessageDict`), as `json.loads` returns it.

    Raises `ValueError` (and nothing else, on any input) whose message names the field path
    and the reason, e.g. ``content[2].source.kind: expected 'ref' or 'data', got 'url'``.
    Tool inputs are held to the guard's caps (`MAX_TOOL_INPUT_NODES` nodes and
    `MAX_TOOL_INPUT_DEPTH` deep each, `MAX_TOTAL_JSON_NODES` in all), counting a shared
    sub-structure each time it is reached, so no input makes this slow or large.
    Unknown keys are refused (a misspelt ``mediaType`` is an error, not a silent drop);
    optional keys are absent, never ``null``.
    """
    fields = _object(data, "", required=("role", "content"))
    role = as_role(fields["role"])
    if role is None:
        _fail("role", f"expected one of {one_of(ROLES)}, got {describe(fields['role'])}")
    content = fields["content"]
    if isinstance(content, str) and type(content) is str:
        return LlmMessage(role=role, content=content)
    items = _array(content, "content", "a string or an array of parts")
    budget = JSONBudget()
    parts = [_part(item, f"content[{index}]", budget) for index, item in enumerate(items)]
    return LlmMessage(role=role, content=parts)


def _part(value: object, path: str, budget: JSONBudget) -> LlmContentPart:
    kind = _discriminant(value, path, _PART_TYPES)
    if kind == "tool_use":
        fields = _object(value, path, required=("type", "id", "name", "input"))
        try:
            data = budget.validated(fields["input"])
        except JSONShapeError as error:
            _fail(f"{path}.input{error.path}", error.reason)
        except JSONTooLargeError as error:
            _fail(f"{path}.input", error.reason)
        return ToolUsePart(
            id=_string(fields, "id", path), name=_string(fields, "name", path), input=data
        )
    if kind == "tool_result":
        fields = _object(
            value, path, required=("type", "tool_use_id", "content"), optional=("is_error",)
        )
        is_error = fields.get("is_error", False)
        if not isinstance(is_error, bool):
            _fail(f"{path}.is_error", f"expected true or false, got {describe(is_error)}")
        return ToolResultPart(
            tool_use_id=_string(fields, "tool_use_id", path),
            content=_result_content(fields["content"], f"{path}.content"),
            is_error=is_error,
        )
    return _result_part(value, path)


def _result_content(value: object, path: str) -> str | list[ToolResultContentPart]:
    if isinstance(value, str) and type(value) is str:
        return value
    items = _array(value, path, "a string or an array of text and media parts")
    return [_result_part(item, f"{path}[{index}]") for index, item in enumerate(items)]


def _result_part(value: object, path: str) -> ToolResultContentPart:
    kind = _discriminant(value, path, _RESULT_PART_TYPES)
    if kind == "text":
        fields = _object(value, path, required=("type", "text"))
        return TextPart(text=_string(fields, "text", path))
    if kind == "file":
        fields = _object(value, path, required=_MEDIA_KEYS, optional=("untrusted", "name"))
        name = _string(fields, "name", path) if "name" in fields else None
        return FilePart(
            media_type=_string(fields, "media_type", path),
            source=_source(fields["source"], f"{path}.source"),
            untrusted=_untrusted(fields, path),
            name=name,
        )
    fields = _object(value, path, required=_MEDIA_KEYS, optional=("untrusted",))
    media_type = _string(fields, "media_type", path)
    source = _source(fields["source"], f"{path}.source")
    untrusted = _untrusted(fields, path)
    if kind == "image":
        return ImagePart(media_type=media_type, source=source, untrusted=untrusted)
    return AudioPart(media_type=media_type, source=source, untrusted=untrusted)


def _source(value: object, path: str) -> MediaSource:
    fields = _object(value, path)
    if "kind" not in fields:
        _fail(path, "missing key 'kind'")
    kind = fields["kind"]
    if type(kind) is not str:
        _fail(f"{path}.kind", f"expected 'ref' or 'data', got {describe(kind)}")
    if kind == "data":
        fields = _object(value, path, required=("kind", "data"))
        return DataSource(data=_string(fields, "data", path))
    if kind != "ref":
        _fail(f"{path}.kind", f"expected 'ref' or 'data', got {describe(kind)}")
    fields = _object(value, path, required=("kind", "ref"))
    ref_path = f"{path}.ref"
    ref = _object(fields["ref"], ref_path, required=("address",), optional=("size",))
    size: int | None = None
    if "size" in ref:
        raw_size = ref["size"]
        # bool is an int subclass; the exact-type check refuses true/false as a size.
        if not isinstance(raw_size, int) or type(raw_size) is not int:
            _fail(f"{ref_path}.size", f"expected an integer, got {describe(raw_size)}")
        size = raw_size
    return RefSource(ref=ContentRef(address=_string(ref, "address", ref_path), size=size))


def _untrusted(fields: dict[str, object], path: str) -> UntrustedOrigin | None:
    if "untrusted" not in fields:
        return None
    marker = _object(fields["untrusted"], f"{path}.untrusted", required=("origin",))
    return UntrustedOrigin(origin=_string(marker, "origin", f"{path}.untrusted"))


def _discriminant(value: object, path: str, allowed: tuple[str, ...]) -> str:
    fields = _object(value, path)
    if "type" not in fields:
        _fail(path, "missing key 'type'")
    kind = fields["type"]
    if type(kind) is not str or kind not in allowed:
        _fail(f"{path}.type", f"expected one of {one_of(allowed)}, got {describe(kind)}")
    return kind


def _object(
    value: object, path: str, *, required: tuple[str, ...] = (), optional: tuple[str, ...] = ()
) -> dict[str, object]:
    """``value`` as a JSON object with exactly the ``required`` keys plus any ``optional``.

    Called without keys, it only checks that ``value`` is an object.
    """
    fields = exact_dict(value)
    if fields is None:
        _fail(path or "message", f"expected an object, got {describe(value)}")
    checked: dict[str, object] = {}
    for key, item in fields.items():
        if not isinstance(key, str) or type(key) is not str:
            _fail(path or "message", f"object key {describe(key)} is not a string")
        checked[key] = item
    if not required:
        return checked
    for key in required:
        if key not in checked:
            _fail(path or "message", f"missing key {key!r}")
    for key in checked:
        if key not in required and key not in optional:
            _fail(path or "message", f"unexpected key {describe(key)}")
    return checked


def _array(value: object, path: str, expected: str) -> list[object]:
    items = exact_list(value)
    if items is None:
        _fail(path, f"expected {expected}, got {describe(value)}")
    return items


def _string(fields: dict[str, object], key: str, path: str) -> str:
    value = fields[key]
    if not isinstance(value, str) or type(value) is not str:
        _fail(f"{path}.{key}" if path else key, f"expected a string, got {describe(value)}")
    return value


def _fail(path: str, reason: str) -> NoReturn:
    raise ValueError(f"{path}: {reason}")
