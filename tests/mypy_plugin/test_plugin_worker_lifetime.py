"""The plugin's worker process outlives no mypy: it ends with mypy's build, when mypy is killed
(SIGKILL), and with mypy's daemon (``dmypy stop``, or the daemon killed). Real processes: mypy
and dmypy in subprocesses, the worker found among their children, its end awaited on a pidfd.

A test plugin of the project (``blocker.py``) holds mypy at the module ``last`` (checked after
the judged module it imports, so the worker has started) until the test lets it go: the
moments are the test's, not a guess at how long mypy takes."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mypy_runs import write_project

pytestmark = pytest.mark.slow

# The longest a worker may outlive the mypy process that killing ended (issue 25: it sees its
# pipe close and exits at once).
ENDS_WITHIN_SECONDS = 1.0
# After a completed build the worker first writes the result cache's last entries and records
# the build: a few milliseconds on a quiet machine, more than a second at load 4 on two cores.
# The bound says it ends on its own, not how fast a busy machine runs it.
ENDS_AFTER_BUILD_WITHIN_SECONDS = 30.0
WORKER_COMMAND = "loomlint.mypy_plugin.worker"
APP = """\
from loomlint.content import LlmMessage


def show(m: LlmMessage) -> str:
    return f"{m.content}"
"""
LAST = "from app import show\n\nSHOWN = show\n"
BLOCKER = """\
import os

from mypy.plugin import Plugin


class Blocker(Plugin):
    def get_additional_indirect_deps(self, file):
        if file.fullname == "last":
            with open(os.environ["BLOCKER_READY"], "w") as ready:
                ready.write(str(os.getpid()))
            with open(os.environ["BLOCKER_GO"]) as go:
                go.read()
        return set()


def plugin(version):
    return Blocker
"""


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found.extend(int(child) for child in (task / "children").read_text().split())
    return found


def _worker_of(pid: int) -> int:
    """The plugin's worker among the children of process ``pid``."""
    workers = [
        child
        for child in _children(pid)
        if WORKER_COMMAND in Path(f"/proc/{child}/cmdline").read_bytes().decode(errors="replace")
    ]
    assert len(workers) == 1, f"workers of {pid}: {workers}"
    return workers[0]


def _ends_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` (no child of this one) ends within ``seconds``."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        return bool(poller.poll(seconds * 1000))
    finally:
        os.close(pidfd)


class _HeldMypy:
    """``mypy`` over the project, held at the module ``last`` until ``release``."""

    def __init__(self, root: Path) -> None:
        self._ready, self._go = root / "ready.fifo", root / "go.fifo"
        os.mkfifo(self._ready)
        os.mkfifo(self._go)
        environment = {k: v for k, v in os.environ.items() if k != "MYPY_CACHE_DIR"}
        environment |= {"BLOCKER_READY": str(self._ready), "BLOCKER_GO": str(self._go)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mypy", "app.py", "last.py"],
            cwd=root,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )

    def held(self) -> int:
        """Wait until mypy is held; its pid."""
        with open(self._ready, encoding="utf-8") as ready:
            return int(ready.read())

    def release(self) -> None:
        with open(self._go, "w", encoding="utf-8") as go:
            go.write("go")


@pytest.fixture
def held_mypy(tmp_path: Path) -> Iterator[_HeldMypy]:
    mypy = 'plugins = ["loomlint.mypy_plugin", "blocker.py"]\nstrict = true\n'
    files = {"app.py": APP, "last.py": LAST, "blocker.py": BLOCKER}
    write_project(tmp_path, mypy=mypy, files=files)
    run = _HeldMypy(tmp_path)
    try:
        yield run
    finally:
        if run.process.poll() is None:
            run.process.kill()
        run.process.communicate()


def test_the_worker_ends_with_mypys_build(held_mypy: _HeldMypy) -> None:
    worker = _worker_of(held_mypy.held())
    held_mypy.release()
    output, _ = held_mypy.process.communicate(timeout=300)
    assert held_mypy.process.returncode == 1, output
    assert b"app.py:5: error: content of `m` is coerced to str by an f-string" in output
    assert _ends_within(worker, ENDS_AFTER_BUILD_WITHIN_SECONDS)


def test_the_worker_ends_when_mypy_is_killed(held_mypy: _HeldMypy) -> None:
    worker = _worker_of(held_mypy.held())
    held_mypy.process.send_signal(signal.SIGKILL)
    held_mypy.process.wait(timeout=60)
    assert _ends_within(worker, ENDS_WITHIN_SECONDS)


def _bulk_module(index: int) -> str:
    """Enough source naming content that the plugin starts its worker for it (more than
    ``worker.START_BYTES`` over the project)."""
    functions = [
        f"def read_{index}_{n}(m: LlmMessage) -> str:\n"
        f"    if isinstance(m.content, str):\n"
        f"        return m.content.strip()\n"
        f"    return str(len(m.content))\n"
        for n in range(500)
    ]
    return "from loomlint.content import LlmMessage\n\n\n" + "\n\n".join(functions)


@pytest.mark.parametrize("ending", ["dmypy stop", "SIGKILL"])
def test_the_worker_ends_with_mypys_daemon(tmp_path: Path, ending: str) -> None:
    from loomlint.mypy_plugin import worker as plugin_worker

    files = {f"bulk_{index}.py": _bulk_module(index) for index in range(4)}
    assert sum(map(len, files.values())) > plugin_worker.START_BYTES
    write_project(tmp_path, files=files)
    status = tmp_path / ".dmypy.json"
    dmypy = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(status)]
    try:
        done = subprocess.run(
            [*dmypy, "run", "--timeout", "300", "--", *files],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        daemon = int(json.loads(status.read_text(encoding="utf-8"))["pid"])
        worker = _worker_of(daemon)
        if ending == "SIGKILL":
            os.kill(daemon, signal.SIGKILL)
        else:
            subprocess.run([*dmypy, "stop"], cwd=tmp_path, timeout=60, check=True)
        assert _ends_within(daemon, 60)
        assert _ends_within(worker, ENDS_WITHIN_SECONDS)
    finally:
        subprocess.run([*dmypy, "kill"], cwd=tmp_path, capture_output=True, timeout=60)
