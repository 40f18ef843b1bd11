"""Analyse files on every core: worker processes that import the rules once and run each file
on a deep-stack thread.

Workers are started with ``spawn`` before the (long) mypy build, so their start-up overlaps it
and they do not inherit the build's memory. Small runs stay in-process: starting workers
costs more than it saves.
"""

from __future__ import annotations

import atexit
import collections
import functools
import importlib
import multiprocessing
import multiprocessing.connection
import os
import queue
import threading
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loomlint.engine.diagnostics import Diagnostic, FileResult
from loomlint.engine.typefacts import FileTypes
from loomlint.project.config import Settings
from loomlint.run.heap import freeze_what_is_held
from loomlint.run.interrupt import worker_ignores_interrupts

if TYPE_CHECKING:
    from loomlint.engine.analyze import PreparedAnalysis

# Below this much source, one process is faster than starting others.
_PARALLEL_THRESHOLD_BYTES = 256 * 1024


@dataclass(frozen=True, slots=True)
class Task:
    path: str
    source: bytes
    types: FileTypes | None
    types_failure: str | None


def worker_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class PoolPlan:
    """How many worker processes to start now, and how many at most."""

    initial: int
    maximum: int


def plan_workers(total_bytes: int, *, with_types: bool) -> PoolPlan:
    """Workers for a run: none for a small one (in-process is faster).

    Without types, every core analyses from the start. With types, the mypy build holds one
    core and most of the run's memory: one worker screens and analyses beside it, and more
    start only when enough analysis queues up after the build to be worth their memory.
    """
    if total_bytes < _PARALLEL_THRESHOLD_BYTES:
        return PoolPlan(0, 0)
    cores = worker_count()
    return PoolPlan(1, cores) if with_types else PoolPlan(cores, cores)


# Queued analysis (source bytes) beyond which another worker is worth its start-up and memory.
_GROW_BEYOND_BYTES = 1024 * 1024
# Analyses handed to one worker at a time: one running, one waiting in its queue. The rest
# wait in the pool, for whichever worker frees up first (a worker that joins late included).
_IN_FLIGHT_PER_WORKER = 2
# Source bytes of the files the first worker holds prepared at once (LibCST's trees take some
# seventy times their source's size), as the mypy plugin's worker does.
_HELD_BYTES = 8 * 1024 * 1024


@dataclass(slots=True)
class _Waiting:
    task: Task
    result: Future[FileResult]


