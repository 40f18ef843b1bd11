"""``loomlint daemon start|stop|status``: a project's daemon as a background process."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

from loomlint.server.endpoint import EndpointError, exchange, remove_stale_socket, socket_path

# Seconds `start` waits for the new daemon to answer, and `stop` for it to go.
_START_SECONDS = 60.0
_STOP_SECONDS = 10.0
_ASK_SECONDS = 5.0


class DaemonError(Exception):
    """The daemon could not be started; the message says why."""


def log_path(root: Path) -> Path:
    return socket_path(root).with_suffix(".log")


def _ask(root: Path, op: str) -> dict[str, Any] | None:
    try:
        return exchange(socket_path(root), {"op": op}, _ASK_SECONDS)
    except EndpointError:
        return None


def _none_runs(root: Path) -> str:
    """That no daemon runs for ``root``; a socket a killed one left is removed (and said)."""
    path = socket_path(root)
    if remove_stale_socket(path):
        return f"no loomlint daemon runs for {root} (removed the socket it left: {path})"
    return f"no loomlint daemon runs for {root}"


def daemon_status(root: Path) -> tuple[bool, str]:
    status = _ask(root, "status")
    if status is None or status.get("event") != "status":
        return False, _none_runs(root)
    return True, (
        f"loomlint daemon {status.get('pid')} runs for {status.get('root')} "
        f"(loomlint {status.get('version')}, up {status.get('uptime')} s, "
        f"{status.get('requests')} checks served; socket {socket_path(root)}, "
        f"log {log_path(root)})"
    )


@contextlib.contextmanager
def _starting(root: Path) -> Generator[None, None, None]:
    """One ``start`` at a time for a project: a second one waits, then finds the first's
    daemon running (and neither truncates the other's log)."""
    lock = socket_path(root).with_suffix(".lock")
    descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # releases the lock


def start_daemon(root: Path, config_path: Path | None) -> str:
    with _starting(root):
        return _start(root, config_path)


def _start(root: Path, config_path: Path | None) -> str:
    running, text = daemon_status(root)
    if running:
        return f"already running: {text}"
    log = log_path(root)
    # A daemon that did not answer may still be writing its log (a hung one): it keeps
    # writing to the previous log, which is kept beside the new one.
    with contextlib.suppress(FileNotFoundError):
        os.replace(log, log.with_name(log.name + ".previous"))
    descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    command = [sys.executable, "-c", "from loomlint.cli import console_main; console_main()"]
    command += ["daemon", "run"]
    if config_path is not None:
        command += ["--config", os.path.abspath(config_path)]
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=descriptor,
            stderr=descriptor,
            start_new_session=True,  # not stopped by the terminal's Ctrl-C or hang-up
        )
    finally:
        os.close(descriptor)
    deadline = time.monotonic() + _START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise DaemonError(f"the daemon stopped at once: {_tail(log)}")
        running, text = daemon_status(root)
        if running:
            return f"started: {text}"
        time.sleep(0.1)
    raise DaemonError(f"the daemon did not answer within {_START_SECONDS:g} s (see {log})")


def stop_daemon(root: Path) -> str:
    answer = _ask(root, "stop")
    if answer is None or answer.get("event") != "stopping":
        return _none_runs(root)
    deadline = time.monotonic() + _STOP_SECONDS
    while time.monotonic() < deadline and socket_path(root).exists():
        time.sleep(0.05)
    return f"stopped loomlint daemon {answer.get('pid')} for {root}"


def _tail(log: Path) -> str:
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " / ".join(lines[-3:]) or "(no output)"
