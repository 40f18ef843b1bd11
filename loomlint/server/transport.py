"""The language server's stream: LSP's base protocol read and written by a layer of ours.

pygls 2.1 reads stdin in ``pygls.io_.run_async`` and trusts what it reads:

- it allocates whatever ``Content-Length`` says (``99999999999999``: MemoryError, the server
  dies);
- a header it cannot read (``Content-Length: abc``) leaves it reading bodies as headers, for
  good;
- it parses a message's params inside ``json.loads``, so a request whose params do not fit
  (a ``codeAction`` without its ``textDocument``) fails before its id is known, and is never
  answered;
- it runs a request that arrives before ``initialize`` (-32603 with a traceback, where LSP
  says -32002), and it closes stdout on ``exit``.

``read_messages`` replaces that loop; pygls still does everything past it (structuring the params,
the features). ``MessageReader`` splits the byte stream: a message over ``MAX_MESSAGE_BYTES``
is refused without reading it into memory, and after any message it cannot read it finds the
next header again. That is safe because a header line (``Content-Length: 12`` and CRLF)
cannot occur inside a valid JSON body: JSON strings hold no raw CR or LF, and outside strings
``Content-Length`` is no JSON token. ``Gate`` answers what must be answered before pygls sees
it: malformed requests, params that do not fit, requests before ``initialize`` or after
``shutdown``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException

# The largest message the server reads. A document at the analysis' size budget (10 MiB),
# every character escaped as JSON's six-byte \uXXXX, still fits.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# The largest header block: LSP's has two short fields.
MAX_HEADER_BYTES = 8 * 1024
_CHUNK_BYTES = 64 * 1024
# A header's first line, as it can only appear at the start of a message (see above).
_HEADER_START = re.compile(rb"Content-Length[ \t]*:[ \t]*[0-9]+[ \t]*\r\n", re.IGNORECASE)
# Enough of a buffer's tail to hold a header start cut off by the end of what has arrived.
_HEADER_START_TAIL = 64
_HEADER_FIELD = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*(.*?)[ \t]*")

# JSON-RPC's and LSP's error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
SERVER_NOT_INITIALIZED = -32002

_log = logging.getLogger("loomlint.server")


@dataclass(frozen=True, slots=True)
class Message:
    """A message read whole: its JSON value (any value; ``Gate`` judges its shape)."""

    data: object


@dataclass(frozen=True, slots=True)
class Skipped:
    """Bytes that were no readable message, skipped up to the next header."""

    reason: str
    # The JSON-RPC error it is answered with (``id`` null: the request's id is unknown).
    code: int


class MessageReader:
    """Splits LSP's byte stream into messages; no I/O (``feed`` it, then take ``messages``).

    After a message it cannot read (a bad header, a refused length, a body that is not JSON),
    it looks for the next header from the byte after that message's start, so a length that
    was too short or too long loses no message behind it.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()
        # Where the message being read starts, and its body's start and length once known.
        self._start: int = 0
        self._body: tuple[int, int] | None = None
        # Where the search for the header block's end goes on (no search twice over a byte).
        self._searched: int = 0
        # Skipping bytes up to the next header start.
        self._resyncing = False

    def feed(self, data: bytes) -> None:
        self._buffer += data

    def messages(self, *, at_end: bool = False) -> Iterator[Message | Skipped]:
        """What the bytes fed so far hold. ``at_end``: no more will come, so a message still
        waiting for its bytes is given up, and the rest searched for headers."""
        while True:
            if self._resyncing and not self._resync(at_end):
                return
            event = self._next()
            if event is None and at_end and self._start < len(self._buffer):
                event = self._fail("the stream ended inside a message", PARSE_ERROR)
            if event is None:
                self._compact()
                return
            yield event

    def _next(self) -> Message | Skipped | None:
        buffer, start = self._buffer, self._start
        if self._body is None:
            end = buffer.find(b"\r\n\r\n", max(start, self._searched - 3))
            if end < 0:
                self._searched = len(buffer)
                if len(buffer) - start > MAX_HEADER_BYTES:
                    return self._fail("a header block that never ends", PARSE_ERROR)
                return None
            if end - start > MAX_HEADER_BYTES:
                return self._fail("a header block that never ends", PARSE_ERROR)
            length = _content_length(bytes(buffer[start:end]))
            if isinstance(length, str):
                return self._fail(length, PARSE_ERROR)
            if length > MAX_MESSAGE_BYTES:
                return self._fail(
                    f"a message of {length} bytes, over the {MAX_MESSAGE_BYTES // (1 << 20)} MiB "
                    "the server reads",
                    INVALID_REQUEST,
                )
            self._body = (end + 4, length)
        body_start, length = self._body
        if len(buffer) - body_start < length:
            return None
        body = bytes(buffer[body_start : body_start + length])
        try:
            data: object = json.loads(body.decode("utf-8"))
        except UnicodeDecodeError:
            return self._fail("a message that is not UTF-8", PARSE_ERROR)
        except (ValueError, RecursionError) as exc:
            return self._fail(f"a message that is not JSON ({_first_line(exc)})", PARSE_ERROR)
        self._start = self._searched = body_start + length
        self._body = None
        return Message(data)

    def _fail(self, reason: str, code: int) -> Skipped:
        self._body = None
        self._start += 1
        self._resyncing = True
        return Skipped(reason, code)

    def _resync(self, at_end: bool) -> bool:
        """Move to the next header start; False when none has arrived yet."""
        found = _HEADER_START.search(self._buffer, self._start)
        if found is not None:
            self._start = self._searched = found.start()
            self._resyncing = False
            return True
        # Keep only what may begin a header the next bytes complete.
        self._start = max(self._start, len(self._buffer) - (0 if at_end else _HEADER_START_TAIL))
        self._compact()
        return False

    def _compact(self) -> None:
        if self._start:
            del self._buffer[: self._start]
            self._searched = max(0, self._searched - self._start)
            if self._body is not None:
                self._body = (self._body[0] - self._start, self._body[1])
            self._start = 0