class AnalysisPool:
    """Worker processes, each a one-process executor, so that the pool can grow on demand.

    Analyses are handed to the workers by the caller's thread (``submit``) and, as workers
    free up, by a feeder thread of the pool's own: never from an executor's done-callback.
    Those run on the executor's management thread, and on Python 3.13, when a worker dies,
    while it holds the executor's shutdown lock, which ``submit`` takes too: a callback that
    submits would wait for itself, and the run would hang for good.

    While mypy builds, the first worker screens the files (``screen``), then prepares those
    that may report (``prepare_ahead``: parse, flow and positions, what needs no types), one
    at a time and only while it has no analysis to run, and holds them: a file's analysis,
    once mypy has given its facts, then goes to that worker and is only judged there. Without
    it, every file mypy checks last (a large import cycle is checked as one) waits for its
    whole analysis after the build.
    """

    def __init__(
        self, settings: Settings, plan: PoolPlan, *, debug: bool = False, start_at_once: bool = True
    ) -> None:
        self._settings = settings
        self._debug = debug
        self._maximum = plan.maximum
        self._executors: list[Executor] = []
        self._in_flight: list[int] = []  # analyses handed to each executor and not finished
        self._waiting: collections.deque[_Waiting] = collections.deque()
        # Files to prepare in the first worker, and those it prepares or holds prepared: their
        # analyses go to it (``_waiting_held``), to be judged there.
        self._to_prepare: dict[str, bytes] = {}
        self._held: set[str] = set()
        self._waiting_held: collections.deque[_Waiting] = collections.deque()
        # How many files the first worker prepared ahead, and how many workers were started
        # (LOOMLINT_TIMINGS).
        self.prepared_ahead = 0
        self.workers_started = 0
        self._queued_bytes = 0  # source bytes submitted and not finished
        self._growth_held = False
        # Reentrant: growing the pool dispatches, and both hold it.
        self._lock = threading.RLock()
        # What the done-callbacks tell the feeder: the slot whose work finished, the size of
        # the analysis it finished (0 for a preparation), and the path of a preparation with
        # its outcome (whether the worker holds it); None stops the feeder.
        self._finished_slots: queue.SimpleQueue[_Finished | None] = queue.SimpleQueue()
        self._feeder: threading.Thread | None = None
        # Workers planned and not started yet (``start``): a run whose mypy build judges its
        # files itself (loomlint's plugin, configured by the project) may need none.
        self._to_start = plan.initial
        if start_at_once:
            self.start()

    def start(self) -> None:
        """Start the planned workers, once: their imports overlap whatever the caller does
        next. Screening, preparing or submitting starts them too."""
        with self._lock:
            to_start = min(self._to_start, self._maximum - len(self._executors))
            self._to_start = 0
            for _ in range(to_start):
                self._add_worker()

    def _add_worker(self) -> None:
        executor = ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_initialise_worker,
            initargs=(self._settings, self._debug),
        )
        # Start the process now, so its imports overlap whatever the caller does next.
        executor.submit(_ready)
        self._executors.append(executor)
        self.workers_started += 1
        self._in_flight.append(0)
        if self._feeder is None:
            self._feeder = threading.Thread(
                target=self._feed, name="loomlint-pool-feeder", daemon=True
            )
            self._feeder.start()

    @property
    def parallel(self) -> bool:
        return bool(self._executors)

    @property
    def worker_count(self) -> int:
        return len(self._executors)

    def screen(self, sources: Sequence[tuple[str, bytes]]) -> Future[dict[str, bool]] | None:
        """Start screening files (``prescreen.may_report``) on the first worker, in the
        background: the caller runs mypy meanwhile."""
        self.start()
        if not self._executors or not sources:
            return None
        return self._executors[0].submit(_screen_in_worker, list(sources))

    def compile_files(self, sources: Sequence[bytes]) -> Future[list[bool]] | None:
        """Start compiling files on the first worker, in the background: whether CPython
        compiles each (``compilecheck.compiles``)."""
        self.start()
        if not self._executors or not sources:
            return None
        return self._executors[0].submit(_compile_in_worker, list(sources))

    def prepare_ahead(self, sources: Sequence[tuple[str, bytes]]) -> None:
        """Have the first worker prepare these files, in this order, while it has nothing else
        to do: those its screen found may report, within its budget (``_HELD_BYTES``)."""
        self.start()
        if not self._executors:
            return
        with self._lock:
            for path, source in sources:
                self._to_prepare[path] = source
            self._dispatch()

    def hold_growth(self) -> None:
        """No worker joins until ``release_growth``: while mypy builds, it holds a core."""
        self._growth_held = True

    def release_growth(self) -> None:
        with self._lock:
            self._growth_held = False
            self._grow_if_worthwhile()
            self._dispatch()

    def submit(self, task: Task) -> Callable[[], FileResult]:
        """Start analysing ``task``; the returned function waits for its result.

        In-process, the analysis runs now (the caller is already on a deep-stack thread,
        see runner.run_check).
        """
        self.start()
        if not self._executors:
            result = analyse_task(task, self._settings, self._debug)
            return lambda: result
        waiting = _Waiting(task, Future())
        with self._lock:
            self._to_prepare.pop(task.path, None)
            if task.path in self._held:
                self._waiting_held.append(waiting)
            else:
                self._waiting.append(waiting)
            self._queued_bytes += len(task.source)
            self._grow_if_worthwhile()
            self._dispatch()
        return waiting.result.result

    def _grow_if_worthwhile(self) -> None:
        if (
            not self._growth_held
            and len(self._executors) < self._maximum
            and self._queued_bytes > _GROW_BEYOND_BYTES
        ):
            self._add_worker()

    def _dispatch(self) -> None:
        """Hand waiting analyses to the workers with room for them, those of files the first
        worker holds prepared to it; and give it a file to prepare when it is idle and no
        analysis waits (the lock is held)."""
        for slot, executor in enumerate(self._executors):
            while self._in_flight[slot] < _IN_FLIGHT_PER_WORKER:
                if slot == 0 and self._waiting_held:
                    waiting = self._waiting_held.popleft()
                elif self._waiting:
                    waiting = self._waiting.popleft()
                else:
                    break
                try:
                    future = executor.submit(_analyse_in_worker, waiting.task)
                except Exception as exc:  # a broken pool: whoever waits gets the error
                    self._queued_bytes -= len(waiting.task.source)
                    waiting.result.set_exception(exc)
                    continue
                self._in_flight[slot] += 1
                future.add_done_callback(functools.partial(self._finished, slot, waiting))
        if (
            self._executors
            and self._to_prepare
            and self._in_flight[0] == 0
            and not (self._waiting or self._waiting_held)
        ):
            path = next(iter(self._to_prepare))
            source = self._to_prepare.pop(path)
            try:
                prepared = self._executors[0].submit(_prepare_in_worker, path, source)
            except Exception:  # a broken pool: its analyses say so
                return
            self._held.add(path)
            self._in_flight[0] += 1
            prepared.add_done_callback(functools.partial(self._prepared, path))

    def _finished(self, slot: int, waiting: _Waiting, future: Future[FileResult]) -> None:
        """A done-callback: passes the outcome on, and leaves the rest to the feeder."""
        if future.cancelled():
            waiting.result.set_exception(CancelledError())
        elif (error := future.exception()) is not None:
            waiting.result.set_exception(error)
        else:
            waiting.result.set_result(future.result())
        self._finished_slots.put(_Finished(slot, len(waiting.task.source)))

    def _prepared(self, path: str, future: Future[bool]) -> None:
        """A done-callback of a preparation: the feeder learns whether the worker holds it."""
        held = not future.cancelled() and future.exception() is None and future.result()
        self._finished_slots.put(_Finished(0, 0, path, held))

    def _feed(self) -> None:
        """The feeder thread: a worker that finished an analysis takes the next waiting one."""
        while (finished := self._finished_slots.get()) is not None:
            with self._lock:
                self._in_flight[finished.slot] -= 1
                self._queued_bytes -= finished.size
                if finished.prepared is not None:
                    self._prepare_done(finished.prepared, finished.held)
                self._dispatch()

    def _prepare_done(self, path: str, held: bool) -> None:
        """(Under the lock.) A file the first worker did not keep prepared (its screen found
        nothing to report, or its budget was spent) may be analysed by any worker."""
        if held:
            self.prepared_ahead += 1
            return
        self._held.discard(path)
        for waiting in [w for w in self._waiting_held if w.task.path == path]:
            self._waiting_held.remove(waiting)
            self._waiting.append(waiting)

    def close(self) -> None:
        # Waiting lets the workers release the pool's semaphores: the console script leaves
        # with a hard exit, which would otherwise leak them (and say so).
        for executor in self._executors:
            executor.shutdown(wait=True, cancel_futures=True)
        self._executors.clear()
        if self._feeder is not None:
            self._finished_slots.put(None)
            self._feeder.join()
            self._feeder = None


