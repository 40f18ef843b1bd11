"""The plugin's second process (``mypy_plugin.worker``): it answers as ``analyze_source`` does,
whatever it prepared beforehand, and a worker that stops answering leaves the plugin to judge
in mypy's own process."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomlint.engine.analyze import analyze_source
from loomlint.engine.typefacts import FileTypes
from loomlint.mypy_plugin import worker
from loomlint.mypy_plugin.worker import AnalysisWorker
from loomlint.project.config import Settings
from loomlint.project.settings import load_settings

SOURCE = b"""\
from loomlint.content import LlmMessage


def show(m: LlmMessage) -> str:
    print(m.content)
    return f"{m.content}"
"""
QUIET = b"x = 1\n"


@pytest.fixture
def started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AnalysisWorker:
    monkeypatch.setattr(worker, "START_BYTES", 0)
    analyst = AnalysisWorker(load_settings(tmp_path))
    analyst.offer(str(tmp_path / "quiet.py"), QUIET)
    assert analyst.running
    return analyst


def test_a_prepared_file_is_judged_as_analyze_source_judges_it(
    tmp_path: Path, started: AnalysisWorker
) -> None:
    path = str(tmp_path / "app.py")
    started.offer(path, SOURCE)
    assert started.screen(path, SOURCE) is True
    assert started.screen(str(tmp_path / "quiet.py"), QUIET) is False
    judged = started.judge(path, SOURCE, None, None)
    expected = analyze_source(path, SOURCE, load_settings(tmp_path))
    assert judged is not None
    assert [(d.line, d.column, d.code, d.message) for d in judged.diagnostics] == [
        (d.line, d.column, d.code, d.message) for d in expected.diagnostics
    ]
    assert [(d.line, d.code) for d in judged.diagnostics] == [(5, "LML003"), (6, "LML003")]


def test_a_file_never_offered_or_offered_again_with_other_bytes_is_judged_on_its_bytes(
    tmp_path: Path, started: AnalysisWorker
) -> None:
    path = str(tmp_path / "app.py")
    started.offer(path, QUIET)
    judged = started.judge(path, SOURCE, FileTypes(), None)
    assert judged is not None
    assert [(d.line, d.code) for d in judged.diagnostics] == [(5, "LML003"), (6, "LML003")]
    other = str(tmp_path / "other.py")
    judged = started.judge(other, SOURCE.replace(b"print(m.content)\n", b"pass\n"), None, None)
    assert judged is not None
    assert [(d.line, d.code) for d in judged.diagnostics] == [(6, "LML003")]


def test_types_failure_is_judged_as_in_check(tmp_path: Path, started: AnalysisWorker) -> None:
    path = str(tmp_path / "quiet.py")
    judged = started.judge(path, QUIET, None, "mypy crashed")
    expected = analyze_source(path, QUIET, load_settings(tmp_path), types_failure="mypy crashed")
    assert judged is not None
    assert judged.diagnostics == expected.diagnostics
    assert [d.code for d in judged.diagnostics] == ["LML904"]


def test_a_worker_that_died_leaves_the_judging_to_mypys_process(
    tmp_path: Path, started: AnalysisWorker
) -> None:
    process = started._process  # pyright: ignore[reportPrivateUsage]
    assert process is not None
    process.kill()
    process.wait()
    path = str(tmp_path / "app.py")
    assert started.judge(path, SOURCE, None, None) is None
    assert not started.running
    started.offer(path, SOURCE)  # no longer starts anything
    assert not started.running
    assert started.screen(path, SOURCE) is None


def test_a_small_run_starts_no_worker(tmp_path: Path) -> None:
    analyst = AnalysisWorker(load_settings(tmp_path))
    analyst.offer(str(tmp_path / "app.py"), SOURCE)
    assert not analyst.running
    assert analyst.judge(str(tmp_path / "app.py"), SOURCE, None, None) is None


RECORDS = b"""\
class Note:
    content: str
"""
NOTES = b"""\
from records import Note


def shout(note: Note) -> str:
    return note.content.upper()