def _content_length(header: bytes) -> int | str:
    """The header block's Content-Length, or why it has none."""
    length: int | None = None
    for line in header.split(b"\r\n"):
        field = _HEADER_FIELD.fullmatch(line)
        if field is None:
            return f"a header line that is no header field ({_shown(line)})"
        name, value = field.group(1).lower(), field.group(2)
        if name == b"content-length":
            if length is not None:
                return "a header with two Content-Length fields"
            if not value.isdigit():
                return f"a Content-Length that is not a number ({_shown(value)})"
            length = int(value)
    if length is None:
        return "a header without Content-Length"
    return length


def _shown(data: bytes) -> str:
    text = data[:40].decode("ascii", "backslashreplace")
    return repr(text + ("..." if len(data) > 40 else ""))


def _first_line(exc: BaseException) -> str:
    return (str(exc) or type(exc).__name__).splitlines()[0]


class FrameWriter:
    """The server's output: whole messages, one writer at a time. pygls writes through it
    (``protocol.set_writer``) and so does ``Gate``. ``close`` leaves the stream open: the
    process ends right after, and its last flush must find it open."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._broken = False

    def write(self, data: bytes) -> None:
        with self._lock:
            if self._broken:
                return
            try:
                self._stream.write(data)
                self._stream.flush()
            except (OSError, ValueError):  # the client has gone: nobody reads what follows
                self._broken = True
                _log.warning("loomlint server: the client no longer reads its output")

    def send(self, message: dict[str, object]) -> None:
        body = json.dumps(message, ensure_ascii=True).encode("ascii")
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def close(self) -> None:
        with self._lock:
            if not self._broken:
                try:
                    self._stream.flush()
                except (OSError, ValueError):
                    self._broken = True


class RpcProtocol(Protocol):
    """What ``Gate`` needs of pygls's protocol."""

    def structure_message(self, data: dict[str, Any]) -> Any: ...

    def handle_message(self, message: Any) -> None: ...


