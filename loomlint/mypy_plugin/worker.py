"""The plugin's second process: what needs no types, done on the second core while mypy checks.

Screening a file (CPython's parse), parsing it with LibCST, following its flow and computing
its positions need no types, and cost more than judging it does. So the plugin offers each
module's bytes here as soon as mypy has parsed the module (``Plugin.get_additional_deps``), and
the order mypy will check them in once its graph is loaded (``order``). This process screens
every offered file (``engine.screen_source``) and sends each verdict back unasked, then
prepares the files that may report (``engine.prepare_analysis``, with their suppression
comments) in mypy's order, so that each is ready before mypy has checked it; once a judgement
has shown that a file the graph did not name needed its flow followed again with the project's
imported classes as evidence, it follows the others' so while it has nothing else to do
(``_start_following_ahead``). Once mypy has checked a module, the plugin sends its facts,
and this process judges it (``engine.finish_analysis``) and answers: the one thing mypy's
process waits for, and only a judgement's worth (a few milliseconds) when the file was
prepared in time.

Neither process ever blocks on the other's pipe: what a full pipe cannot take is written by a
thread of its own, so mypy's process never waits while this one is busy parsing, and this one
never waits while mypy's is busy checking. Requests mypy waits for are answered at once on a
thread of their own; another keeps the result cache's books, screens, then prepares, and
starts none of these while mypy's process waits for an answer: in one interpreter, the two
threads would share it, and LibCST's parse holds it outright. What is prepared is held until
judged, up to ``_HELD_BYTES`` of source (LibCST's trees take some seventy times their
source's size); past it, preparing waits, and a file judged before it was prepared is prepared
then. The budget is large enough that a mid-sized project's files are all prepared while mypy
checks what they import (camel-ai's 3 MB: 130 files, the worker at 264 MB): a budget that ran
out would leave preparing for the moment mypy judges, sharing the worker with the answers.

The process ends with mypy's: when the plugin's end of the pipe closes (mypy's exit, or its
being killed), the thread that reads the pipe writes what is left for the result cache (a few
milliseconds: entries are written as their keys come, and the build's file stamps were taken
while mypy ran), records the build if mypy completed it, and exits the process at once, whatever
the other thread was preparing.
"""

from __future__ import annotations

import collections
import contextlib
import os
import pickle
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, cast

from loomlint.engine.diagnostics import FileResult
from loomlint.engine.typefacts import FileTypes
from loomlint.files.stamps import FileStamp, stat_files
from loomlint.project.config import Settings
from loomlint.run.cache import CACHE_DIR_NAME, ResultCache
from loomlint.run.heap import freeze_what_is_held

if TYPE_CHECKING:
    from loomlint.engine.analyze import PreparedAnalysis, Screen

# Below this much offered source a run stays in mypy's process: starting the worker would
# cost more than it saves (as for loomlint check's workers).
START_BYTES = 256 * 1024
# Source bytes of the files held prepared at once (see the module's docstring).
_HELD_BYTES = 8 * 1024 * 1024
_WORKER_MAIN = "import sys; from loomlint.mypy_plugin.worker import main; main(sys.argv[1:])"
# How long the plugin waits for one answer before it judges in mypy's process instead.
_ANSWER_SECONDS = 300.0
# Pipes this large hold every offer of a mid-sized project at once (Linux lets a process
# grow its pipes to /proc/sys/fs/pipe-max-size, 1 MiB by default): fewer handovers.
_PIPE_BYTES = 1024 * 1024
_F_SETPIPE_SZ = 1031
# LOOMLINT_TIMINGS=1 in mypy's environment: the worker prints, when it ends, where the plugin's
# time went in both processes (on mypy's stderr, after mypy's own output).
TIMINGS = os.environ.get("LOOMLINT_TIMINGS") == "1"


@dataclass(slots=True)
class PluginTimings:
    """Where mypy's process spent the plugin's time (LOOMLINT_TIMINGS): what it did itself (the
    facts taken from mypy's types, analyses it made without the worker) and what it waited
    for (the worker's verdicts and judgements); CPU seconds of mypy's thread, wall seconds of
    its waits."""

    facts_seconds: float = 0.0
    facts_files: int = 0
    analysed_seconds: float = 0.0
    analysed_files: int = 0
    verdict_wait_seconds: float = 0.0
    verdicts: int = 0
    judge_wait_seconds: float = 0.0
    judgements: int = 0
    sent_bytes: int = 0
    messages: int = 0


