"""The analysis pool: workers take waiting analyses as they free up, and a worker that joins
late (once mypy's build no longer holds a core) takes its share."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from loomlint.engine.analyze import analyze_source
from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings
from loomlint.run.workers import _GROW_BEYOND_BYTES, AnalysisPool, PoolPlan, Task

BAD_USE = (
    "from loomlint.content import LlmMessage\n\n\n"
    "def f(m: LlmMessage) -> str:\n"
    '    return f"{m.content}"\n'
)


def _source(index: int, size: int) -> bytes:
    # Bulk that costs the parser next to nothing: one long string.
    return (BAD_USE + f'\nPADDING_{index} = "{"x" * size}"\n').encode()


def test_a_worker_joins_when_growth_is_released_and_results_are_exact(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, overrides=CliOverrides(no_types=True))
    count = 6
    size = _GROW_BEYOND_BYTES // 4
    tasks = [Task(f"mod{i}.py", _source(i, size), None, None) for i in range(count)]
    pool = AnalysisPool(settings, PoolPlan(initial=1, maximum=2))
    try:
        pool.hold_growth()
        waits = [pool.submit(task) for task in tasks]
        assert pool.worker_count == 1
        pool.release_growth()
        assert pool.worker_count == 2
        results = [wait() for wait in waits]
    finally:
        pool.close()
    expected = [analyze_source(t.path, t.source, settings) for t in tasks]
    assert [r.path for r in results] == [f"mod{i}.py" for i in range(count)]
    assert [[(d.code, d.line, d.column) for d in r.diagnostics] for r in results] == [
        [("LML003", 5, 15)]
    ] * count
    assert results == expected


def test_a_pool_started_on_demand_starts_its_workers_with_its_first_work(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, overrides=CliOverrides(no_types=True))
    unused = AnalysisPool(settings, PoolPlan(initial=1, maximum=2), start_at_once=False)
    try:
        assert unused.worker_count == 0
    finally:
        unused.close()
    assert unused.workers_started == 0
    task = Task("mod0.py", _source(0, 64), None, None)
    for first_work in ("screen", "submit"):
        pool = AnalysisPool(settings, PoolPlan(initial=1, maximum=2), start_at_once=False)
        try:
            if first_work == "screen":
                screening = pool.screen([(task.path, task.source)])
                assert screening is not None
                assert screening.result(timeout=120) == {"mod0.py": True}
            result = pool.submit(task)()
            assert pool.worker_count == 1
        finally:
            pool.close()
        assert pool.workers_started == 1
        assert result == analyze_source(task.path, task.source, settings)


def test_a_worker_that_dies_fails_every_waiting_analysis_instead_of_hanging(
    tmp_path: Path,
) -> None:
    settings = load_settings(tmp_path, overrides=CliOverrides(no_types=True))
    pool = AnalysisPool(settings, PoolPlan(initial=1, maximum=1))
    try:
        waits = [pool.submit(Task(f"mod{i}.py", _source(i, 64), None, None)) for i in range(5)]
        for process in list(pool._executors[0]._processes.values()):  # type: ignore[attr-defined]
            process.kill()
        deadline = time.monotonic() + 60
        outcomes = [_outcome(wait, deadline) for wait in waits]
    finally:
        # Python 3.13 fails the futures of a broken executor while holding its shutdown lock:
        # a pool that submitted from their done-callbacks deadlocked there, and in close().
        closed = _outcome(pool.close, time.monotonic() + 60)
    assert (outcomes, closed) == (["broken"] * 5, "result")


def _outcome(wait: Callable[[], object], deadline: float) -> str:
    """How waiting for an analysis ends, on a daemon thread: a hang fails the test, not CI."""
    outcome: list[str] = []

    def run() -> None:
        try:
            wait()
            outcome.append("result")
        except BrokenProcessPool:
            outcome.append("broken")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(max(0.0, deadline - time.monotonic()))
    return outcome[0] if outcome else "hung"