@dataclass(frozen=True, slots=True)
class _Finished:
    slot: int
    size: int
    prepared: str | None = None
    held: bool = False


_worker_settings: Settings | None = None
_worker_debug = False
# In a worker: the screen's verdicts, and the files it holds prepared (with their bytes) and
# how many bytes of source those are.
_worker_screened: dict[str, bool] = {}
_worker_held: dict[str, tuple[bytes, PreparedAnalysis]] = {}
_worker_held_bytes = 0


def _initialise_worker(settings: Settings, debug: bool) -> None:
    global _worker_settings, _worker_debug
    # First, before the slow imports: a parent killed during them must not leave this behind.
    _exit_with_parent()
    _worker_settings = settings
    _worker_debug = debug
    # A worker has nothing to clean up: skip tearing down its imports at exit, which would
    # keep the pool's shutdown (and so the run) waiting for nothing.
    atexit.register(os._exit, 0)
    # Ctrl-C reaches the whole process group: the parent answers it (loomlint.run.interrupt) and
    # stops the workers, which would otherwise each print a KeyboardInterrupt traceback.
    worker_ignores_interrupts()
    # Import the analysis stack once per worker, not once per file.
    importlib.import_module("loomlint.engine.analyze")


def _exit_with_parent() -> None:
    """End this worker as soon as the process that started it is gone.

    A parent that exits normally shuts its workers down, and one stopped by SIGINT or SIGTERM
    kills them (``loomlint.run.interrupt``); one killed outright (SIGKILL, the OOM killer) can do
    neither. Its workers would wait for work forever, each holding a copy of the analysis
    stack, and keep multiprocessing's resource tracker alive too (it leaves when the last
    process holding its pipe does). multiprocessing gives a spawned child a sentinel, a pipe
    whose other end only the parent holds: it reads as ready exactly when the parent is gone,
    on every platform. A daemon thread waits on it (not PR_SET_PDEATHSIG: that fires when the
    thread that started the worker ends, and workers are started from several threads).
    While the analysis holds the GIL inside native code (LibCST's parser), the thread runs
    when that call returns.
    """
    parent = multiprocessing.parent_process()
    if parent is None:  # not a spawned worker (an in-process run imports this module too)
        return
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="loomlint-parent-watch", daemon=True).start()


