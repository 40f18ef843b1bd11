"""The real `loomlint daemon` and `loomlint check` as subprocesses, each test with a runtime
folder of its own (tests/server/test_daemon.py, tests/robustness/)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

LOOMLINT = (sys.executable, "-c", "from loomlint.cli import console_main; console_main()")
# How `check -v` says the daemon answered.
ANSWERED = "note: daemon: checked by the daemon (pid "


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A short runtime folder of the test's own (a socket path holds ~100 bytes at most)."""
    with tempfile.TemporaryDirectory(prefix="ll-") as folder:
        os.chmod(folder, 0o700)
        yield Path(folder)


def daemon_env(runtime: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOOMLINT_")}
    return {**env, "XDG_RUNTIME_DIR": str(runtime), **extra}


def loomlint(cwd: Path, runtime: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*LOOMLINT, *args],
        cwd=cwd,
        env=daemon_env(runtime, **env),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


class Daemon:
    def __init__(self, root: Path, runtime: Path, **env: str) -> None:
        self.root = root
        self.runtime = runtime
        started = loomlint(root, runtime, "daemon", "start", **env)
        assert started.returncode == 0, started.stderr
        assert started.stdout.startswith("started: loomlint daemon "), started.stdout
        self.pid = int(started.stdout.split()[3])

    def stop(self) -> None:
        loomlint(self.root, self.runtime, "daemon", "stop")
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    def log(self) -> str:
        (log,) = (self.runtime / "loomlint").glob("*.log")
        return log.read_text()


def wait_gone(pid: int) -> None:
    """Wait until the process ``pid``, no child of this one, has ended; fail if it has not
    within 10 s."""
    deadline = time.monotonic() + 10
    while not _ended(pid):
        assert time.monotonic() < deadline, f"process {pid} still runs 10 s on"
        time.sleep(0.05)


def _ended(pid: int) -> bool:
    """Whether ``pid`` has exited. An ended process stays a zombie until its parent reaps it,
    and that parent may reap it only later: a subreaper (``.ci/cputime.py``, a container's
    init) for a detached daemon, Neovim for the server it started. A zombie has ended."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        # Reaped since, or no /proc (not Linux), where a pid that answers is all there is.
        return Path("/proc/self").exists()
    return stat[stat.rindex(")") + 2 :].split()[0] in ("Z", "X")
