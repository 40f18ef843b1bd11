"""Ctrl-C and SIGTERM end a run with an exit code a CI gate cannot mistake for findings.

SIGINT exits 130 and SIGTERM 143 (128 + the signal's number, as a shell reports a process killed
by it), after one line on stderr saying the run was interrupted. No report is written: the
report is only rendered after the whole run, and ``--output-file`` is replaced in one rename.
Every cache write (loomlint's result cache, mypy's cache) is a write to a temporary file and a
rename, so ending the process at any instant leaves each entry whole or absent.

The exit is immediate (``os._exit``): the analysis runs on a worker thread and in worker
processes, and unwinding them would print their tracebacks. The worker processes this run
started are stopped first; they ignore SIGINT themselves (from their start-up on, see
``leave_interrupts_to_the_main_thread``), so a Ctrl-C sent to the whole process group is
answered once, here.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from types import CodeType, FrameType

EXIT_INTERRUPTED = {signal.SIGINT: 130, signal.SIGTERM: 143}


def exit_on_interrupt() -> None:
    """Install the handlers (the console script does, for the whole process)."""
    for signum in EXIT_INTERRUPTED:
        signal.signal(signum, _interrupted)


def leave_interrupts_to_the_main_thread() -> None:
    """Block SIGINT and SIGTERM on the calling (analysis) thread.

    Python runs signal handlers on the main thread anyway; blocking them here matters for the
    worker processes this thread starts: a spawned process inherits the mask, so a Ctrl-C that
    arrives while a worker is still importing stays pending until ``worker_ignores_interrupts``
    has set it aside, instead of printing a traceback from the worker's start-up.
    """
    signal.pthread_sigmask(signal.SIG_BLOCK, set(EXIT_INTERRUPTED))


def worker_ignores_interrupts() -> None:
    """In a worker process: ignore SIGINT (the parent answers it and stops the worker), and
    take SIGTERM as usual again."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, set(EXIT_INTERRUPTED))


def _interrupted(signum: int, _frame: FrameType | None) -> None:
    name = signal.Signals(signum).name
    # A progress line may be on the terminal: start the message on a clean line.
    erase = "\r\x1b[K" if _is_terminal(2) else ""
    message = f"{erase}loomlint: interrupted by {name}; the run stopped and wrote no report\n"
    stderr = _silence_other_threads()
    for child in multiprocessing.active_children():
        child.kill()
    _release_multiprocessing_resources()
    os.write(stderr, message.encode("utf-8", errors="replace"))
    os._exit(EXIT_INTERRUPTED[signal.Signals(signum)])


def _silence_other_threads() -> int:
    """Point file descriptor 2 at the null device and return a copy of the real stderr.

    Killing the workers wakes the threads that watch them (the process pool's manager thread),
    and one may fail on the way out, racing the exit below: its ``Exception in thread ...``
    must not reach the user's stderr, whose only line is the interruption's.
    """
    threading.excepthook = _ignore_thread_exception
    try:
        stderr = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)
    except OSError:  # no stderr, or no descriptor left: the message goes where it can
        return 2
    return stderr


def _ignore_thread_exception(_args: threading.ExceptHookArgs) -> None:
    return None


def _release_multiprocessing_resources() -> None:
    """Unlink the semaphores the worker pool created, as an ordinary exit would: otherwise
    multiprocessing's resource tracker finds them after the hard exit and warns of leaks.

    Another thread may be releasing one right now (the pool's manager thread does, once the
    workers are killed): it unlinks the semaphore, then tells the tracker. Exiting between the
    two leaves the tracker warning of a leak it then fails to unlink, so wait for such a release
    to end (briefly: a release that hangs must not keep the process from exiting).
    """
    from multiprocessing import util

    # Private, as mypy's stubs say; an ordinary exit calls it (multiprocessing.util's atexit).
    run_finalizers = getattr(util, "_run_finalizers", None)
    # Never let cleaning up keep the process from exiting.
    with contextlib.suppress(Exception):
        if callable(run_finalizers):
            run_finalizers(0)
            _wait_for_finalizers_of_other_threads(util.Finalize.__call__.__code__)
            run_finalizers(0)  # those registered while the others ran


def _wait_for_finalizers_of_other_threads(finalizer: CodeType, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while _another_thread_runs(finalizer) and time.monotonic() < deadline:
        time.sleep(0.005)


def _another_thread_runs(code: CodeType) -> bool:
    this_thread = threading.get_ident()
    # Documented in sys, underscore and all.
    for thread, frame in sys._current_frames().items():  # pyright: ignore[reportPrivateUsage]
        if thread == this_thread:
            continue
        caller: FrameType | None = frame
        while caller is not None:
            if caller.f_code is code:
                return True
            caller = caller.f_back
    return False


def _is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False
