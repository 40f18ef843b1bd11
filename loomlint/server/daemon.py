"""``loomlint daemon``: a project's warm process that ``loomlint check`` asks (see
``endpoint``), like ``dmypy``.

The daemon owns one ``Project`` (its warm fine-grained mypy and its results in memory) and
runs every check on one thread, in the order asked. Each connection has a thread of its own
that reads the request, says ``accepted``, then ``working`` every second until the check
is done, so a client can tell a busy daemon from a hung one.

Started with ``loomlint daemon start``, it warms up at once: it checks the whole project
(as ``loomlint check`` with the configuration's defaults would), so the first check asked
of it is already warm.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from types import FrameType
from typing import Any

from loomlint import __version__
from loomlint.project.config import CliOverrides
from loomlint.project.discovery import discover_files
from loomlint.project.settings import load_settings
from loomlint.run.runner import RunResult
from loomlint.server.endpoint import (
    MAX_LINE_BYTES,
    PROTOCOL,
    CheckRequest,
    EndpointError,
    decode,
    encode,
    environment_digest,
    file_result_to_json,
    remove_stale_socket,
    socket_path,
    trusted_socket,
)
from loomlint.server.project import Project, Refused

# Seconds between two `working` lines while a check runs.
HEARTBEAT_SECONDS = 1.0
# Seconds a client has to send its request once connected.
_REQUEST_SECONDS = 10.0

# Runs a check on the thread that owns the warm mypy.
Submit = Callable[[Callable[[], RunResult]], "Future[RunResult]"]


class Daemon:
    """The socket side of one project's warm process."""

    def __init__(self, project: Project, submit: Submit) -> None:
        self.project = project
        self.path = socket_path(project.root)
        self._submit = submit
        self._server: _Server | None = None
        self.started = time.time()
        self.requests = 0
        self.stopped = threading.Event()
        self._inode = -1

    def listen(self) -> None:
        """Bind the socket (0600), replacing a stale one; raises ``EndpointError`` when a
        daemon already answers there."""
        remove_stale_socket(self.path)  # nobody listens: a daemon that died left it
        if os.path.lexists(self.path):
            trusted_socket(self.path)  # else it says what is there instead
            raise EndpointError(f"a daemon already listens on {self.path}")
        # Bound and listening under a name of its own first, then linked into place: a
        # socket found at the path is always listening, so none is taken for a dead
        # daemon's (and removed) in the instant between bind() and listen().
        binding = self.path.with_name(f"{self.path.stem}.{os.getpid()}.binding")
        with contextlib.suppress(FileNotFoundError):
            binding.unlink()
        previous = os.umask(0o177)
        try:
            self._server = _Server(os.fspath(binding), self)
        finally:
            os.umask(previous)
        try:
            os.chmod(binding, 0o600)
            self._inode = os.lstat(binding).st_ino
            os.link(binding, self.path)
        except FileExistsError:
            self._server.server_close()
            raise EndpointError(f"a daemon already listens on {self.path}") from None
        finally:
            binding.unlink()

    def remove_socket(self) -> None:
        """Remove this daemon's socket (only its own: never one bound there since)."""
        with contextlib.suppress(OSError):
            if os.lstat(self.path).st_ino == self._inode:
                self.path.unlink()

    def serve(self) -> None:
        """Answer requests until ``stop``."""
        assert self._server is not None
        try:
            self._server.serve_forever(poll_interval=0.2)
        finally:
            self._server.server_close()
            self.remove_socket()
            self.stopped.set()

    def stop(self) -> None:
        if self._server is not None:
            threading.Thread(target=self._server.shutdown, daemon=True).start()

    def status(self) -> dict[str, object]:
        warm = self.project.last_update
        return {
            "event": "status",
            "pid": os.getpid(),
            "root": str(self.project.root),
            "version": __version__,
            "environment": environment_digest(),
            "uptime": round(time.time() - self.started, 1),
            "requests": self.requests,
            "warm": warm is not None,
        }

    def handle(self, connection: socket.socket) -> None:
        connection.settimeout(_REQUEST_SECONDS)
        stream = connection.makefile("rb")
        try:
            if not _same_user(connection):
                return
            line = stream.readline(MAX_LINE_BYTES)
            try:
                request = decode(line)
            except ValueError:
                _send(connection, {"event": "refused", "reason": "a malformed request"})
                return
            op = request.get("op")
            if op == "status":
                _send(connection, self.status())
            elif op == "stop":
                _send(connection, {"event": "stopping", "pid": os.getpid()})
                self.stop()
            elif op == "check":
                self._check(connection, request)
            else:
                _send(connection, {"event": "refused", "reason": f"unknown op {op!r}"})
        except OSError:
            pass  # the client went away; the check, if any, still completes
        finally:
            stream.close()

    def _check(self, connection: socket.socket, data: dict[str, Any]) -> None:
        if data.get("protocol") != PROTOCOL:
            _send(connection, {"event": "refused", "reason": "another protocol version"})
            return
        try:
            request = CheckRequest.from_json(data)
        except (KeyError, TypeError, ValueError):
            _send(connection, {"event": "refused", "reason": "a malformed check request"})
            return
        self.requests += 1
        _send(connection, {"event": "accepted"})
        started = time.perf_counter()
        future = self._submit(lambda: self.project.check_on_disk(request))
        while True:
            try:
                run = future.result(timeout=HEARTBEAT_SECONDS)
                break
            except FutureTimeout:
                _send(connection, {"event": "working"})
            except Refused as exc:
                _send(connection, {"event": "refused", "reason": str(exc)})
                return
            except (Exception, SystemExit) as exc:  # an internal error: the client checks
                _send(connection, {"event": "refused", "reason": f"internal error: {exc!r}"})
                return
        _send(
            connection,
            {
                "event": "result",
                "results": [file_result_to_json(result) for result in run.results],
                "notes": run.notes,
                "digests": run.digests,
                "warnings": run.warnings,
                "pid": os.getpid(),
                "seconds": round(time.perf_counter() - started, 3),
                "cold": self.project.last_check_cold,
            },
        )


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, daemon: Daemon) -> None:
        self.owner = daemon
        super().__init__(path, _Handler)


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        connection = self.request
        server = self.server
        assert isinstance(connection, socket.socket) and isinstance(server, _Server)
        server.owner.handle(connection)


