"""`guard_request`: the record's decision 5 and 7 checks, in one walk over a request.

Placement (which role may carry which part), orphan tool results, media type and modality,
base64, ref sizes, provenance of untrusted media (fenced in a user message, refused anywhere
else or when it names a ref), the inline byte caps, and a bounded iterative walk of tool
inputs. Every internal helper takes ``object`` and checks the type itself, and every field is
read through `read_field`: the guard's promise is to raise nothing but a `GuardError`
subclass, whatever it is handed, a half-built object included.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from loomlint.content.budget import JSONBudget
from loomlint.content.errors import (
    InvalidMediaError,
    MalformedRequestError,
    MisplacedPartError,
    OrphanToolResultError,
    OversizedInlinePartError,
    OversizedToolInputError,
    UntrustedContentError,
    Where,
)
from loomlint.content.fence import fence_close, fence_open
from loomlint.content.fields import UnreadableFieldError, as_role, read_field
from loomlint.content.json_value import (
    JSONShapeError,
    JSONTooLargeError,
    describe,
    exact_dict,
    exact_list,
)
from loomlint.content.limits import MAX_INLINE_BYTES, MAX_INLINE_TOTAL_BYTES
from loomlint.content.media import (
    check_base64,
    inline_size,
    media_type_problem,
    modality_of,
    ref_problem,
)
from loomlint.content.parts import (
    AudioPart,
    DataSource,
    FilePart,
    ImagePart,
    LlmContentPart,
    LlmMessage,
    MediaPart,
    RefSource,
    Role,
    TextPart,
    ToolResultContentPart,
    ToolResultPart,
    ToolUsePart,
    UntrustedOrigin,
)
from loomlint.content.request import LlmRequest, ToolSpec

__all__ = ["guard_request"]

_REMEDY = "store the bytes and send a RefSource(ContentRef(address)) instead of inline data"


def guard_request(
    request: LlmRequest,
    *,
    max_inline_bytes: int = MAX_INLINE_BYTES,
    max_inline_total_bytes: int = MAX_INLINE_TOTAL_BYTES,
) -> LlmRequest:
    """``request`` as a provider may see it, or a `GuardError` naming the rule broken.

    Returns a new request: untrusted media in a user message (top level or inside a
    tool_result) is bracketed by `FENCE_OPEN` / `FENCE_CLOSE` text parts with its
    ``untrusted`` flag stripped and, for a file, its ``name`` dropped; tool inputs are the
    validated copies. Raises (all `GuardError` subclasses, and nothing else for any request):

    - `MisplacedPartError`: tool_use outside an assistant message, tool_result outside a user
      message, media outside a user message, a tool part inside a tool_result;
    - `OrphanToolResultError`: a tool_result whose id no earlier assistant message declared;
    - `InvalidMediaError`: a malformed media type or one of the wrong modality, inline data
      that is not strict base64, a ref whose address is empty or whose size is not a
      non-negative int;
    - `UntrustedContentError`: an untrusted part outside a user message, or naming a ref;
    - `OversizedInlinePartError`: a part over ``max_inline_bytes`` decoded, or the request's
      inline parts over ``max_inline_total_bytes`` in total (exactly at a cap passes), judged
      from the base64 length before anything is decoded;
    - `OversizedToolInputError`: a tool_use input over `MAX_TOOL_INPUT_NODES` nodes or
      `MAX_TOOL_INPUT_DEPTH` deep (deeper than ``json.dumps`` can be trusted to serialise),
      or that takes the request's tool inputs and schemas over `MAX_TOTAL_JSON_NODES` nodes
      (a sub-structure shared N times counts N times);
    - `MalformedRequestError`: anything not of the SPI's shape (a wrong type in a field, a
      field not set on a half-built object, a non-part in a content list, a role outside the
      three, a non-JSON or cyclic tool input, a tool schema over the JSON caps).

    The caps themselves must be non-negative ints (else `ValueError`: a caller bug, not a bad
    request).
    """
    _check_cap("max_inline_bytes", max_inline_bytes)
    _check_cap("max_inline_total_bytes", max_inline_total_bytes)
    walk = _Walk(max_inline_bytes=max_inline_bytes, max_inline_total_bytes=max_inline_total_bytes)
    return walk.request(request)


def _check_cap(name: str, cap: object) -> None:
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 0:
        raise ValueError(f"{name} must be a non-negative int, got {cap!r}")


@dataclass
class _Walk:
    """State carried through one request: the caps, declared tool_use ids, inline total."""

    max_inline_bytes: int
    max_inline_total_bytes: int
    declared_ids: set[str] = field(default_factory=lambda: set[str]())
    inline_total: int = 0
    json_budget: JSONBudget = field(default_factory=JSONBudget)

    def request(self, request: object) -> LlmRequest:
        if not isinstance(request, LlmRequest):
            raise MalformedRequestError(f"expected an LlmRequest, got {describe(request)}")
        system = _field(request, "system", Where())
        if system is not None and type(system) is not str:
            raise MalformedRequestError(
                f"system must be a string or None, got {describe(system)}", Where(field="system")
            )
        raw_messages = _field(request, "messages", Where())
        messages = exact_list(raw_messages)
        if messages is None:
            raise MalformedRequestError(
                f"messages must be a list, got {describe(raw_messages)}",
                Where(field="messages"),
            )
        tools = self.tools(_field(request, "tools", Where()))
        guarded = [self.message(index, message) for index, message in enumerate(messages)]
        return LlmRequest(messages=guarded, system=system, tools=tools)

    def message(self, index: int, message: object) -> LlmMessage:
        where = Where(message=index)
        if not isinstance(message, LlmMessage):
            raise MalformedRequestError(f"expected an LlmMessage, got {describe(message)}", where)
        role = _role(_field(message, "role", where), where)
        content = _field(message, "content", where)
        if type(content) is str:
            return message
        items = exact_list(content)
        if items is None:
            raise MalformedRequestError(
                f"content must be a string or a list of parts, got {describe(content)}",
                where.at("content"),
            )
        parts: list[LlmContentPart] = []
        for part_index, part in enumerate(items):
            parts.extend(self.part(role, part, Where(message=index, part=part_index)))
        return LlmMessage(role=role, content=parts)

    def part(self, role: Role, part: object, where: Where) -> list[LlmContentPart]:
        if isinstance(part, TextPart):
            return [_text(part, where)]
        if isinstance(part, (ImagePart, AudioPart, FilePart)):
            return list(self.media(role, part, where))
        if isinstance(part, ToolUsePart):
            return [self.tool_use(role, part, where)]
        if isinstance(part, ToolResultPart):
            return [self.tool_result(role, part, where)]
        raise MalformedRequestError(_not_a_part(part), where)

    def tool_use(self, role: Role, part: ToolUsePart, where: Where) -> ToolUsePart:
        if role != "assistant":
            raise MisplacedPartError(
                f"a tool_use part may only be in an assistant message, not a {role} message",
                where,
            )
        tool_id = _string_field(part, "id", where)
        name = _string_field(part, "name", where)
        try:
            data = self.json_budget.validated(_field(part, "input", where))
        except JSONTooLargeError as error:
            raise OversizedToolInputError(
                f"tool_use {describe(tool_id)} input is too large to send: {error.reason}",
                where.at("input"),
            ) from None
        except JSONShapeError as error:
            raise MalformedRequestError(
                f"tool_use input is not JSON: {error.reason}",
                where.at(f"input{error.path}"),
            ) from None
        self.declared_ids.add(tool_id)
        return ToolUsePart(id=tool_id, name=name, input=data)

    def tool_result(self, role: Role, part: ToolResultPart, where: Where) -> ToolResultPart:
        if role != "user":
            raise MisplacedPartError(
                f"a tool_result part may only be in a user message, not a {role} message", where
            )
        tool_use_id = _string_field(part, "tool_use_id", where)
        if tool_use_id not in self.declared_ids:
            raise OrphanToolResultError(
                f"tool_result answers {describe(tool_use_id)}, which no earlier assistant "
                "message declared as a tool_use id",
                where,
            )
        is_error = _bool(_field(part, "is_error", where), where, "is_error")
        content = _field(part, "content", where)
        if type(content) is str:
            return part
        items = exact_list(content)
        if items is None:
            raise MalformedRequestError(
                "a tool_result's content must be a string or a list of text and media parts, "
                f"got {describe(content)}",
                where.at("content"),
            )
        inner: list[ToolResultContentPart] = []
        for inner_index, item in enumerate(items):
            inner_where = dataclasses.replace(where, inner=inner_index)
            if isinstance(item, TextPart):
                inner.append(_text(item, inner_where))
            elif isinstance(item, (ImagePart, AudioPart, FilePart)):
                inner.extend(self.media(role, item, inner_where))
            elif isinstance(item, (ToolUsePart, ToolResultPart)):
                kind = "tool_use" if isinstance(item, ToolUsePart) else "tool_result"
                raise MisplacedPartError(
                    f"a {kind} part may not be inside a tool_result (text and media only)",
                    inner_where,
                )
            else:
                raise MalformedRequestError(_not_a_part(item), inner_where)
        return ToolResultPart(tool_use_id=tool_use_id, content=inner, is_error=is_error)

    def media(self, role: Role, part: MediaPart, where: Where) -> list[MediaPart | TextPart]:
        modality = modality_of(part)
        untrusted = _untrusted(_field(part, "untrusted", where), where)
        # Provenance before placement: an untrusted part outside a user message is refused
        # as a provenance breach, the more specific of the two rules it breaks.
        if untrusted is not None and role != "user":
            raise UntrustedContentError(
                f"untrusted {modality} (origin {describe(untrusted.origin)}) may only be in a "
                f"user message, where it is fenced; found in a {role} message",
                where,
            )
        if role != "user":
            article = "a" if modality == "file" else "an"
            raise MisplacedPartError(
                f"{article} {modality} part may only be in a user message, not a {role} message",
                where,
            )
        source = _source(_field(part, "source", where), where)
        if untrusted is not None and isinstance(source, RefSource):
            raise UntrustedContentError(
                f"untrusted {modality} (origin {describe(untrusted.origin)}) names a stored "
                "ref; an untrusted party may not choose which blob enters the prompt",
                where.at("source"),
            )
        problem = media_type_problem(_field(part, "media_type", where), modality)
        if problem is not None:
            raise InvalidMediaError(problem, where.at("media_type"))
        if isinstance(part, FilePart):
            name = _field(part, "name", where)
            if name is not None and type(name) is not str:
                raise MalformedRequestError(
                    f"a file name must be a string or None, got {describe(name)}",
                    where.at("name"),
                )
        if isinstance(source, RefSource):
            problem = ref_problem(_field(source, "ref", where.at("source")))
            if problem is not None:
                raise InvalidMediaError(problem, where.at("source.ref"))
        else:
            self.count_inline(modality, _field(source, "data", where.at("source")), where)
        if untrusted is None:
            return [part]
        stripped: MediaPart = (
            dataclasses.replace(part, untrusted=None, name=None)
            if isinstance(part, FilePart)
            else dataclasses.replace(part, untrusted=None)
        )
        return [fence_open(untrusted.origin), stripped, fence_close()]

    def tools(self, tools: object) -> list[ToolSpec]:
        items = exact_list(tools)
        if items is None:
            raise MalformedRequestError(
                f"tools must be a list, got {describe(tools)}", Where(field="tools")
            )
        checked: list[ToolSpec] = []
        for index, tool in enumerate(items):
            where = Where(field=f"tools[{index}]")
            if not isinstance(tool, ToolSpec):
                raise MalformedRequestError(f"expected a ToolSpec, got {describe(tool)}", where)
            name = _string_field(tool, "name", where)
            description = _string_field(tool, "description", where)
            schema_where = where.at("input_schema")
            try:
                schema = self.json_budget.validated(_field(tool, "input_schema", where))
            except (JSONShapeError, JSONTooLargeError) as error:
                raise MalformedRequestError(
                    f"input_schema is not a JSON object within the JSON caps: {error}",
                    schema_where,
                ) from None
            if not isinstance(schema, dict):
                raise MalformedRequestError(
                    f"input_schema must be a JSON object, got {describe(schema)}", schema_where
                )
            checked.append(ToolSpec(name=name, description=description, input_schema=schema))
        return checked

    def count_inline(self, modality: str, data: object, where: Where) -> None:
        data_where = where.at("source.data")
        # The caps are judged from the length first: an oversized string is refused before
        # anything is decoded (decoding would copy it twice over).
        try:
            size = inline_size(data)
        except ValueError as error:
            raise InvalidMediaError(str(error), data_where) from None
        if size > self.max_inline_bytes:
            raise OversizedInlinePartError(
                f"inline {modality} is {size} bytes decoded, over the per-part cap of "
                f"{self.max_inline_bytes} bytes; {_REMEDY}",
                data_where,
            )
        self.inline_total += size
        if self.inline_total > self.max_inline_total_bytes:
            raise OversizedInlinePartError(
                f"inline media in this request reaches {self.inline_total} bytes decoded with "
                f"this part, over the per-request cap of {self.max_inline_total_bytes} bytes; "
                f"{_REMEDY}",
                data_where,
            )
        try:
            check_base64(data)
        except ValueError as error:
            raise InvalidMediaError(str(error), data_where) from None


def _role(role: object, where: Where) -> Role:
    known = as_role(role)
    if known is not None:
        return known
    raise MalformedRequestError(
        f"role must be 'system', 'user' or 'assistant', got {describe(role)}",
        where.at("role"),
    )


def _text(part: TextPart, where: Where) -> TextPart:
    _string_field(part, "text", where)
    return part


def _field(owner: object, name: str, where: Where) -> object:
    """``owner.<name>``, or `MalformedRequestError` if it is not set or cannot be read."""
    try:
        return read_field(owner, name)
    except UnreadableFieldError as error:
        raise MalformedRequestError(f"{name} {error}", where.at(name)) from None


def _string_field(owner: object, name: str, where: Where) -> str:
    return _string(_field(owner, name, where), where, name)


def _string(value: object, where: Where, field_name: str) -> str:
    if not isinstance(value, str) or type(value) is not str:
        raise MalformedRequestError(
            f"{field_name} must be a string, got {describe(value)}",
            where.at(field_name),
        )
    return value


def _bool(value: object, where: Where, field_name: str) -> bool:
    if not isinstance(value, bool):
        raise MalformedRequestError(
            f"{field_name} must be a bool, got {describe(value)}",
            where.at(field_name),
        )
    return value


def _source(source: object, where: Where) -> RefSource | DataSource:
    if not isinstance(source, (RefSource, DataSource)):
        raise InvalidMediaError(
            f"a media source must be a RefSource or a DataSource, got {describe(source)}",
            where.at("source"),
        )
    return source


def _untrusted(marker: object, where: Where) -> UntrustedOrigin | None:
    if marker is None:
        return None
    if not isinstance(marker, UntrustedOrigin):
        raise MalformedRequestError(
            f"untrusted must be an UntrustedOrigin or None, got {describe(marker)}",
            where.at("untrusted"),
        )
    _string_field(marker, "origin", where.at("untrusted"))
    return marker


def _not_a_part(value: object) -> str:
    hint = " (a wire-form dict? read it with from_json)" if exact_dict(value) is not None else ""
    return f"expected a content part, got {describe(value)}{hint}"
