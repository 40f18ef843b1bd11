"""The plugin's second process: LibCST's parse and the flow, started while mypy still checks.

Parsing a file with LibCST, following its flow and computing its positions need no types, and
cost more than judging it does. So the plugin offers each module's bytes here as soon as mypy
has parsed the module (``Plugin.get_additional_deps``); this process screens and prepares it
(``engine.screen_source``, ``engine.prepare_analysis``) on the second core while mypy type-checks
other modules. Once mypy has checked the module, the plugin sends its facts, and this process
judges it (``engine.finish_analysis``) and answers: mypy waits only for that judgement.

Requests the plugin waits for (a screen's verdict, a judgement) go before preparing the next
file. Files are prepared last offered first: mypy parses a module before the modules it
imports, and checks it after them. What is prepared is held until judged, up to
``_HELD_BYTES`` of source (LibCST's trees take some seventy times their source's size); past it,
preparing waits, and a file judged before it was prepared is prepared then.

The protocol is pickled tuples over two pipes (``multiprocessing.connection``); the process
ends when the plugin's end of the pipe closes, mypy's exit included.
"""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import threading
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, cast

from loomlint.engine.diagnostics import FileResult
from loomlint.engine.typefacts import FileTypes
from loomlint.files.stamps import stat_files
from loomlint.project.config import Settings
from loomlint.run.cache import CACHE_DIR_NAME, ResultCache

if TYPE_CHECKING:
    from loomlint.engine.analyze import PreparedAnalysis, Screen

# Below this much offered source a run stays in mypy's process: starting the worker would
# cost more than it saves (as for loomlint check's workers).
START_BYTES = 256 * 1024
# Source bytes of the files held prepared at once.
_HELD_BYTES = 1024 * 1024
_WORKER_MAIN = "import sys; from loomlint.mypy_plugin.worker import main; main(sys.argv[1:])"
# How long the plugin waits for one answer before it judges in mypy's process instead.
_ANSWER_SECONDS = 300.0


@dataclass(frozen=True, slots=True)
class BuildRecord:
    """What the worker records for ``loomlint check`` once mypy's process has ended, if mypy
    completed its build: mypy writes its plugins' snapshot (``PLUGIN_SNAPSHOT_FILE``) last,
    after every module, so a snapshot other than ``snapshot_before`` says it did."""

    targets: tuple[str, ...]
    read: tuple[str, ...]
    metastore: MetastoreAt
    snapshot_before: float | None


@dataclass(frozen=True, slots=True)
class MetastoreAt:
    """Where mypy's cache keeps its metadata: a folder of files, or SQLite databases."""

    prefix: str
    sqlite: bool
    shards: int

    def snapshot_time(self) -> float | None:
        """When mypy last wrote its plugins' snapshot (None: never)."""
        from mypy.build import PLUGIN_SNAPSHOT_FILE
        from mypy.metastore import SqliteMetadataStore

        try:
            if not self.sqlite:
                return float(os.stat(os.path.join(self.prefix, PLUGIN_SNAPSHOT_FILE)).st_mtime_ns)
            store = SqliteMetadataStore(self.prefix, num_shards=self.shards)
            try:
                return store.getmtime(PLUGIN_SNAPSHOT_FILE)
            finally:
                store.close()
        except (OSError, ValueError, AssertionError):
            return None
        except Exception:  # sqlite3's own errors: no record is only a missed shortcut
            return None


