"""Ctrl-C and SIGTERM mid-run: the installed `loomlint` script, real signals, real runs.

SIGINT goes to the whole process group, as a terminal's Ctrl-C does (worker processes get it
too); SIGTERM goes to loomlint alone, as a CI runner's cancel does.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = shutil.which("loomlint", path=str(Path(sys.executable).parent))

INTERRUPTED = "loomlint: interrupted by {}; the run stopped and wrote no report\n"

APP = (
    "from loomlint.content import LlmMessage\n"
    "\n"
    "\n"
    "def f(m: LlmMessage) -> str:\n"
    "    return str(m.content)\n"
)

# A mypy plugin of the checked project that stalls mypy's build while the file `stall` exists,
# and says (the file `started`) that the build has begun.
STALLING_PLUGIN = """\
import time
from pathlib import Path

from mypy.plugin import Plugin


def plugin(version: str) -> type[Plugin]:
    Path("started").write_text("")
    while Path("stall").exists():
        time.sleep(0.05)
    return Plugin
"""


def start(root: Path, *args: str) -> subprocess.Popen[str]:
    assert SCRIPT is not None, "loomlint is not installed next to the test interpreter"
    return subprocess.Popen(
        [SCRIPT, "check", *args],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        start_new_session=True,  # its own process group, like a job in a terminal
    )


def wait_for(condition_met: object, process: subprocess.Popen[str], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not callable(condition_met) or not condition_met():
        assert process.poll() is None, f"the run ended before the signal: {process.communicate()}"
        assert time.monotonic() < deadline, "the run never reached the point to interrupt"
        time.sleep(0.05)


def send(process: subprocess.Popen[str], signum: signal.Signals) -> tuple[int, str, str]:
    if signum == signal.SIGINT:
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    return process.returncode, stdout, stderr


def stalling_project(root: Path) -> Path:
    (root / "app.py").write_text(APP, encoding="utf-8")
    (root / "stalling_plugin.py").write_text(STALLING_PLUGIN, encoding="utf-8")
    (root / "mypy.ini").write_text("[mypy]\nplugins = stalling_plugin\n", encoding="utf-8")
    (root / "stall").write_text("", encoding="utf-8")
    return root


def findings(report: str) -> list[tuple[str, int, int, str]]:
    return [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(report)]


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_a_signal_during_the_mypy_build_exits_with_its_code_and_one_line(
    tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    root = stalling_project(tmp_path)
    process = start(root, "app.py", "--output-file", "report.txt")
    wait_for(lambda: (root / "started").exists(), process)
    assert send(process, signum) == (code, "", INTERRUPTED.format(signum.name))
    assert not (root / "report.txt").exists()
    # The next run is whole: nothing the interrupted one left behind stands in its way.
    (root / "stall").unlink()
    finished = start(root, "app.py", "--format", "json")
    stdout, stderr = finished.communicate(timeout=300)
    assert finished.returncode == 1, stderr
    assert findings(stdout) == [("app.py", 5, 16, "LML003")]


# Files of some 23 KiB each: twelve are enough for worker processes to analyse them.
FILES = 12


def test_ctrl_c_while_workers_analyse_leaves_a_valid_cache(tmp_path: Path) -> None:
    # Enough source (over 256 KiB, loomlint's threshold) that worker processes analyse it, and
    # the result cache fills while the run goes on.
    body = APP + "".join(
        f"\n\ndef g{i}(m: LlmMessage) -> str:\n    return f'{{m.content}}'\n" for i in range(400)
    )
    for number in range(FILES):
        (tmp_path / f"mod{number:02}.py").write_text(body, encoding="utf-8")
    assert FILES * len(body) > 256 * 1024
    entries = tmp_path / ".loomlint_cache" / "results-v4"
    process = start(tmp_path, "--no-types", "--format", "json")
    wait_for(lambda: entries.is_dir() and any(entries.glob("*.json")), process)
    assert send(process, signal.SIGINT) == (130, "", INTERRUPTED.format("SIGINT"))
    for entry in entries.glob("*.json"):
        _seal, body = entry.read_text(encoding="utf-8").split("\n", 1)
        json.loads(body)  # every entry written is whole
    assert len(list(entries.glob("*.json"))) < FILES, "the run finished before the signal"
    cached = start(tmp_path, "--no-types", "--format", "json")
    fresh = start(tmp_path, "--no-types", "--format", "json", "--no-cache")
    cached_out, _ = cached.communicate(timeout=300)
    fresh_out, _ = fresh.communicate(timeout=300)
    assert (cached.returncode, fresh.returncode) == (1, 1)
    assert len(json.loads(cached_out)) == FILES * 401
    assert cached_out == fresh_out


# A process that answers SIGINT as the console script does, while another of its threads fails
# as the interruption kills its worker: the process pool's manager thread did, on Python 3.13 in
# CI, and its "Exception in thread Thread-1:" reached stderr. The thread's failure is made
# certain to happen while the handler runs: a finalizer the handler runs waits for it.
THREAD_FAILS_DURING_INTERRUPT = """\
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from multiprocessing import util

from loomlint.run.interrupt import exit_on_interrupt


def sleep_forever() -> None:
    time.sleep(600)


def watch(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    raise RuntimeError("the worker is gone")


if __name__ == "__main__":
    exit_on_interrupt()
    worker = multiprocessing.get_context("spawn").Process(target=sleep_forever)
    worker.start()
    watcher = threading.Thread(target=watch, args=(worker.sentinel,))
    watcher.start()
    util.Finalize(None, watcher.join, args=(30,), exitpriority=10)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(60)
"""


def test_a_thread_that_fails_as_the_workers_are_killed_prints_nothing(tmp_path: Path) -> None:
    assert run_script(tmp_path, THREAD_FAILS_DURING_INTERRUPT) == (
        130,
        "",
        INTERRUPTED.format("SIGINT"),
    )


def run_script(folder: Path, text: str) -> tuple[int, str, str]:
    script = folder / "interrupted.py"
    script.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    return done.returncode, done.stdout, done.stderr


# A process that answers SIGINT as the console script does while another of its threads is
# releasing a worker pool's semaphore: multiprocessing unlinks the semaphore, then tells its
# resource tracker. Exiting between the two made the tracker warn of a leaked semaphore and fail
# to unlink it again ("No such file or directory"), on stderr, after Ctrl-C in the middle of a
# run. The release is made to pause between the two steps, and the signal comes in the pause.
SIGNAL_WHILE_A_THREAD_RELEASES_A_SEMAPHORE = """\
import multiprocessing
import os
import signal
import threading
import time
from multiprocessing import resource_tracker

from loomlint.run.interrupt import exit_on_interrupt

unlinked = threading.Event()
tell_the_tracker = resource_tracker.unregister


def unregister_after_a_pause(name: str, rtype: str) -> None:
    unlinked.set()
    time.sleep(0.5)
    tell_the_tracker(name, rtype)


def release(lock: object) -> None:
    del lock  # the last reference: its finalizer unlinks the semaphore


if __name__ == "__main__":
    exit_on_interrupt()
    lock = multiprocessing.get_context("spawn").Lock()
    resource_tracker.unregister = unregister_after_a_pause
    releasing = threading.Thread(target=release, args=(lock,))
    del lock
    releasing.start()
    unlinked.wait(30)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(60)
"""


def test_ctrl_c_while_a_thread_releases_a_semaphore_leaves_no_leak(tmp_path: Path) -> None:
    assert run_script(tmp_path, SIGNAL_WHILE_A_THREAD_RELEASES_A_SEMAPHORE) == (
        130,
        "",
        INTERRUPTED.format("SIGINT"),
    )
