"""The JSON and inline caps hold on hostile input, in from_json, to_json and guard_request alike:
shared sub-structures, nesting too deep to serialise, many inputs under the per-input cap, and
inline data too long to be worth decoding."""

from __future__ import annotations

import json
import time
import tracemalloc
from typing import Any

import pytest
from guard_helpers import request, user

from loomlint.content import (
    MAX_TOOL_INPUT_DEPTH,
    MAX_TOOL_INPUT_NODES,
    MAX_TOTAL_JSON_NODES,
    DataSource,
    GuardError,
    ImagePart,
    InvalidMediaError,
    JSONValue,
    LlmMessage,
    LlmRequest,
    MalformedRequestError,
    OversizedInlinePartError,
    OversizedToolInputError,
    ToolSpec,
    ToolUsePart,
    from_json,
    guard_request,
    to_json,
)

# A tool input whose nodes, counted each time they are reached, are 2**(n+1) - 1: ``x`` is
# ``[x, x]`` n times over, so its memory is tiny and a naive copy of it is exponential.
_DOUBLINGS_UNDER_THE_CAP = 15  # 65_535 nodes
_DOUBLINGS_OVER_THE_CAP = 16  # 131_071 nodes


def _doubled(times: int) -> JSONValue:
    value: JSONValue = []
    for _ in range(times):
        value = [value, value]
    return value


def _deep(depth: int) -> JSONValue:
    """``[[...[0]...]]``: ``depth`` nested lists around a 0."""
    value: JSONValue = 0
    for _ in range(depth):
        value = [value]
    return value


def _tool_message(*inputs: JSONValue) -> LlmMessage:
    return LlmMessage(
        "assistant",
        [ToolUsePart(f"call_{index}", "f", value) for index, value in enumerate(inputs)],
    )


def _wire(*inputs: JSONValue) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": f"call_{index}", "name": "f", "input": value}
            for index, value in enumerate(inputs)
        ],
    }


def _refused_quickly(call: Any, error: type[Exception]) -> Exception:
    started = time.perf_counter()
    with pytest.raises(error) as raised:
        call()
    # Before the cap, 22 doublings took 25 s (from_json) and 96 s (to_json) here.
    assert time.perf_counter() - started < 5
    return raised.value


# --- shared sub-structures ---------------------------------------------------------------------


def test_from_json_refuses_a_shared_structure_over_the_node_cap_quickly() -> None:
    error = _refused_quickly(lambda: from_json(_wire(_doubled(22))), ValueError)
    assert type(error) is ValueError
    assert str(error) == f"content[0].input: more than {MAX_TOOL_INPUT_NODES} nodes"


def test_to_json_refuses_a_shared_structure_over_the_node_cap_quickly() -> None:
    error = _refused_quickly(lambda: to_json(_tool_message(_doubled(22))), ValueError)
    assert type(error) is ValueError
    assert str(error) == f"content[0].input: more than {MAX_TOOL_INPUT_NODES} nodes"


def test_the_guard_refuses_a_shared_structure_over_the_node_cap_quickly() -> None:
    req = request(_tool_message(_doubled(22)))
    error = _refused_quickly(lambda: guard_request(req), OversizedToolInputError)
    assert str(error) == (
        "oversized-tool-input at messages[0].content[0].input: tool_use 'call_0' input is too "
        f"large to send: more than {MAX_TOOL_INPUT_NODES} nodes"
    )


def test_a_shared_structure_counts_each_time_it_is_reached() -> None:
    under, over = _doubled(_DOUBLINGS_UNDER_THE_CAP), _doubled(_DOUBLINGS_OVER_THE_CAP)
    message = from_json(_wire(under))
    assert to_json(message) == _wire(under)
    assert guard_request(request(message)) == request(message)
    with pytest.raises(ValueError, match=r"content\[0\]\.input: more than 100000 nodes"):
        from_json(_wire(over))
    with pytest.raises(ValueError, match=r"content\[0\]\.input: more than 100000 nodes"):
        to_json(_tool_message(over))
    with pytest.raises(OversizedToolInputError):
        guard_request(request(_tool_message(over)))


