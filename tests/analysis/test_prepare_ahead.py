"""While mypy builds, `loomlint check`'s first worker prepares the files that may report (parse,
flow, positions) and holds them; once mypy has given a file's facts, that worker only judges
it. Nothing of the result changes: the same findings as an analysis from scratch."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from loomlint.engine import analyze
from loomlint.engine.analyze import analyze_source
from loomlint.project.config import CliOverrides, Settings
from loomlint.project.settings import load_settings
from loomlint.run import workers
from loomlint.run.workers import AnalysisPool, PoolPlan, Task
from tests.mypy_caches import CONTENT, MypyCaches
from tests.mypy_plugin.mypy_runs import PLUGIN_STRICT

BAD_USE = (
    "from loomlint.content import LlmMessage\n\n\n"
    "def f(m: LlmMessage) -> str:\n"
    '    return f"{m.content}"\n'
)
# Files of some 23 KiB each, bulk that costs the parsers next to nothing (one long string):
# twelve are enough for `loomlint check` to analyse in a worker process.
FILES = 12


def _bulk(index: int) -> str:
    return f'\nPADDING_{index} = "{"x" * 23_000}"\n'


def test_check_with_a_worker_finds_exactly_what_it_finds_in_process(
    tmp_path: Path, mypy_caches: MypyCaches
) -> None:
    for number in range(FILES):
        (tmp_path / f"mod{number:02}.py").write_text(BAD_USE + _bulk(number), encoding="utf-8")
    # Named nothing of content: screened out, neither prepared nor analysed; compiled by the
    # worker while mypy builds, and one that CPython refuses is reported all the same.
    (tmp_path / "bulk.py").write_text(_bulk(FILES), encoding="utf-8")
    (tmp_path / "refused.py").write_text("X = 1\nreturn X\n", encoding="utf-8")
    cache = mypy_caches.copy(tmp_path / "mypy-cache", mypy=None, modules=CONTENT)
    done = _check(tmp_path, cache)
    assert done.returncode == 2, done.stderr
    findings = [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(done.stdout)]
    assert findings == [
        *[(f"mod{n:02}.py", 5, 15, "LML003") for n in range(FILES)],
        ("refused.py", 2, 1, "LML901"),
    ]
    assert "0 compiled, 2 to compile" in done.stderr, done.stderr
    assert "2 files that name no content compiled by a worker during the build" in done.stderr
    # How many were prepared before mypy gave their facts depends on how fast each went (the
    # pool's own test below makes it certain); none was prepared twice, nor the screened out.
    (prepared,) = re.findall(r"(\d+) files prepared while mypy built", done.stderr)
    assert 0 <= int(prepared) <= FILES
    assert re.findall(r"s  (screening started)", done.stderr) == ["screening started"]
    assert re.findall(r"workers stopped \((\d+) started\)", done.stderr) == ["1"]


def test_check_screens_and_prepares_nothing_when_loomlints_plugin_judges_inside_its_build(
    tmp_path: Path, mypy_caches: MypyCaches
) -> None:
    # The project's mypy configuration names the plugin: `loomlint check`'s build loads it, its
    # worker screens, prepares and judges the files, and the run takes its results
    # (plugin_results): the run's own pool does neither, and starts no worker.
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.mypy]\n{PLUGIN_STRICT}\n[tool.loomlint]\n", encoding="utf-8"
    )
    for number in range(FILES):
        (tmp_path / f"mod{number:02}.py").write_text(BAD_USE + _bulk(number), encoding="utf-8")
    cache = mypy_caches.copy(tmp_path / "mypy-cache", mypy=PLUGIN_STRICT, modules=CONTENT)
    done = _check(tmp_path, cache)
    assert done.returncode == 1, done.stderr
    findings = [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(done.stdout)]
    assert findings == [(f"mod{n:02}.py", 5, 15, "LML003") for n in range(FILES)]
    assert re.findall(r"\d+ files prepared while mypy built", done.stderr) == [
        "0 files prepared while mypy built"
    ]
    assert re.findall(r"s  (screening started)", done.stderr) == []
    # Its worker was never started: the run had no work for it.
    assert re.findall(r"workers stopped \((\d+) started\)", done.stderr) == ["0"]


def _check(project: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "loomlint"), "check", "--no-cache", "--format", "json"],
        cwd=project,
        env={**os.environ, "MYPY_CACHE_DIR": str(cache), "LOOMLINT_TIMINGS": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_first_worker_prepares_what_may_report_and_judges_it_there(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, overrides=CliOverrides(no_types=True))
    sources = [(f"mod{n:02}.py", (BAD_USE + _bulk(n)).encode()) for n in range(FILES)]
    quiet = [("bulk.py", _bulk(FILES).encode())]
    pool = AnalysisPool(settings, PoolPlan(initial=1, maximum=2))
    try:
        pool.hold_growth()
        screening = pool.screen(sources + quiet)
        pool.prepare_ahead(sources + quiet)
        assert screening is not None
        assert screening.result(timeout=120) == {**{p: True for p, _ in sources}, "bulk.py": False}
        deadline = time.monotonic() + 120
        while pool.prepared_ahead < FILES and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pool.prepared_ahead == FILES
        waits = [pool.submit(Task(path, source, None, None)) for path, source in sources]
        pool.release_growth()
        results = [wait() for wait in waits]
    finally:
        pool.close()
    assert results == [analyze_source(path, source, settings) for path, source in sources]
    assert [[(d.code, d.line, d.column) for d in r.diagnostics] for r in results] == [
        [("LML003", 5, 15)]
    ] * FILES


@pytest.fixture
def in_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This process stands in for a worker: its settings, and nothing held yet."""
    settings = load_settings(tmp_path, overrides=CliOverrides(no_types=True))
    monkeypatch.setattr(workers, "_worker_settings", settings)
    monkeypatch.setattr(workers, "_worker_screened", {})
    monkeypatch.setattr(workers, "_worker_held", {})
    monkeypatch.setattr(workers, "_worker_held_bytes", 0)