class Gate:
    """Checks each message before pygls handles it; answers what pygls would not."""

    def __init__(self, protocol: RpcProtocol, writer: FrameWriter) -> None:
        self._protocol = protocol
        self._writer = writer
        self.initialized = False
        self.shut_down = False
        # Set by the ``exit`` notification: the process's exit status.
        self.exit_status: int | None = None

    def skipped(self, skipped: Skipped) -> None:
        _log.error("loomlint server: skipped %s", skipped.reason)
        self._error(None, skipped.code, f"skipped {skipped.reason}")

    def handle(self, data: object) -> None:
        if not isinstance(data, dict):
            self._error(None, INVALID_REQUEST, "a message must be a JSON object")
            return
        message: dict[str, Any] = data  # pyright: ignore[reportUnknownVariableType]
        has_id = "id" in message
        request_id = message.get("id")
        if has_id and not _valid_id(request_id):
            self._error(None, INVALID_REQUEST, "a message's id must be a number or a string")
            return
        method = message.get("method")
        if message.get("jsonrpc") != "2.0" or (method is not None and not isinstance(method, str)):
            self._error(request_id, INVALID_REQUEST, 'not JSON-RPC 2.0 ("jsonrpc": "2.0")')
            return
        if method == types.EXIT:
            self.exit_status = 0 if self.shut_down else 1
            return
        if method is not None and not self.initialized and method != types.INITIALIZE:
            if has_id:
                self._error(request_id, SERVER_NOT_INITIALIZED, f"'{method}' before 'initialize'")
            return  # a notification before initialize is dropped, as LSP says
        if method is not None and self.shut_down:
            if has_id:
                self._error(request_id, INVALID_REQUEST, f"'{method}' after 'shutdown'")
            return
        try:
            structured = self._protocol.structure_message(message)
        except JsonRpcException as exc:
            detail = _params_problem(exc)
            _log.error("loomlint server: %s: %s", method, detail)
            if has_id and method is not None:
                self._error(request_id, exc.code, f"{method}: {detail}")
            return
        self._protocol.handle_message(structured)
        if method == types.INITIALIZE:
            self.initialized = True
        elif method == types.SHUTDOWN:
            self.shut_down = True

    def _error(self, request_id: object, code: int, message: str) -> None:
        self._writer.send(
            {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
        )


def _valid_id(value: object) -> bool:
    return value is None or (isinstance(value, (int, str)) and not isinstance(value, bool))


def _params_problem(exc: JsonRpcException) -> str:
    """What did not fit, from cattrs' account of it (``$`` is the message)."""
    cause = exc.__cause__
    if isinstance(cause, cattrs.ClassValidationError):
        return "invalid params: " + "; ".join(cattrs.transform_error(cause))
    return exc.message or type(exc).__name__


def _not_a_structuring_error(record: logging.LogRecord) -> bool:
    # pygls logs a traceback for params that do not fit; ``Gate`` says what did not, in one
    # line, and answers the request.
    return not str(record.msg).startswith("Unable to deserialize message")


async def read_messages(gate: Gate, stdin: BinaryIO) -> int:
    """Read ``stdin`` until ``exit`` or its end; the exit status LSP says (0 only after
    ``shutdown``)."""
    pygls_rpc_log = logging.getLogger("pygls.protocol.json_rpc")
    if _not_a_structuring_error not in pygls_rpc_log.filters:
        pygls_rpc_log.addFilter(_not_a_structuring_error)
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes] = asyncio.Queue()

    def read() -> None:
        # A thread of its own, not an executor's: a read blocked on an open pipe must not
        # hold up the end of the event loop after ``exit``.
        while True:
            try:
                # What has arrived, up to a chunk: a read of a set size would wait for all.
                chunk = os.read(stdin.fileno(), _CHUNK_BYTES)
            except (OSError, ValueError):
                chunk = b""
            try:
                loop.call_soon_threadsafe(chunks.put_nowait, chunk)
            except RuntimeError:  # the loop has ended (exit came first): nobody reads on
                return
            if not chunk:
                return

    threading.Thread(target=read, name="loomlint-stdin", daemon=True).start()
    reader = MessageReader()
    while gate.exit_status is None:
        chunk = await chunks.get()
        reader.feed(chunk)
        for event in reader.messages(at_end=not chunk):
            if isinstance(event, Skipped):
                gate.skipped(event)
            else:
                gate.handle(event.data)
            if gate.exit_status is not None:
                break
        if not chunk:
            break
    return gate.exit_status if gate.exit_status is not None else (0 if gate.shut_down else 1)
