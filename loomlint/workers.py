"""Analyse files on every core: worker processes that import the rules once and run each file
on a deep-stack thread.

Workers are started with ``spawn`` before the (long) mypy build, so their start-up overlaps it
and they do not inherit the build's memory. Small runs stay in-process: starting workers
costs more than it saves.
"""

from __future__ import annotations

import atexit
import importlib
import multiprocessing
import os
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass

from loomlint.analysis.typefacts import FileTypes
from loomlint.config import Settings
from loomlint.diagnostics import Diagnostic, FileResult

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


def workers_for(total_bytes: int, *, with_types: bool) -> int:
    """How many worker processes to start: none for a small run (in-process is faster).

    With types, the mypy build holds one core and most of the run's memory: one worker
    screens and analyses beside it, and a second would add its memory to mypy's peak for
    little time. Without types, every core analyses.
    """
    if total_bytes < _PARALLEL_THRESHOLD_BYTES:
        return 0
    cores = worker_count()
    return max(1, cores - 1) if with_types else cores


class AnalysisPool:
    """A lazily used pool: ``start()`` early, ``map()`` later, ``close()`` always."""

    def __init__(self, settings: Settings, *, workers: int, debug: bool = False) -> None:
        self._settings = settings
        self._debug = debug
        self._executor: Executor | None = None
        if workers > 0:
            self._executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_initialise_worker,
                initargs=(settings, debug),
            )
            # Start the workers now, so their imports overlap whatever the caller does next.
            for _ in range(workers):
                self._executor.submit(_ready)

    @property
    def parallel(self) -> bool:
        return self._executor is not None

    def screen(self, sources: Sequence[tuple[str, bytes]]) -> Future[dict[str, bool]] | None:
        """Start screening files (``engine.may_report``) on one worker, in the background.

        One worker only: the caller runs mypy meanwhile, and the two then share the cores.
        """
        if self._executor is None or not sources:
            return None
        return self._executor.submit(_screen_in_worker, list(sources))

    def submit(self, task: Task) -> Callable[[], FileResult]:
        """Start analysing ``task``; the returned function waits for its result.

        In-process, the analysis runs now (the caller is already on a deep-stack thread,
        see runner.run_check).
        """
        if self._executor is None:
            result = _analyse(task, self._settings, self._debug)
            return lambda: result
        future: Future[FileResult] = self._executor.submit(_analyse_in_worker, task)
        return future.result

    def close(self) -> None:
        if self._executor is not None:
            # Waiting lets the workers release the pool's semaphores: the console script
            # leaves with a hard exit, which would otherwise leak them (and say so).
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


_worker_settings: Settings | None = None
_worker_debug = False


def _initialise_worker(settings: Settings, debug: bool) -> None:
    global _worker_settings, _worker_debug
    _worker_settings = settings
    _worker_debug = debug
    # A worker has nothing to clean up: skip tearing down its imports at exit, which would
    # keep the pool's shutdown (and so the run) waiting for nothing.
    atexit.register(os._exit, 0)
    # Import the analysis stack once per worker, not once per file.
    importlib.import_module("loomlint.analysis.engine")


def _ready() -> None:
    return None


def _analyse_in_worker(task: Task) -> FileResult:
    from loomlint.deepstack import deep_stack

    settings = _worker_settings
    assert settings is not None, "worker used before initialisation"
    return deep_stack(lambda: _analyse(task, settings, _worker_debug))


def _screen_in_worker(sources: list[tuple[str, bytes]]) -> dict[str, bool]:
    from loomlint.analysis.engine import may_report
    from loomlint.deepstack import deep_stack

    settings = _worker_settings
    assert settings is not None, "worker used before initialisation"

    def screen_all() -> dict[str, bool]:
        verdicts: dict[str, bool] = {}
        for path, source in sources:
            try:
                verdicts[path] = may_report(source, settings)
            except Exception:  # the full analysis will report it as LML905
                verdicts[path] = True
        return verdicts

    return deep_stack(screen_all)


def _analyse(task: Task, settings: Settings, debug: bool) -> FileResult:
    from loomlint.analysis.engine import analyze_source

    try:
        return analyze_source(
            task.path, task.source, settings, task.types, types_failure=task.types_failure
        )
    except Exception as exc:
        if debug:
            raise
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return file_diagnostic(
            task.path,
            "LML905",
            f"internal error while analysing this file ({detail}); "
            "run with --debug for the traceback",
        )


def file_diagnostic(path: str, code: str, message: str) -> FileResult:
    """A result that is one file-level diagnostic at 1:1 (unreadable file, internal error)."""
    from loomlint.catalog import load_catalog

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