# --- totals over many inputs -------------------------------------------------------------------

# One list of exactly MAX_TOOL_INPUT_NODES nodes, shared by every input that uses it.
_AT_THE_CAP: JSONValue = [0] * (MAX_TOOL_INPUT_NODES - 1)
_INPUTS_IN_THE_TOTAL = MAX_TOTAL_JSON_NODES // MAX_TOOL_INPUT_NODES


def test_a_message_s_tool_inputs_are_capped_in_total_by_the_wire_functions() -> None:
    inputs = [_AT_THE_CAP] * _INPUTS_IN_THE_TOTAL
    assert len(from_json(_wire(*inputs)).content) == _INPUTS_IN_THE_TOTAL
    assert len(to_json(_tool_message(*inputs))["content"]) == _INPUTS_IN_THE_TOTAL
    total = f"more than {MAX_TOTAL_JSON_NODES} nodes in total with the JSON before it"
    last = _INPUTS_IN_THE_TOTAL
    with pytest.raises(ValueError) as raised:
        from_json(_wire(*inputs, 0))
    assert str(raised.value) == f"content[{last}].input: {total}"
    with pytest.raises(ValueError) as raised:
        to_json(_tool_message(*inputs, 0))
    assert str(raised.value) == f"content[{last}].input: {total}"


def test_a_request_s_tool_inputs_are_capped_in_total_across_messages() -> None:
    messages = [_tool_message(_AT_THE_CAP) for _ in range(_INPUTS_IN_THE_TOTAL)]
    assert guard_request(request(*messages))
    with pytest.raises(OversizedToolInputError) as raised:
        guard_request(request(*messages, _tool_message(0)))
    assert str(raised.value) == (
        f"oversized-tool-input at messages[{_INPUTS_IN_THE_TOTAL}].content[0].input: tool_use "
        f"'call_0' input is too large to send: more than {MAX_TOTAL_JSON_NODES} nodes in total "
        "with the JSON before it"
    )


def test_tool_schemas_count_toward_the_request_s_total() -> None:
    schema: dict[str, JSONValue] = {"a": [0] * (MAX_TOOL_INPUT_NODES - 2)}
    tools = [ToolSpec(f"t{index}", "d", schema) for index in range(_INPUTS_IN_THE_TOTAL)]
    assert guard_request(LlmRequest(messages=[], tools=tools))
    over = LlmRequest(messages=[_tool_message(0)], tools=tools)
    with pytest.raises(OversizedToolInputError, match="nodes in total"):
        guard_request(over)
    one_more = [*tools, ToolSpec("last", "d", {})]
    with pytest.raises(MalformedRequestError) as raised:
        guard_request(LlmRequest(messages=[], tools=one_more))
    assert str(raised.value).startswith(
        f"malformed-request at request.tools[{_INPUTS_IN_THE_TOTAL}].input_schema: "
    )
    assert "nodes in total" in str(raised.value)


# --- depth -------------------------------------------------------------------------------------


def test_an_input_at_the_depth_cap_passes_everywhere_and_serialises() -> None:
    message = _tool_message(_deep(MAX_TOOL_INPUT_DEPTH))
    guarded = guard_request(request(message))
    wire = to_json(guarded.messages[0])
    assert from_json(json.loads(json.dumps(wire))) == message


@pytest.mark.parametrize("depth", [MAX_TOOL_INPUT_DEPTH + 1, 5_000], ids=["one-over", "5000"])
def test_an_input_too_deep_to_serialise_is_refused_everywhere(depth: int) -> None:
    # 5000 deep is far under the node cap, and past what json.dumps can do at the default
    # recursion limit: before the depth cap the guard passed it and json.dumps then raised.
    deep = _deep(depth)
    reason = f"nested more than {MAX_TOOL_INPUT_DEPTH} deep"
    with pytest.raises(OversizedToolInputError) as raised:
        guard_request(request(_tool_message(deep)))
    assert str(raised.value).endswith(f"input is too large to send: {reason}")
    with pytest.raises(ValueError) as refused:
        from_json(_wire(deep))
    assert str(refused.value) == f"content[0].input: {reason}"
    with pytest.raises(ValueError) as refused:
        to_json(_tool_message(deep))
    assert str(refused.value) == f"content[0].input: {reason}"


