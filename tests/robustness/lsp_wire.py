"""A `loomlint server` driven byte by byte: what a client that sends broken frames sees."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

SERVER_COMMAND = (sys.executable, "-c", "from loomlint.cli import console_main; console_main()")
_LENGTH = re.compile(rb"Content-Length: ([0-9]+)\r\n")


def frame(message: object) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(request_id: int, method: str, params: object = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


def notification(method: str, params: object = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


def initialize(request_id: int, root: Path) -> bytes:
    return request(
        request_id,
        "initialize",
        {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
    )


class WireServer:
    """The server as a subprocess; its messages parsed as they arrive, on a thread."""

    def __init__(self, cwd: Path, *args: str, prelude: str = "") -> None:
        """``loomlint server ARGS`` in ``cwd``; ``prelude``: Python run in the server's
        process first (a budget made smaller, say)."""
        python, option, start = SERVER_COMMAND
        self.process = subprocess.Popen(
            [python, option, prelude + start, "server", *args],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                byte = stream.read(1)
                if not byte:
                    self._messages.put(None)
                    return
                header += byte
            found = _LENGTH.search(header)
            assert found is not None, header
            self._messages.put(json.loads(stream.read(int(found.group(1)))))

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def next_message(self, timeout: float = 30.0) -> dict[str, Any] | None:
        """The next message the server sent (None: it closed its output)."""
        return self._messages.get(timeout=timeout)

    def notification(self, method: str, timeout: float = 30.0) -> dict[str, Any]:
        """The next notification ``method`` the server sent, skipping the others."""
        while True:
            message = self.next_message(timeout)
            assert message is not None, f"the server ended: {self.stderr()}"
            if message.get("method") == method:
                return message

    def response(self, request_id: int | None, timeout: float = 30.0) -> dict[str, Any]:
        """The response to ``request_id``, skipping the server's notifications."""
        while True:
            message = self.next_message(timeout)
            assert message is not None, f"the server ended: {self.stderr()}"
            if "method" not in message and message.get("id") == request_id:
                return message

    def wait(self, timeout: float = 30.0) -> int:
        status = self.process.wait(timeout)
        return status

    def stderr(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