class AnalysisWorker:
    """The plugin's side: offers, screens and judgements, and the process behind them."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._process: subprocess.Popen[bytes] | None = None
        self._requests: Connection | None = None
        self._answers: Connection | None = None
        self._waiting: list[tuple[str, bytes]] = []
        self._waiting_bytes = 0
        # Set once the process could not start or stopped answering: the run goes on without.
        self._broken = False
        # Parse and flow are worth moving out of mypy's process only with a core to spare.
        self._prepares = _has_a_second_core()

    @property
    def running(self) -> bool:
        return self._requests is not None

    def offer(self, path: str, source: bytes) -> None:
        """A module mypy has parsed and will check: prepare it if it is worth it."""
        if self._broken or not self._prepares:
            return
        if self._requests is None:
            self._waiting.append((path, source))
            self._waiting_bytes += len(source)
            if self._waiting_bytes >= START_BYTES:
                self._start()
            return
        self._send(("prepare", path, source))

    def screen(self, path: str, source: bytes) -> bool | None:
        """``engine.screen_source``'s verdict (whether the file may report without types naming
        one of its values content); None without the worker."""
        answer = self._ask(("screen", path, source))
        return answer if isinstance(answer, bool) else None

    def judge(
        self, path: str, source: bytes, facts: FileTypes | None, failure: str | None
    ) -> FileResult | None:
        """The file's ``analyze_source`` result; None without the worker."""
        answer = self._ask(("judge", path, source, facts, failure))
        return answer if isinstance(answer, FileResult) else None

    def drop(self, path: str) -> None:
        """The file needs no judgement: forget what was prepared for it."""
        if self._requests is not None:
            self._send(("drop", path))

    def keep(self, path: str, digest: str, result: FileResult) -> bool:
        """Hold ``result`` for the result cache until its dependency key is known (``key``),
        or mypy's process ends; the worker starts for it if it has not. False when there is
        no worker to hold it."""
        if self._requests is None and not self._broken:
            self._start()
        return self._send(("keep", path, digest, result))

    def key(self, path: str, key: str) -> None:
        """``path``'s dependency key is known: its cache entry can be written."""
        self._send(("key", path, key))

    def record(self, record: BuildRecord) -> None:
        """When mypy's process has ended, record the build if it completed."""
        self._send(("record", record))

    def _start(self) -> None:
        if self._requests is not None:
            return
        waiting, self._waiting, self._waiting_bytes = self._waiting, [], 0
        to_worker, from_plugin = os.pipe()
        to_plugin, from_worker = os.pipe()
        try:
            self._process = subprocess.Popen(
                # Imported under its own name (not run as __main__), so that the classes it
                # unpickles are the ones it checks for.
                [sys.executable, "-c", _WORKER_MAIN, str(to_worker), str(from_worker)],
                pass_fds=(to_worker, from_worker),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        except OSError:
            for fd in (to_worker, from_plugin, to_plugin, from_worker):
                os.close(fd)
            self._broken = True
            return
        os.close(to_worker)
        os.close(from_worker)
        self._requests = Connection(from_plugin, readable=False)
        self._answers = Connection(to_plugin, writable=False)
        self._send(("settings", self._settings))
        for path, source in waiting:
            self._send(("prepare", path, source))

    def _send(self, message: tuple[object, ...]) -> bool:
        if self._requests is None:
            return False
        try:
            self._requests.send(message)
        except (OSError, ValueError):
            self._stop()
            return False
        return True

    def _ask(self, message: tuple[object, ...]) -> object:
        if self._answers is None or not self._send(message):
            return None
        try:
            if self._answers.poll(_ANSWER_SECONDS):
                return self._answers.recv()
        except (OSError, EOFError, ValueError):
            pass
        self._stop()
        return None

    def _stop(self) -> None:
        """The worker failed: stop it; the plugin judges in mypy's process from now on."""
        self._broken = True
        for connection in (self._requests, self._answers):
            if connection is not None:
                connection.close()
        self._requests = self._answers = None
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None


def _has_a_second_core() -> bool:
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:  # pragma: no cover - not on Linux
        return (os.cpu_count() or 1) > 1


# --- the worker process ---------------------------------------------------------------------


@dataclass(slots=True)
class _File:
    source: bytes
    screen: Screen | None = None
    prepared: PreparedAnalysis | None = None


class _Worker:
    def __init__(self, requests: Connection, answers: Connection) -> None:
        self._requests = requests
        self._answers = answers
        self._settings: Settings | None = None
        self._lock = threading.Condition()
        self._asked: collections.deque[tuple[object, ...]] = collections.deque()
        self._offered: dict[str, bytes] = {}  # in order of offer; prepared last first
        self._files: dict[str, _File] = {}
        self._held_bytes = 0
        self._closed = False
        # Entries for the result cache, waiting for their dependency keys.
        self._kept: dict[str, tuple[str, FileResult]] = {}
        self._keyed: collections.deque[tuple[object, ...]] = collections.deque()
        self._record: BuildRecord | None = None
        self._result_cache: ResultCache | None = None

    def receive(self) -> None:
        """On its own thread: take the plugin's messages as they come."""
        while True:
            received: object
            try:
                received = self._requests.recv()
            except (EOFError, OSError):
                received = ("close",)
            message = cast("tuple[object, ...]", received)
            with self._lock:
                kind = message[0]
                if kind == "settings":
                    settings = message[1]
                    assert isinstance(settings, Settings)
                    self._settings = settings
                elif kind == "prepare":
                    path, source = message[1], message[2]
                    assert isinstance(path, str) and isinstance(source, bytes)
                    self._forget(path)
                    self._offered[path] = source
                elif kind == "drop":
                    assert isinstance(message[1], str)
                    self._forget(message[1])
                elif kind == "close":
                    self._closed = True
                elif kind in ("keep", "key", "record"):
                    self._keyed.append(message)
                else:
                    self._asked.append(message)
                self._lock.notify()
            if kind == "close":
                return

    def work(self) -> None:
        """On a deep-stack thread: answer what is asked, prepare in between."""
        while True:
            with self._lock:
                while not (
                    self._closed
                    or self._asked
                    or self._keyed
                    or (self._offered and self._held_bytes < _HELD_BYTES)
                ):
                    self._lock.wait()
                asked = self._asked.popleft() if self._asked else None
                keyed = self._keyed.popleft() if asked is None and self._keyed else None
                if asked is None and keyed is None and self._closed:
                    break
                offered = self._offered.popitem() if asked is None and keyed is None else None
            if asked is not None:
                self._answers.send(self._answer(asked))
            elif keyed is not None:
                self._bookkeep(keyed)
            elif offered is not None:
                self._prepare(*offered)
        self._finish()

    def _bookkeep(self, message: tuple[object, ...]) -> None:
        settings = self._settings
        assert settings is not None
        # Held from the first entry, while mypy still runs, to this process's end: a loomlint
        # check started the moment mypy exits must find it held (``wait_for_writers``).
        self._cache().hold_for_writing()
        kind = message[0]
        if kind == "record":
            record = message[1]
            assert isinstance(record, BuildRecord)
            self._record = record
            return
        path = message[1]
        assert isinstance(path, str)
        if kind == "keep":
            digest, result = message[2], message[3]
            assert isinstance(digest, str) and isinstance(result, FileResult)
            self._kept[path] = (digest, result)
        elif kind == "key":
            key = message[2]
            assert isinstance(key, str)
            kept = self._kept.pop(path, None)
            if kept is not None:
                self._cache().put(path, kept[0], kept[1], key)

    def _cache(self) -> ResultCache:
        if self._result_cache is None:
            settings = self._settings
            assert settings is not None
            self._result_cache = ResultCache(
                settings.project_root / CACHE_DIR_NAME, settings.settings_fingerprint(), "types"
            )
        return self._result_cache

    def _finish(self) -> None:
        """mypy's process has ended: write what is kept, and record the build if mypy
        completed it (see ``BuildRecord``). loomlint check, started right after mypy, waits
        for it (``ResultCache.wait_for_writers``)."""
        for path, (digest, result) in self._kept.items():
            self._cache().put(path, digest, result, None)
        record = self._record
        if record is None:
            return
        now = record.metastore.snapshot_time()
        if now is None or now == record.snapshot_before:
            return  # mypy stopped before the end of its build (a blocking error, a crash)
        self._cache().record_build(record.targets, stat_files(record.read))

    def _forget(self, path: str) -> None:
        self._offered.pop(path, None)
        known = self._files.pop(path, None)
        if known is not None and known.prepared is not None:
            self._held_bytes -= len(known.source)

    def _prepare(self, path: str, source: bytes) -> None:
        from loomlint.engine.analyze import prepare_analysis, screen_source

        settings = self._settings
        assert settings is not None
        screen = _without_tree(screen_source(path, source, settings))
        prepared = prepare_analysis(screen, settings, imported=False) if screen.may_report else None
        with self._lock:
            if path in self._offered or self._closed:
                return  # offered again meanwhile (mypy's daemon): that offer stands
            self._files[path] = _File(source, screen, prepared)
            if prepared is not None:
                self._held_bytes += len(source)

    def _answer(self, asked: tuple[object, ...]) -> object:
        from loomlint.engine.analyze import (
            finish_analysis,
            needs_imported_classes,
            prepare_analysis,
            screen_source,
        )
        from loomlint.run.workers import guarded_analysis

        settings = self._settings
        assert settings is not None
        kind, path, source = asked[0], asked[1], asked[2]
        assert isinstance(path, str) and isinstance(source, bytes)
        with self._lock:
            self._offered.pop(path, None)
            known = self._files.get(path)
            if known is None or known.source != source:
                known = self._files[path] = _File(source)
        screen = known.screen
        if screen is None:
            screen = known.screen = _without_tree(screen_source(path, source, settings))
        if kind == "screen":
            return screen.may_report
        facts, failure = asked[3], asked[4]
        assert facts is None or isinstance(facts, FileTypes)
        assert failure is None or isinstance(failure, str)
        with self._lock:
            self._forget(path)
        if not screen.needs_analysis(facts, failure):
            return FileResult(path=path, unresolved_imports=facts.unresolved if facts else ())
        prepared = known.prepared

        def judged() -> FileResult:
            if prepared is not None:
                prepared.deadline.restart()
            ready = prepared or prepare_analysis(
                screen, settings, imported=needs_imported_classes(facts)
            )
            return finish_analysis(ready, settings, facts, types_failure=failure)

        return guarded_analysis(path, judged, debug=False)


def _without_tree(screen: Screen) -> Screen:
    """CPython's syntax tree served the screen; preparing needs only the verdict."""
    return replace(screen, verdict=replace(screen.verdict, tree=None))


def main(argv: list[str]) -> None:
    from loomlint.run.deepstack import deep_stack

    requests = Connection(int(argv[0]), writable=False)
    answers = Connection(int(argv[1]), readable=False)
    worker = _Worker(requests, answers)
    threading.Thread(target=worker.receive, name="loomlint-plugin-receive", daemon=True).start()
    deep_stack(worker.work)