@dataclass(slots=True)
class _WorkerTimings:
    """The worker's side: CPU seconds of its working thread per step."""

    screened: list[float] = field(default_factory=lambda: [0.0, 0.0])
    prepared: list[float] = field(default_factory=lambda: [0.0, 0.0])
    # Prepared files followed again with imported classes ahead (``_follow_imported``).
    followed_ahead: list[float] = field(default_factory=lambda: [0.0, 0.0])
    judged: list[float] = field(default_factory=lambda: [0.0, 0.0])
    prepared_when_judged: int = 0
    # Of those, the files whose flow judging followed again, prepared without the project's
    # imported classes as evidence when their types needed them, or the other way round.
    followed_again: int = 0
    # Requests that came while a file was being prepared (their answer shares the interpreter
    # with that preparation until it ends).
    asked_while_preparing: int = 0
    bookkept: list[float] = field(default_factory=lambda: [0.0, 0.0])
    compiled: list[float] = field(default_factory=lambda: [0.0, 0.0])


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
        """When mypy last wrote its plugins' snapshot (None: never).

        Read without writing anything in mypy's cache: mypy's own store opens every shard
        for writing and in WAL mode, which makes ``-wal`` and ``-shm`` files beside each
        database; the worker reads after mypy's process has ended, so a script that removes
        the cache then (``rm -rf .mypy_cache``) would race it. Only the shard that holds the
        snapshot is opened, read-only, and as immutable (no lock, no ``-shm``) where no WAL
        is left beside it: a store closed has moved its WAL into the database."""
        from mypy.build import PLUGIN_SNAPSHOT_FILE

        try:
            if not self.sqlite:
                return float(os.stat(os.path.join(self.prefix, PLUGIN_SNAPSHOT_FILE)).st_mtime_ns)
            return _sqlite_mtime(self.prefix, self.shards, PLUGIN_SNAPSHOT_FILE)
        except (OSError, ValueError):
            return None
        except Exception:  # sqlite3's own errors: no record is only a missed shortcut
            return None


def _sqlite_mtime(prefix: str, shards: int, name: str) -> float | None:
    """The ``mtime`` mypy's SQLite store records for ``name`` (as
    ``SqliteMetadataStore.getmtime``), read from the one shard that holds it."""
    import sqlite3
    import urllib.parse

    from mypy.util import hash_path_stem

    database = "cache.db" if shards <= 1 else f"cache.{hash_path_stem(name) % shards}.db"
    path = os.path.join(prefix, database)
    if not os.path.isfile(path):
        return None  # connecting would make it
    # A store left open (or not closed by its process) keeps its last writes in its WAL:
    # read through it then. Without one, every write is in the database itself.
    mode = "ro" if os.path.exists(path + "-wal") else "ro&immutable=1"
    uri = f"file:{urllib.parse.quote(os.path.abspath(path))}?mode={mode}"
    connection = sqlite3.connect(uri, uri=True)
    try:
        rows = connection.execute("SELECT mtime FROM files2 WHERE path = ?", (name,)).fetchall()
    finally:
        connection.close()
    return float(rows[0][0]) if len(rows) == 1 else None


class _Outbox:
    """Messages to a pipe, never waiting for its reader: each is written at once while the
    pipe has room (so that what mypy's process sends last is in the pipe before it exits,
    which it does without warning), and what the pipe cannot take yet is written by a thread
    of its own, in order, as the reader makes room. Framed as ``Connection.send_bytes`` frames
    them, so that the reader's ``Connection.recv`` reads them."""

    def __init__(self, fd: int, name: str) -> None:
        self._fd = fd
        os.set_blocking(fd, False)
        self._pending: collections.deque[memoryview] = collections.deque()
        self._lock = threading.Condition()
        self.broken = False
        self.sent_bytes = 0
        self.messages = 0
        threading.Thread(target=self._run, name=name, daemon=True).start()

    def put(self, message: tuple[object, ...]) -> bool:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        frame = memoryview(struct.pack("!i", len(data)) + data)
        with self._lock:
            if self.broken:
                return False
            self.sent_bytes += len(frame)
            self.messages += 1
            if not self._pending:
                frame = self._write(frame)
                if not frame:
                    return not self.broken
            self._pending.append(frame)
            self._lock.notify()
        return True

    def close(self) -> None:
        with self._lock:
            if not self.broken:
                self.broken = True
                os.close(self._fd)
            self._lock.notify()

    def _write(self, frame: memoryview) -> memoryview:
        """(Under the lock.) What of ``frame`` the pipe did not take."""
        try:
            return frame[os.write(self._fd, frame) :]
        except BlockingIOError:
            return frame
        except OSError:  # the reader is gone
            self.broken = True
            return frame[:0]

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLOUT)
        while True:
            with self._lock:
                while not (self._pending or self.broken):
                    self._lock.wait()
                if self.broken:
                    return
            poller.poll()  # until the reader makes room (or is gone)
            with self._lock:
                while self._pending and not self.broken:
                    rest = self._write(self._pending[0])
                    if rest:
                        self._pending[0] = rest
                        break
                    self._pending.popleft()


