"""The language server's input, adversarial: broken frames, lengths that lie, params that do
not fit, requests out of order. Each gets an answer a client can read, and the server goes on
(`loomlint.server.transport`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loomlint.server.transport import MAX_MESSAGE_BYTES, Message, MessageReader
from robustness.lsp_wire import WireServer, frame, initialize, notification, request

CODE_ACTION = "textDocument/codeAction"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[WireServer]:
    (tmp_path / "pyproject.toml").write_text("[tool.loomlint]\n")
    running = WireServer(tmp_path)
    yield running
    running.close()


def code_action_params(root: Path) -> dict[str, object]:
    position = {"line": 0, "character": 0}
    return {
        "textDocument": {"uri": (root / "app.py").as_uri()},
        "range": {"start": position, "end": position},
        "context": {"diagnostics": []},
    }


def error(request_id: int | None, code: int, message: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def not_json(body: bytes) -> str:
    try:
        json.loads(body)
    except ValueError as exc:
        return f"skipped a message that is not JSON ({exc})"
    raise AssertionError(f"{body!r} is JSON")


def end_cleanly(server: WireServer, request_id: int, logged: str = "") -> None:
    """shutdown, then exit: status 0, and nothing on stderr but what was ``logged``."""
    server.send(request(request_id, "shutdown"))
    assert server.response(request_id) == {"jsonrpc": "2.0", "id": request_id, "result": None}
    server.send(notification("exit"))
    assert server.wait() == 0
    assert server.stderr() == logged


def test_a_length_over_the_cap_is_refused_and_the_stream_goes_on(
    server: WireServer, tmp_path: Path
) -> None:
    server.send(initialize(1, tmp_path))
    server.response(1)
    server.send(b"Content-Length: 99999999999999\r\n\r\n{}" + request(2, "shutdown"))
    assert server.response(None) == error(
        None,
        -32600,
        "skipped a message of 99999999999999 bytes, over the 64 MiB the server reads",
    )
    assert server.response(2) == {"jsonrpc": "2.0", "id": 2, "result": None}
    server.send(notification("exit"))
    assert server.wait() == 0
    assert server.stderr() == (
        "loomlint.server: loomlint server: skipped a message of 99999999999999 bytes, "
        "over the 64 MiB the server reads\n"
    )


def test_a_length_that_is_no_number_loses_nothing_after_it(
    server: WireServer, tmp_path: Path
) -> None:
    server.send(initialize(1, tmp_path))
    server.response(1)
    code_action = request(2, CODE_ACTION, code_action_params(tmp_path))
    server.send(b"Content-Length: abc\r\n\r\n{}" + code_action)
    assert server.response(None) == error(
        None, -32700, "skipped a Content-Length that is not a number ('abc')"
    )
    assert server.response(2) == {"jsonrpc": "2.0", "id": 2, "result": None}
    server.send(request(3, CODE_ACTION, code_action_params(tmp_path)))
    assert server.response(3) == {"jsonrpc": "2.0", "id": 3, "result": None}
    server.send(request(4, "shutdown"))
    assert server.response(4)["result"] is None


@pytest.mark.parametrize("wrong_by", [-12, 12], ids=["too-short", "too-long"])
def test_a_length_that_lies_loses_no_message_after_it(
    server: WireServer, tmp_path: Path, wrong_by: int
) -> None:
    server.send(initialize(1, tmp_path))
    server.response(1)
    lying = request(2, CODE_ACTION, code_action_params(tmp_path))
    _, body = lying.split(b"\r\n\r\n", 1)
    following = request(3, CODE_ACTION, code_action_params(tmp_path))
    server.send(b"Content-Length: %d\r\n\r\n" % (len(body) + wrong_by) + body + following)
    # What was read as the lying message's body: short of its end, or into the next one.
    read_as_body = (body + following)[: len(body) + wrong_by]
    skipped = not_json(read_as_body)
    assert server.response(None) == error(None, -32700, skipped)
    assert server.response(3) == {"jsonrpc": "2.0", "id": 3, "result": None}
    end_cleanly(server, 4, logged=f"loomlint.server: loomlint server: {skipped}\n")


def test_params_that_do_not_fit_get_an_invalid_params_answer(
    server: WireServer, tmp_path: Path
) -> None:
    server.send(initialize(1, tmp_path))
    server.response(1)
    server.send(request(2, CODE_ACTION, {"textDocument": 5}))
    assert server.response(2) == error(
        2,
        -32602,
        "textDocument/codeAction: invalid params: invalid value for type, expected str @ "
        "$.params.text_document.uri; required field missing @ $.params.range; required field "
        "missing @ $.params.context",
    )
    # A message that is no JSON-RPC request at all.
    server.send(frame([1, 2]))
    assert server.response(None) == error(None, -32600, "a message must be a JSON object")
    server.send(request(3, CODE_ACTION, code_action_params(tmp_path)))
    assert server.response(3) == {"jsonrpc": "2.0", "id": 3, "result": None}
    end_cleanly(
        server,
        4,
        logged="loomlint.server: loomlint server: textDocument/codeAction: invalid params: "
        "invalid value for type, expected str @ $.params.text_document.uri; required field "
        "missing @ $.params.range; required field missing @ $.params.context\n",
    )


def test_a_request_before_initialize_is_refused_as_lsp_says(
    server: WireServer, tmp_path: Path
) -> None:
    server.send(request(1, CODE_ACTION, code_action_params(tmp_path)))
    assert server.response(1) == error(1, -32002, "'textDocument/codeAction' before 'initialize'")
    # A notification before initialize is dropped; initialize then works.
    server.send(notification("initialized", {}))
    server.send(initialize(2, tmp_path))
    assert "capabilities" in server.response(2)["result"]
    end_cleanly(server, 3)


def test_shutdown_then_exit_ends_with_status_0_and_no_traceback(
    server: WireServer, tmp_path: Path
) -> None:
    server.send(initialize(1, tmp_path))
    server.response(1)
    server.send(request(2, "shutdown"))
    server.response(2)
    # After shutdown, a request is an invalid one.
    server.send(request(3, CODE_ACTION, code_action_params(tmp_path)))
    assert server.response(3) == error(3, -32600, "'textDocument/codeAction' after 'shutdown'")
    server.send(notification("exit"))
    assert server.wait() == 0
    assert server.stderr() == ""


def test_exit_without_shutdown_ends_with_status_1(server: WireServer, tmp_path: Path) -> None:
    server.send(initialize(1, tmp_path))
    server.response(1)
    server.send(notification("exit"))
    assert server.wait() == 1
    assert server.stderr() == ""


# --- the reader alone: any split of the stream, any garbage before a message --------------------

_MESSAGES = st.lists(
    st.dictionaries(
        st.text(max_size=5),
        st.one_of(st.integers(), st.text(max_size=20), st.booleans(), st.none()),
        max_size=4,
    ).map(lambda params: {"jsonrpc": "2.0", "method": "m", "params": params}),
    min_size=1,
    max_size=5,
)
_GARBAGE = st.lists(
    st.one_of(
        st.binary(max_size=30),
        st.sampled_from(
            [
                b"Content-Length: abc\r\n\r\n",
                b"Content-Length: 7\r\n",
                b"Content-Length: 3\r\n\r\n{}",
                b"Content-Length: 99999999999999\r\n\r\n",
                b"Content-Length: %d\r\n\r\n" % (MAX_MESSAGE_BYTES + 1),
                b"Content-Length: 40\r\n\r\n",
                b"Content-Type: x\r\n",
                b"\r\n\r\n",
                b'{"jsonrpc": "2.0"',
                b"Content-Length",
            ]
        ),
    ),
    max_size=6,
).map(b"".join)


def read_all(stream: bytes, cuts: list[int]) -> list[object]:
    reader = MessageReader()
    found: list[object] = []
    start = 0
    for cut in [*sorted({min(c, len(stream)) for c in cuts}), len(stream)]:
        reader.feed(stream[start:cut])
        start = cut
        found += [e.data for e in reader.messages() if isinstance(e, Message)]
    found += [e.data for e in reader.messages(at_end=True) if isinstance(e, Message)]
    return found


@settings(max_examples=300, deadline=None)
@given(_MESSAGES, st.lists(st.integers(min_value=0, max_value=2000), max_size=8))
def test_every_split_of_a_stream_reads_the_same_messages(
    messages: list[dict[str, object]], cuts: list[int]
) -> None:
    stream = b"".join(frame(m) for m in messages)
    assert read_all(stream, cuts) == messages


@settings(max_examples=500, deadline=None)
@given(_GARBAGE, _MESSAGES, st.lists(st.integers(min_value=0, max_value=2000), max_size=4))
def test_no_garbage_loses_a_message_after_it(
    garbage: bytes, messages: list[dict[str, object]], cuts: list[int]
) -> None:
    stream = garbage + b"".join(frame(m) for m in messages)
    found = read_all(stream, cuts)
    # Garbage may hold a message of its own; every message after it is read, in order.
    assert found[len(found) - len(messages) :] == messages
