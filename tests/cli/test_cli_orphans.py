"""A killed `loomlint check` leaves nothing running: its worker processes and multiprocessing's
resource tracker end with it, whether it is killed outright (SIGKILL, the OOM killer: it can
clean up nothing) or stopped by SIGTERM. Real runs of the installed script, real signals; the
processes are found in /proc."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from test_cli_interrupt import APP, stalling_project, start, wait_for

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="finds processes in /proc"
)


def _stat(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a process, or None if there is none."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may hold spaces: split after its last ")".
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), fields[0], int(fields[19])


def _descendants(root: int) -> dict[int, int]:
    """Every process below ``root``, each with its start time (so a reused pid is told apart)."""
    children: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None:
                children.setdefault(stat[0], []).append(int(entry.name))
                started[int(entry.name)] = stat[2]
    found: dict[int, int] = {}
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            found[child] = started[child]
            stack.append(child)
    return found


def _running(pid: int, started: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[2] == started and stat[1] != "Z"


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _workers_and_tracker(root: int) -> dict[int, int] | None:
    """The processes below ``root`` once a worker and the resource tracker are among them."""
    found = _descendants(root)
    commands = [_command(pid) for pid in found]
    has_worker = any("spawn_main" in command for command in commands)
    has_tracker = any("resource_tracker" in command for command in commands)
    return found if has_worker and has_tracker else None


def _big_project(root: Path) -> None:
    # Over 256 KiB to analyse, so the run starts worker processes.
    body = APP + "".join(
        f"\n\ndef g{i}(m: LlmMessage) -> str:\n    return f'{{m.content}}'\n" for i in range(400)
    )
    for number in range(24):
        (root / f"mod{number:02}.py").write_text(body, encoding="utf-8")


def _kill_and_check(process: subprocess.Popen[str], signum: signal.Signals) -> None:
    running: dict[int, int] = {}

    def workers_started() -> bool:
        running.update(_workers_and_tracker(process.pid) or {})
        return bool(running)

    wait_for(workers_started, process)
    os.kill(process.pid, signum)
    # Only the parent: its pipes stay open while any process that inherited them runs.
    process.wait(timeout=60)
    deadline = time.monotonic() + 10
    left = _still_running(running)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _still_running(running)
    for pid in left:  # never leave them behind, even when the test fails
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    process.communicate(timeout=60)
    assert not left, f"still running 10 s after {signum.name}: {left}"


def _still_running(processes: dict[int, int]) -> dict[int, str]:
    return {pid: _command(pid) for pid, began in processes.items() if _running(pid, began)}


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_workers_and_the_resource_tracker_die_with_a_run_that_analyses(
    tmp_path: Path, signum: signal.Signals
) -> None:
    _big_project(tmp_path)
    _kill_and_check(start(tmp_path, "--no-types", "--no-cache"), signum)


def test_the_worker_started_beside_the_mypy_build_dies_with_a_killed_run(tmp_path: Path) -> None:
    # The build stalls in the project's own mypy plugin: the worker started beside it waits
    # for work when the run is killed.
    _big_project(stalling_project(tmp_path))
    _kill_and_check(start(tmp_path, "--no-cache"), signal.SIGKILL)