"""


def _notes_project(root: Path) -> tuple[str, Settings]:
    """``notes.py``'s path, reading a record of ``records.py``, and the project's settings."""
    (root / "records.py").write_bytes(RECORDS)
    (root / "notes.py").write_bytes(NOTES)
    return str(root / "notes.py"), load_settings(root)


def _assert_judged_as_analyze_source(
    started: AnalysisWorker,
    path: str,
    settings: Settings,
    types: FileTypes | None,
    findings: list[tuple[int, int, str]],
) -> None:
    judged = started.judge(path, NOTES, types, None)
    expected = analyze_source(path, NOTES, settings, types)
    assert judged is not None
    found = [(d.line, d.column, d.code) for d in judged.diagnostics]
    assert found == [(d.line, d.column, d.code) for d in expected.diagnostics], types
    assert found == findings, types


def test_a_file_importing_a_missing_module_is_judged_with_the_flow_its_types_need(
    tmp_path: Path, started: AnalysisWorker
) -> None:
    # Prepared both ways ahead (``order``'s second list): with types whose reads rest on an
    # unresolved import, or none, the project's classes are evidence (Note.content is text);
    # with types that need none, they are not, and this bare typing reports the read. Each
    # answer is analyze_source's for the same types.
    path, settings = _notes_project(tmp_path)
    started.order([path], [path])
    started.offer(path, NOTES)
    assert started.screen(path, NOTES) is True
    cases = [
        (FileTypes(unresolved=("acme",)), []),
        (FileTypes(), [(5, 12, "LML001")]),
        (None, []),
    ]
    for types, findings in cases:
        _assert_judged_as_analyze_source(started, path, settings, types, findings)
        started.offer(path, NOTES)


def test_a_file_whose_reads_rest_on_another_modules_missing_import_gets_the_flow_they_need(
    tmp_path: Path, started: AnalysisWorker
) -> None:
    # The file imports nothing missing, but a module of the build does (``order``'s second
    # list), and the types of a read can rest on it (a method a missing package's decorator
    # types ``Any``): the worker follows the prepared flow again with the project's classes
    # as evidence while it has nothing else to do, or when judging. Either way the answer is
    # analyze_source's for the same types.
    path, settings = _notes_project(tmp_path)
    started.order([path], [str(tmp_path / "agents.py")])
    cases = [
        (FileTypes(unresolved=("langfuse.decorators",)), []),
        (FileTypes(), [(5, 12, "LML001")]),
    ]
    for types, findings in cases:
        started.offer(path, NOTES)
        assert started.screen(path, NOTES) is True
        _assert_judged_as_analyze_source(started, path, settings, types, findings)


def test_the_snapshot_is_read_without_opening_mypys_store_for_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The worker reads when mypy's process has ended: opening mypy's store as mypy does (every
    # shard, for writing, in WAL mode) makes files in the cache while a script may be removing
    # it. The time read is mypy's own store's.
    import sqlite3
    import subprocess
    import sys

    from mypy.build import PLUGIN_SNAPSHOT_FILE
    from mypy.metastore import SqliteMetadataStore
    from mypy.options import Options

    (tmp_path / "a.py").write_text("x: int = 1\n", encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "mypy", "--sqlite-cache", "--cache-dir", ".mypy_cache", "a.py"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    (prefix,) = (tmp_path / ".mypy_cache").glob("3.*")
    shards = Options().sqlite_num_shards
    opened: list[tuple[str, bool]] = []
    connect = sqlite3.connect

    def recording(database: str, *args: object, **kwargs: object) -> sqlite3.Connection:
        opened.append((str(database), bool(kwargs.get("uri"))))
        return connect(database, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite3, "connect", recording)
    monkeypatch.setattr(sqlite3.dbapi2, "connect", recording)
    read = worker.MetastoreAt(str(prefix), True, shards).snapshot_time()
    monkeypatch.undo()

    assert len(opened) == 1
    ((database, uri),) = opened
    assert uri and database.startswith("file:") and database.endswith("?mode=ro&immutable=1")
    assert not list(prefix.glob("*-wal"))  # mypy closed its store: nothing left in a WAL
    store = SqliteMetadataStore(str(prefix), num_shards=shards)
    try:
        assert read == store.getmtime(PLUGIN_SNAPSHOT_FILE)
    finally:
        store.close()
    assert worker.MetastoreAt(str(tmp_path / "absent"), True, shards).snapshot_time() is None
    assert not (tmp_path / "absent").exists()