@pytest.mark.usefixtures("in_worker")
def test_a_prepared_file_is_judged_without_being_prepared_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = BAD_USE.encode()
    assert workers._prepare_in_worker("app.py", source)
    monkeypatch.setattr(analyze, "prepare_analysis", _prepared_again)
    result = workers._analyse_in_worker(Task("app.py", source, None, None))
    assert workers._worker_held == {}
    assert workers._worker_held_bytes == 0
    settings = workers._worker_settings
    assert settings is not None
    monkeypatch.undo()
    assert result == analyze_source("app.py", source, settings)
    assert [(d.code, d.line, d.column) for d in result.diagnostics] == [("LML003", 5, 15)]


@pytest.mark.usefixtures("in_worker")
def test_a_file_changed_since_it_was_prepared_is_analysed_from_its_new_bytes() -> None:
    assert workers._prepare_in_worker("app.py", BAD_USE.encode())
    changed = ("\n" + BAD_USE).encode()
    result = workers._analyse_in_worker(Task("app.py", changed, None, None))
    assert [(d.code, d.line, d.column) for d in result.diagnostics] == [("LML003", 6, 15)]
    assert workers._worker_held == {}


@pytest.mark.usefixtures("in_worker")
def test_a_file_screened_out_or_past_the_budget_is_not_prepared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    workers._screen_in_worker([("quiet.py", b"x = 1\n"), ("app.py", BAD_USE.encode())])
    assert not workers._prepare_in_worker("quiet.py", b"x = 1\n")
    monkeypatch.setattr(workers, "_HELD_BYTES", len(BAD_USE) - 1)
    assert not workers._prepare_in_worker("app.py", BAD_USE.encode())
    assert workers._worker_held == {}


def _prepared_again(*args: object, **kwargs: object) -> analyze.PreparedAnalysis:
    raise AssertionError("the held preparation was not used")


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "analysis"


@pytest.fixture(scope="module")
def fixtures_settings() -> Settings:
    return load_settings(FIXTURES)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.py")), ids=lambda path: path.name)
def test_a_prepared_file_is_freed_by_reference_counting(
    path: Path, fixtures_settings: Settings
) -> None:
    """A worker keeps the files it holds prepared out of the cyclic collector's reach
    (``run.heap.freeze_what_is_held``), which is free of leaks only while a prepared file has
    no reference cycle: judged or dropped, reference counting must free all of it."""
    settings = fixtures_settings
    screen = analyze.screen_source(str(path), path.read_bytes(), settings).without_tree()
    gc.collect()
    gc.disable()
    try:
        prepared = analyze.prepare_analysis(screen, settings, imported=False)
        gc.collect()  # what preparing left behind, not what it holds
        analyze.judge_prepared(prepared, settings, None)
        gc.collect()  # what judging left behind
        del prepared
        assert gc.collect() == 0
    finally:
        gc.enable()