def _ready() -> None:
    return None


def _analyse_in_worker(task: Task) -> FileResult:
    from loomlint.run.deepstack import deep_stack

    global _worker_held_bytes
    settings = _worker_settings
    assert settings is not None, "worker used before initialisation"
    prepared = None
    held = _worker_held.pop(task.path, None)
    if held is not None:
        _worker_held_bytes -= len(held[0])
        if held[0] == task.source:  # else the file changed since: analysed from its new bytes
            prepared = held[1]
    return deep_stack(lambda: analyse_task(task, settings, _worker_debug, prepared))


def _prepare_in_worker(path: str, source: bytes) -> bool:
    """Prepare a file whose facts mypy has not given yet, if its screen says it may report and
    the budget allows, and hold it for its analysis (``_analyse_in_worker``): True if held.
    Prepared as for types without unresolved imports; judging follows the flow again if the
    facts have some (``analyze.finish_analysis``). A file that cannot be prepared is left
    for its analysis, which reports why (LML903, LML905)."""
    from loomlint.engine.analyze import prepare_analysis, screen_source
    from loomlint.run.deepstack import deep_stack

    global _worker_held_bytes
    settings = _worker_settings
    assert settings is not None, "worker used before initialisation"
    if not _worker_screened.get(path, True) or _worker_held_bytes + len(source) > _HELD_BYTES:
        return False
    try:
        screen = screen_source(path, source, settings).without_tree()
        if not screen.may_report:
            return False
        prepared = deep_stack(lambda: prepare_analysis(screen, settings, imported=False))
    except Exception:
        return False
    _worker_held[path] = (source, prepared)
    _worker_held_bytes += len(source)
    freeze_what_is_held()
    return True


def _screen_in_worker(sources: list[tuple[str, bytes]]) -> dict[str, bool]:
    from loomlint.engine.prescreen import may_report

    settings = _worker_settings
    assert settings is not None, "worker used before initialisation"
    verdicts: dict[str, bool] = {}
    for path, source in sources:
        try:
            verdicts[path] = may_report(source, settings)
        except Exception:  # the full analysis will report it as LML905
            verdicts[path] = True
    # Kept for preparing them (``_prepare_in_worker``): a file screened out is not parsed again.
    _worker_screened.update(verdicts)
    return verdicts


def _compile_in_worker(sources: list[bytes]) -> list[bool]:
    from loomlint.engine.compilecheck import compiles

    return [compiles(source) for source in sources]


def analyse_task(
    task: Task, settings: Settings, debug: bool, prepared: PreparedAnalysis | None = None
) -> FileResult:
    """``analyze_source``'s result for ``task``; only judged when ``prepared`` holds the file
    prepared from the same bytes (``prepare_ahead``)."""
    from loomlint.engine.analyze import analyze_source, judge_prepared

    def analyse() -> FileResult:
        if prepared is not None:
            return judge_prepared(prepared, settings, task.types, types_failure=task.types_failure)
        return analyze_source(
            task.path, task.source, settings, task.types, types_failure=task.types_failure
        )

    return guarded_analysis(task.path, analyse, debug=debug)


def guarded_analysis(path: str, analyse: Callable[[], FileResult], *, debug: bool) -> FileResult:
    """``analyse()``, or, when loomlint itself fails on the file, its LML905 result."""
    try:
        return analyse()
    except Exception as exc:
        if debug:
            raise
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return file_diagnostic(
            path,
            "LML905",
            f"internal error while analysing this file ({detail}); "
            "run with --debug for the traceback",
        )


def file_diagnostic(path: str, code: str, message: str) -> FileResult:
    """A result that is one file-level diagnostic at 1:1 (unreadable file, internal error)."""
    from loomlint.catalog.rules import load_catalog

    return FileResult(
        path=path,
        diagnostics=[
            Diagnostic(
                path=path,
                line=1,
                column=1,
                end_line=1,
                end_column=2,
                code=code,
                name=load_catalog().rule(code).name,
                message=message,
            )
        ],
    )