def _send(connection: socket.socket, message: dict[str, object]) -> None:
    connection.sendall(encode(message))


def _same_user(connection: socket.socket) -> bool:
    """On Linux, the peer's user id from the kernel; elsewhere the socket's folder (0700,
    the user's own) already keeps other users out."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    credentials = connection.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", credentials)
    return bool(uid == os.getuid())


def run_daemon(root: Path, *, warm_up: bool = True) -> None:
    """Serve ``root``'s project in this process until stopped (``loomlint daemon run``)."""
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="loomlint-daemon")
    project = Project(root)
    daemon = Daemon(project, lambda work: worker.submit(work))
    daemon.listen()
    _remove_socket_when_stopped(daemon)
    print(f"loomlint daemon {os.getpid()} listening on {daemon.path} for {root}", flush=True)
    if warm_up:
        worker.submit(_warm_up, project)
    try:
        daemon.serve()
    finally:
        worker.shutdown(wait=False, cancel_futures=True)


def _remove_socket_when_stopped(daemon: Daemon) -> None:
    """SIGTERM and SIGINT end the daemon as they end any loomlint (``loomlint.run.interrupt``:
    exit 143 or 130), once it has removed its socket: no stale socket is left behind."""
    handlers: dict[int, Callable[[int, FrameType | None], Any] | int | None] = {
        signal.SIGTERM: signal.getsignal(signal.SIGTERM),
        signal.SIGINT: signal.getsignal(signal.SIGINT),
    }

    def stopped(signum: int, frame: FrameType | None) -> None:
        daemon.remove_socket()
        previous = handlers[signum]
        if callable(previous):
            previous(signum, frame)
        raise SystemExit(128 + signum)

    for signum in handlers:
        signal.signal(signum, stopped)


def _warm_up(project: Project) -> None:
    """Check the whole project once, as ``loomlint check`` in its root asks it, so that the
    first check asked is warm (whatever presets it chooses: the build serves them all)."""
    started = time.perf_counter()
    try:
        # As the client reads them: presets not configured are left to the run.
        settings = load_settings(project.root, presets_from="run")
        if settings.types == "none":
            print("loomlint daemon: no warm-up (types are off)", flush=True)
            return
        # As the client names them: relative to its folder, the root.
        discovered = discover_files(["."], settings).files
        files = [os.path.abspath(settings.cwd / path) for path in discovered]
        project.check_on_disk(
            CheckRequest(
                cwd=str(project.root),
                config=None,
                overrides=CliOverrides(),
                files=tuple(files),
                settings=settings.settings_fingerprint(),
                environment=environment_digest(),
            )
        )
    except Exception as exc:  # the first request will say what is wrong
        print(f"loomlint daemon: warm-up failed: {exc!r}", file=sys.stderr, flush=True)
        return
    seconds = time.perf_counter() - started
    print(f"loomlint daemon: warmed up: {len(files)} files checked in {seconds:.2f} s", flush=True)