class AnalysisWorker:
    """The plugin's side: offers, screens and judgements, and the process behind them."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._process: subprocess.Popen[bytes] | None = None
        self._outbox: _Outbox | None = None
        self._answers: Connection | None = None
        self._waiting: list[tuple[str, bytes]] = []
        self._waiting_bytes = 0
        # The latest offer of each file, and the worker's verdicts on offers, by offer number.
        self._offers: dict[str, tuple[int, bytes]] = {}
        self._verdicts: dict[int, bool] = {}
        self._sequence = 0
        # Set once the process could not start or stopped answering: the run goes on without.
        self._broken = False
        # Parse and flow are worth moving out of mypy's process only with a core to spare.
        self._prepares = _has_a_second_core()
        # Whether offers go to the worker: once they add up to ``START_BYTES``.
        self._offering = False
        self.timings = PluginTimings()

    @property
    def running(self) -> bool:
        """Whether the worker screens, prepares and judges (not only keeps the books)."""
        return self._offering and self._outbox is not None

    def offer(self, path: str, source: bytes, *, start: bool = False) -> None:
        """A module mypy has parsed and will check: screen it, and prepare it if it may
        report. ``start``: the worker is needed anyway (to keep the result cache's books):
        started now, while mypy has most of its build ahead, it is ready long before the
        build ends, and ends with it."""
        if start:
            self._start()
        if self._broken or not self._prepares:
            return
        if self._offering:
            self._send_offer(path, source)
            return
        self._waiting.append((path, source))
        self._waiting_bytes += len(source)
        if self._waiting_bytes >= START_BYTES:
            self._start()
            self._offering = self._outbox is not None
            waiting, self._waiting, self._waiting_bytes = self._waiting, [], 0
            for waiting_path, waiting_source in waiting:
                self._send_offer(waiting_path, waiting_source)

    def order(self, paths: list[str], missing_imports: list[str]) -> None:
        """The order mypy will check the offered files in (the rest come after), and the files
        that import a module mypy could not find (``checked.with_missing_imports``)."""
        self._send(("order", paths, missing_imports))

    def screen(self, path: str, source: bytes) -> bool | None:
        """``engine.screen_source``'s verdict (whether the file may report without types naming
        one of its values content); None without the worker. Usually sent before it is asked
        for: then it costs nothing."""
        if not self.running:
            return None
        offered = self._offers.get(path)
        if offered is None or offered[1] != source:
            answer = self._ask(("screen", path, source))
            return answer if isinstance(answer, bool) else None
        sequence = offered[0]
        self._take_verdicts()
        started = time.perf_counter()
        while sequence not in self._verdicts:
            if self._next_message() is None:
                return None
        self.timings.verdicts += 1
        self.timings.verdict_wait_seconds += time.perf_counter() - started
        return self._verdicts[sequence]

    def judge(
        self, path: str, source: bytes, facts: FileTypes | None, failure: str | None
    ) -> FileResult | None:
        """The file's ``analyze_source`` result; None without the worker."""
        self._forget(path)
        started = time.perf_counter()
        answer = self._ask(("judge", path, source, facts, failure))
        self.timings.judgements += 1
        self.timings.judge_wait_seconds += time.perf_counter() - started
        return answer if isinstance(answer, FileResult) else None

    def send_timings(self) -> None:
        """With LOOMLINT_TIMINGS=1: mypy's side of the timings so far, for the worker to print
        when it ends (mypy's process has no moment of its own at the end)."""
        if TIMINGS and self._outbox is not None:
            self.timings.sent_bytes = self._outbox.sent_bytes
            self.timings.messages = self._outbox.messages
            self._send(("timings", self.timings))

    def drop(self, path: str) -> None:
        """The file needs no judgement: forget what was prepared for it. Only a file offered
        and neither judged nor dropped since is held by the worker (it forgets a file at its
        judgement too): most of a build's modules name no content, were never offered, and
        cost no message."""
        if self._outbox is not None and path in self._offers:
            self._forget(path)
            self._send(("drop", path))

    def keep(self, path: str, digest: str, result: FileResult) -> bool:
        """Hold ``result`` for the result cache until its dependency key is known (``key``),
        or mypy's process ends; the worker starts for it if it has not. False when there is
        no worker to hold it."""
        if self._outbox is None and not self._broken:
            self._start()
        return self._send(("keep", path, digest, result))

    def key(self, path: str, key: str) -> None:
        """``path``'s dependency key is known: its cache entry can be written."""
        self._send(("key", path, key))

    def record(self, record: BuildRecord) -> None:
        """When mypy's process has ended, record the build if it completed."""
        self._send(("record", record))

    def _forget(self, path: str) -> None:
        offered = self._offers.pop(path, None)
        if offered is not None:
            self._verdicts.pop(offered[0], None)

    def _send_offer(self, path: str, source: bytes) -> None:
        self._sequence += 1
        self._forget(path)
        self._offers[path] = (self._sequence, source)
        self._send(("offer", self._sequence, path, source))

    def _start(self) -> None:
        if self._outbox is not None or self._broken:
            return
        to_worker, from_plugin = os.pipe()
        to_plugin, from_worker = os.pipe()
        for fd in (from_plugin, from_worker):
            _grow_pipe(fd)
        try:
            self._process = subprocess.Popen(
                # Imported under its own name (not run as __main__), so that the classes it
                # unpickles are the ones it checks for.
                [sys.executable, "-c", _WORKER_MAIN, str(to_worker), str(from_worker)],
                pass_fds=(to_worker, from_worker),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=None if TIMINGS else subprocess.DEVNULL,
            )
        except OSError:
            for fd in (to_worker, from_plugin, to_plugin, from_worker):
                os.close(fd)
            self._broken = True
            return
        os.close(to_worker)
        os.close(from_worker)
        self._outbox = _Outbox(from_plugin, "loomlint-plugin-send")
        self._answers = Connection(to_plugin, writable=False)
        self._send(("settings", self._settings))

    def _send(self, message: tuple[object, ...]) -> bool:
        outbox = self._outbox
        if outbox is None:
            return False
        if not outbox.put(message):
            self._stop()
            return False
        return True

    def _ask(self, message: tuple[object, ...]) -> object:
        """Send a request and wait for its answer (the worker answers requests in order)."""
        if not self._send(("ask", *message)):
            return None
        while (received := self._next_message()) is not None:
            if received[0] == "answer":
                return received[1]
        return None

    def _take_verdicts(self) -> None:
        """Take the verdicts the worker has sent so far, without waiting."""
        answers = self._answers
        try:
            while answers is not None and answers.poll(0):
                self._keep_verdict(cast("tuple[object, ...]", answers.recv()))
        except (OSError, EOFError, ValueError, pickle.UnpicklingError):
            self._stop()

    def _next_message(self) -> tuple[object, ...] | None:
        """Wait for the worker's next message; None when the worker is gone."""
        answers = self._answers
        if answers is None:
            return None
        try:
            if answers.poll(_ANSWER_SECONDS):
                message = cast("tuple[object, ...]", answers.recv())
                self._keep_verdict(message)
                return message
        except (OSError, EOFError, ValueError, pickle.UnpicklingError):
            pass
        self._stop()
        return None

    def _keep_verdict(self, message: tuple[object, ...]) -> None:
        if message[0] == "screened":
            sequence, verdict = message[1], message[2]
            assert isinstance(sequence, int) and isinstance(verdict, bool)
            self._verdicts[sequence] = verdict

    def _stop(self) -> None:
        """The worker failed: stop it; the plugin judges in mypy's process from now on."""
        self._broken = True
        if self._outbox is not None:
            self._outbox.close()
        if self._answers is not None:
            self._answers.close()
        self._outbox = self._answers = None
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None