def test_a_deep_tool_schema_is_malformed() -> None:
    schema: dict[str, JSONValue] = {"a": _deep(MAX_TOOL_INPUT_DEPTH)}
    with pytest.raises(MalformedRequestError, match=r"tools\[0\]\.input_schema: .* deep"):
        guard_request(LlmRequest(messages=[], tools=[ToolSpec("t", "d", schema)]))


# --- inline data judged by its length ----------------------------------------------------------


def _inline(data: str) -> ImagePart:
    return ImagePart("image/png", DataSource(data))


def test_oversized_inline_data_is_refused_from_its_length_without_decoding() -> None:
    data = "A" * (16 * 1024 * 1024)  # 12 MiB decoded
    tracemalloc.start()
    try:
        with pytest.raises(OversizedInlinePartError) as raised:
            guard_request(request(user(_inline(data))))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert f"is {12 * 1024 * 1024} bytes decoded" in str(raised.value)
    # Decoding would have held an ASCII copy and the decoded bytes: 28 MiB.
    assert peak < 1024 * 1024


def test_the_request_total_is_judged_from_length_too() -> None:
    data = "A" * (4 * 1024)  # 3 KiB decoded, under the per-part cap
    caps = {"max_inline_bytes": 4096, "max_inline_total_bytes": 3 * 3072}
    assert guard_request(request(user(*[_inline(data)] * 3)), **caps)
    with pytest.raises(OversizedInlinePartError, match="per-request cap"):
        guard_request(request(user(*[_inline(data)] * 4)), **caps)


@pytest.mark.parametrize(
    ("data", "size"),
    [("", 0), ("QQ==", 1), ("QUI=", 2), ("QUJD", 3), ("QUJDRA==", 4), ("QUJDREU=", 5)],
)
def test_the_decoded_size_from_the_length_is_exact(data: str, size: int) -> None:
    assert guard_request(request(user(_inline(data))), max_inline_bytes=size)
    if size:
        with pytest.raises(OversizedInlinePartError, match=f"is {size} bytes decoded"):
            guard_request(request(user(_inline(data))), max_inline_bytes=size - 1)


@pytest.mark.parametrize("data", ["QQ=", "QQ", "Q", "QQ=A", "QQ==QQ==Q", "Q Q=", "QQ=\n"])
def test_data_that_is_not_strict_base64_is_still_invalid(data: str) -> None:
    with pytest.raises(GuardError) as raised:
        guard_request(request(user(_inline(data))))
    assert type(raised.value) is InvalidMediaError
    assert str(raised.value).startswith(
        "invalid-media at messages[0].content[0].source.data: inline data is not valid base64"
    )


# --- integers too long to write -----------------------------------------------------------------


def test_an_integer_too_long_for_json_dumps_is_refused_everywhere() -> None:
    # Python writes an int of at most 4300 digits (sys.get_int_max_str_digits()); before this
    # check the guard and to_json passed 10**4300 and json.dumps then raised ValueError.
    longest, too_long = 10**4300 - 1, 10**4300
    reason = "expected a JSON value, got an integer of more than 4300 digits, which JSON "
    reason += "writers refuse (sys.get_int_max_str_digits())"
    message = _tool_message({"n": longest})
    assert json.loads(json.dumps(to_json(guard_request(request(message)).messages[0])))
    with pytest.raises(MalformedRequestError) as raised:
        guard_request(request(_tool_message({"n": too_long})))
    assert str(raised.value) == (
        f"malformed-request at messages[0].content[0].input.n: tool_use input is not JSON: {reason}"
    )
    with pytest.raises(ValueError) as refused:
        to_json(_tool_message({"n": [too_long]}))
    assert str(refused.value) == f"content[0].input.n[0]: {reason}"
    with pytest.raises(ValueError) as refused:
        from_json(_wire(-too_long))
    assert str(refused.value) == f"content[0].input: {reason}"