def _has_a_second_core() -> bool:
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:  # pragma: no cover - not on Linux
        return (os.cpu_count() or 1) > 1


def _grow_pipe(fd: int) -> None:
    try:
        import fcntl

        fcntl.fcntl(fd, _F_SETPIPE_SZ, _PIPE_BYTES)
    except (OSError, ImportError):  # another platform, or a lower limit: the default serves
        pass


# --- the worker process ---------------------------------------------------------------------


@dataclass(slots=True)
class _File:
    sequence: int
    source: bytes
    screen: Screen | None = None
    prepared: PreparedAnalysis | None = None
    # For a file that imports a module mypy could not find: its flow followed again with the
    # project's imported classes as evidence, which its types may need (judging then picks).
    prepared_imported: PreparedAnalysis | None = None


def _may_want_imported_flow(known: _File) -> bool:
    """A prepared file, without the flow that takes the project's imported classes as
    evidence, whose flow found content (a read mypy could not type would need that one)."""
    prepared = known.prepared
    return prepared is not None and known.prepared_imported is None and bool(prepared.flow)


class _Worker:
    def __init__(self, requests: Connection, answers: int) -> None:
        self._requests = requests
        self._outbox = _Outbox(answers, "loomlint-worker-send")
        self._settings: Settings | None = None
        self._lock = threading.Condition()
        self._asked: collections.deque[tuple[object, ...]] = collections.deque()
        # Offered files, by path; those still to screen, and those to prepare.
        self._files: dict[str, _File] = {}
        self._to_screen: set[str] = set()
        self._to_prepare: set[str] = set()
        # Prepared files whose flow may yet be wanted with the project's imported classes as
        # evidence (``_follow_imported``), once nothing is left to screen or prepare: from the
        # first judgement that wanted it of a file the guess (``_missing_imports``) left out.
        self._to_follow: set[str] = set()
        self._follow_ahead = False
        # The file the working thread is preparing (a judgement of it waits for it).
        self._preparing: str | None = None
        # Whether the answering thread is answering (the working thread waits meanwhile).
        self._answering = False
        # The order mypy checks files in (see ``AnalysisWorker.order``); files it does not name
        # come after, in the order offered.
        self._rank: dict[str, int] = {}
        # Files that import a module mypy could not find: their reads may rest on a class mypy
        # could not type, so they are prepared with the project's imported classes as evidence
        # too (``_File.prepared_imported``).
        self._missing_imports: frozenset[str] = frozenset()
        self._held_bytes = 0
        self._closed = False
        # The result cache's bookkeeping: its messages, and the entries waiting for their keys.
        # Written under ``_writing``, which the last writes (``_finish``) take too.
        self._writing = threading.Lock()
        self._keyed: collections.deque[tuple[object, ...]] = collections.deque()
        self._kept: dict[str, tuple[str, FileResult]] = {}
        self._record: BuildRecord | None = None
        self._record_stamps: dict[str, FileStamp] | None = None
        # The build's files that name no content, to compile while the worker has nothing
        # else to do, and the digests of those that compiled (``_compile``).
        self._to_compile: collections.deque[str] = collections.deque()
        self._compilable: set[str] = set()
        self._result_cache: ResultCache | None = None
        self._plugin_timings: PluginTimings | None = None
        self._timings = _WorkerTimings()

    def receive(self) -> None:
        """On its own thread: take the plugin's messages as they come; when the pipe closes,
        finish and end the process."""
        while True:
            try:
                message = cast("tuple[object, ...]", self._requests.recv())
            except (EOFError, OSError, pickle.UnpicklingError):
                break
            with self._lock:
                self._take(message)
                self._lock.notify_all()
        closed = time.perf_counter()
        with self._lock:
            self._closed = True
        with self._writing:
            self._finish()
        if TIMINGS:
            self._print_timings(time.perf_counter() - closed)
        os._exit(0)

    def _take(self, message: tuple[object, ...]) -> None:
        kind = message[0]
        if kind == "settings":
            settings = message[1]
            assert isinstance(settings, Settings)
            self._settings = settings
        elif kind == "offer":
            sequence, path, source = message[1], message[2], message[3]
            assert isinstance(sequence, int) and isinstance(path, str)
            assert isinstance(source, bytes)
            self._forget(path)
            self._files[path] = _File(sequence, source)
            self._to_screen.add(path)
        elif kind == "order":
            paths = cast("list[str]", message[1])
            self._rank = {path: rank for rank, path in enumerate(paths)}
            self._missing_imports = frozenset(cast("list[str]", message[2]))
        elif kind == "drop":
            path = message[1]
            assert isinstance(path, str)
            self._forget(path)
        elif kind in ("keep", "key", "record"):
            self._keyed.append(message)
        elif kind == "timings":
            timings = message[1]
            assert isinstance(timings, PluginTimings)
            self._plugin_timings = timings
        else:
            self._asked.append(message[1:])
            self._timings.asked_while_preparing += self._preparing is not None

    def work(self) -> None:
        """On a deep-stack thread: keep the books, screen and prepare."""
        while True:
            with self._lock:
                # Nothing starts while mypy's process waits for an answer: this thread would
                # share the interpreter with the answering one, and hold it outright while
                # LibCST parses (a large file's parse holds it for tenths of a second).
                while (
                    self._asked
                    or self._answering
                    or not (self._keyed or self._has_files_to_analyse() or self._to_compile)
                ):
                    self._lock.wait()
                bookkeeping = bool(self._keyed)
                path = known = compiling = None
                if not bookkeeping:
                    if self._has_files_to_analyse():
                        waiting = self._to_screen or self._to_prepare or self._to_follow
                        path = self._first(waiting)
                        waiting.discard(path)
                        known = self._files[path]
                        if known.screen is not None:
                            self._preparing = path
                    else:  # the least urgent: only ``loomlint check`` after mypy gains by it
                        compiling = self._to_compile.popleft()
            started = time.thread_time()
            if bookkeeping:
                self._bookkeep()
                spent = self._timings.bookkept
            elif compiling is not None:
                self._compile(compiling)
                spent = self._timings.compiled
            elif path is not None and known is not None:
                if known.screen is None:
                    self._screen(path, known)
                    spent = self._timings.screened
                elif known.prepared is None:
                    self._prepare(path, known)
                    spent = self._timings.prepared
                else:
                    self._follow_imported(path, known)
                    spent = self._timings.followed_ahead
            else:
                continue
            spent[0] += 1
            spent[1] += time.thread_time() - started

    def answer(self, running: threading.Event) -> None:
        """On a deep-stack thread of its own: answer what mypy's process asks, at once. The
        working thread starts nothing while a request waits or is being answered (``work``);
        a preparation already under way shares the interpreter with the answer until it ends
        (at a switch interval, but not during LibCST's parse, which holds it). A judgement of
        the file being prepared waits for its preparation to end, rather than repeat it."""
        running.set()
        while True:
            with self._lock:
                while not self._asked:
                    self._lock.wait()
                asked = self._asked.popleft()
                self._answering = True
                while self._preparing is not None and self._preparing == asked[1]:
                    self._lock.wait()
            started = time.thread_time()
            try:
                self._outbox.put(("answer", self._answer(asked)))
            finally:
                with self._lock:
                    self._answering = bool(self._asked)
                    self._lock.notify_all()
            self._timings.judged[0] += 1
            self._timings.judged[1] += time.thread_time() - started

    def _has_files_to_analyse(self) -> bool:
        """(Under the lock.) A file to screen, or to prepare or follow again while the
        prepared ones held are under their budget."""
        return bool(
            self._to_screen
            or ((self._to_prepare or self._to_follow) and self._held_bytes < _HELD_BYTES)
        )

    def _first(self, paths: set[str]) -> str:
        """The path mypy checks first (then the first offered)."""
        last = len(self._rank)
        return min(paths, key=lambda p: (self._rank.get(p, last), self._files[p].sequence))

    def _screen(self, path: str, known: _File) -> None:
        from loomlint.engine.analyze import screen_source

        settings = self._settings
        assert settings is not None
        screen = screen_source(path, known.source, settings).without_tree()
        with self._lock:
            if self._files.get(path) is not known:
                return  # offered again or judged meanwhile
            known.screen = screen
            if screen.may_report:
                self._to_prepare.add(path)
        self._outbox.put(("screened", known.sequence, screen.may_report))

    def _prepare(self, path: str, known: _File) -> None:
        from loomlint.engine.analyze import followed_again, prepare_analysis, read_suppressions

        settings = self._settings
        assert settings is not None and known.screen is not None
        prepared_imported = None
        with self._failing_preparation():
            prepared = prepare_analysis(known.screen, settings, imported=False)
            read_suppressions(prepared)
            if path in self._missing_imports:
                # Which flow its types need is known only once mypy has checked it: both are
                # ready then, and mypy waits for neither.
                prepared_imported = followed_again(prepared, settings, imported=True)
        with self._lock:
            self._end_preparing()
            if self._files.get(path) is not known:
                return
            known.prepared = prepared
            known.prepared_imported = prepared_imported
            self._held_bytes += len(known.source)
            if self._follow_ahead and _may_want_imported_flow(known):
                self._to_follow.add(path)
        freeze_what_is_held()

    def _end_preparing(self) -> None:
        """(Under the lock.) The working thread is done preparing ``_preparing``: a judgement
        of that file that waits for it goes on once the lock is let go, so what was prepared
        is kept under the same hold of the lock, or that judgement would not find it and
        prepare the file again."""
        self._preparing = None
        self._lock.notify_all()

    @contextlib.contextmanager
    def _failing_preparation(self) -> Generator[None, None, None]:
        """Around a preparation: if it raises, a judgement waiting for it goes on (and
        prepares the file itself)."""
        try:
            yield
        except BaseException:
            with self._lock:
                self._end_preparing()
            raise

    def _start_following_ahead(self) -> None:
        """(Under the lock.) A file that imports no missing module needed the flow with the
        project's imported classes: a module it reads from imports one (a class whose methods
        a missing package's decorator types ``Any``), and so may the files mypy checks next.
        From now on, each prepared file whose flow found content is followed that way too,
        while there is nothing else to do (``_follow_imported``)."""
        if self._follow_ahead:
            return
        self._follow_ahead = True
        self._to_follow.update(
            p for p, known in self._files.items() if _may_want_imported_flow(known)
        )

    def _follow_imported(self, path: str, known: _File) -> None:
        """Follow a prepared file's flow again with the project's imported classes as
        evidence, ahead of its judgement (``_start_following_ahead``): its facts say whether
        it needs that flow only once mypy has checked it, and following it then is what mypy's
        process would wait for."""
        from loomlint.engine.analyze import followed_again

        settings = self._settings
        prepared = known.prepared
        assert settings is not None and prepared is not None
        with self._failing_preparation():
            prepared_imported = followed_again(prepared, settings, imported=True)
        with self._lock:
            self._end_preparing()
            if self._files.get(path) is known:
                known.prepared_imported = prepared_imported
        freeze_what_is_held()

    def _forget(self, path: str) -> None:
        """(Under the lock.)"""
        known = self._files.pop(path, None)
        self._to_screen.discard(path)
        self._to_prepare.discard(path)
        self._to_follow.discard(path)
        if known is not None and known.prepared is not None:
            self._held_bytes -= len(known.source)

    def _bookkeep(self) -> None:
        """The next bookkeeping message, taken under ``_writing``: what the end of the process
        finds left (``_finish``) was never begun."""
        with self._writing:
            with self._lock:
                if not self._keyed:
                    return
                message = self._keyed.popleft()
            self._keep_the_books(message)

    def _keep_the_books(self, message: tuple[object, ...]) -> None:
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
            # Stamped now, after mypy read the files (when it loaded its graph), so that the
            # end of the run has only the record to write: a file changed since is found
            # changed, whichever bytes mypy read.
            self._record_stamps = stat_files(record.read)
            with self._lock:
                self._to_compile.extend(record.targets)
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

    def _compile(self, path: str) -> None:
        """Compile one of the build's files, if it names no content: ``loomlint check`` right
        after mypy compiles each such file to report a syntax error (LML901), unless the
        result cache says that these bytes compiled (``ResultCache.compilable``). Done here
        while mypy runs, that check has nothing left to compile. The file is read from disk:
        if it changed since mypy read it, its new bytes are what the check will find."""
        from loomlint.engine.compilecheck import compiles
        from loomlint.engine.prescreen import may_hold_content
        from loomlint.run.cache import source_digest

        settings = self._settings
        assert settings is not None
        try:
            with open(path, "rb") as file:
                source = file.read()
        except OSError:
            return
        if not may_hold_content(source, settings) and compiles(source):
            with self._lock:
                self._compilable.add(source_digest(source))

    def _cache(self) -> ResultCache:
        if self._result_cache is None:
            settings = self._settings
            assert settings is not None
            self._result_cache = ResultCache(
                settings.project_root / CACHE_DIR_NAME, settings.settings_fingerprint(), "types"
            )
        return self._result_cache

    def _finish(self) -> None:
        """mypy's process has ended: keep the books still waiting, write what is kept, and
        record the build if mypy completed it (see ``BuildRecord``). loomlint check, started
        right after mypy, waits for it (``ResultCache.wait_for_writers``)."""
        if self._settings is None:
            return
        with self._lock:
            waiting = list(self._keyed)
            self._keyed.clear()
        for message in waiting:
            self._keep_the_books(message)
        for path, (digest, result) in self._kept.items():
            self._cache().put(path, digest, result, None)
        with self._lock:  # the working thread may be compiling one more
            compilable = set(self._compilable)
        if compilable:
            cache = self._cache()
            cache.record_compilable(cache.compilable() | compilable)
        record, stamps = self._record, self._record_stamps
        if record is None or stamps is None:
            return
        now = record.metastore.snapshot_time()
        if now is None or now == record.snapshot_before:
            return  # mypy stopped before the end of its build (a blocking error, a crash)
        self._cache().record_build(record.targets, stamps)

    def _answer(self, asked: tuple[object, ...]) -> object:
        from loomlint.engine.analyze import (
            finish_analysis,
            judge_prepared,
            needs_imported_classes,
            nothing_to_analyse,
            prepare_analysis,
            screen_source,
        )
        from loomlint.run.workers import guarded_analysis

        settings = self._settings
        assert settings is not None
        kind, path, source = asked[0], asked[1], asked[2]
        assert isinstance(path, str) and isinstance(source, bytes)
        with self._lock:
            known = self._files.get(path)
            if known is None or known.source != source:
                known = _File(-1, source)
            screen = known.screen
            if kind == "judge":
                self._forget(path)
        if screen is None:
            screen = screen_source(path, source, settings).without_tree()
        if kind == "screen":
            return screen.may_report
        facts, failure = asked[3], asked[4]
        assert facts is None or isinstance(facts, FileTypes)
        assert failure is None or isinstance(failure, str)
        if not screen.needs_analysis(facts, failure):
            return nothing_to_analyse(path, facts)
        imported = needs_imported_classes(facts)
        prepared = known.prepared
        if known.prepared_imported is not None and imported:
            prepared = known.prepared_imported
        elif imported and facts is not None and path not in self._missing_imports:
            with self._lock:
                self._start_following_ahead()
                self._lock.notify_all()
        self._timings.prepared_when_judged += prepared is not None
        self._timings.followed_again += prepared is not None and prepared.imported != imported

        def judged() -> FileResult:
            if prepared is not None:
                return judge_prepared(prepared, settings, facts, types_failure=failure)
            ready = prepare_analysis(screen, settings, imported=imported)
            return finish_analysis(ready, settings, facts, types_failure=failure)

        return guarded_analysis(path, judged, debug=False)

    def _print_timings(self, ending_seconds: float) -> None:
        mine = self._timings
        lines: list[str] = []
        plugin = self._plugin_timings
        if plugin is not None:
            lines.append(
                f"mypy's process: facts from mypy's types {plugin.facts_seconds:.2f} s "
                f"({plugin.facts_files} files), analysed itself {plugin.analysed_seconds:.2f} s "
                f"({plugin.analysed_files} files); waited {plugin.judge_wait_seconds:.2f} s for "
                f"{plugin.judgements} judgements and {plugin.verdict_wait_seconds:.2f} s for "
                f"{plugin.verdicts} screens; sent {plugin.messages} messages, "
                f"{plugin.sent_bytes / 1e6:.1f} MB"
            )
        lines.append(
            f"worker: screened {mine.screened[0]:.0f} files in {mine.screened[1]:.2f} s, "
            f"prepared {mine.prepared[0]:.0f} in {mine.prepared[1]:.2f} s, followed "
            f"{mine.followed_ahead[0]:.0f} again with imported classes in "
            f"{mine.followed_ahead[1]:.2f} s, judged "
            f"{mine.judged[0]:.0f} in {mine.judged[1]:.2f} s ({mine.prepared_when_judged} "
            f"prepared before they were asked for, {mine.followed_again} of them followed "
            f"again, {mine.asked_while_preparing} asked while another was being prepared), "
            f"result cache {mine.bookkept[1]:.2f} s, the build's files that name no content "
            f"compiled in {mine.compiled[1]:.2f} s ({mine.compiled[0]:.0f} files read); "
            f"ended {ending_seconds:.3f} s after mypy's process"
        )
        for line in lines:
            print(f"loomlint timings (mypy plugin): {line}", file=sys.stderr, flush=True)


def main(argv: list[str]) -> None:
    from loomlint.run.deepstack import deep_stack

    # Threads hand the interpreter over every millisecond, not five: a judgement mypy waits for
    # starts sooner while the preparing thread runs Python code.
    sys.setswitchinterval(0.001)
    requests = Connection(int(argv[0]), writable=False)
    worker = _Worker(requests, int(argv[1]))
    threading.Thread(target=worker.receive, name="loomlint-plugin-receive", daemon=True).start()
    # One deep-stack thread at a time: ``deep_stack`` sets the size of the next thread's stack.
    answering = threading.Event()
    threading.Thread(
        target=lambda: deep_stack(lambda: worker.answer(answering)),
        name="loomlint-plugin-answer",
        daemon=True,
    ).start()
    answering.wait()
    deep_stack(worker.work)
