"""Files -> result cache -> type oracle -> workers -> results. The CLI is a thin shell over this.

1. Files whose text cannot hold a content read (no content field or content type named in it)
   are only compiled by CPython, for syntax errors: LibCST never parses them.
2. With types, one in-process mypy build answers for every other file. Files whose bytes
   match their cached result are built unforced (from mypy's cache), only to learn their
   dependency key; their cached findings stand while that key does. The rest are forced: each
   one's facts are taken as soon as mypy has checked it, and its analysis starts then, while
   the build goes on. A cached file whose dependency key moved is built again, forced.
3. The files that need it are analysed on the workers; their results are cached.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import sys
import time
import tokenize
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from loomlint.engine.compilecheck import compiles, over_size, python_version
from loomlint.engine.diagnostics import FileResult, Guess
from loomlint.engine.prescreen import may_hold_content
from loomlint.engine.typefacts import FileTypes, has_typed_content
from loomlint.files.reading import Unreadable, read_source
from loomlint.project.config import Settings
from loomlint.project.preset_inference import chosen_presets
from loomlint.run.cache import (
    CACHE_DIR_NAME,
    CachedResult,
    ResultCache,
    ResultStore,
    files_key,
    files_unchanged,
    source_digest,
)
from loomlint.run.deepstack import deep_stack
from loomlint.run.interrupt import leave_interrupts_to_the_main_thread
from loomlint.run.plugin_results import PluginResult
from loomlint.run.workers import AnalysisPool, Task, file_diagnostic, plan_workers

if TYPE_CHECKING:
    from loomlint.run.oracle import OracleResult, SourceFile, TypeOracle

# ``loomlint.run.oracle`` (which imports mypy, a fifth of a second) is imported where a run
# needs mypy: a check answered from the result cache alone, right after ``mypy`` with the
# plugin, never does.

ProgressCallback = Callable[[int, int], None]


@dataclass(slots=True)
class RunResult:
    results: list[FileResult] = field(default_factory=list[FileResult])
    # Said once each on stderr: reduced precision, mypy unavailable, ...
    notes: list[str] = field(default_factory=list[str])
    # The digest of the bytes each file was analysed from (``fix`` writes only over those).
    digests: dict[str, str] = field(default_factory=dict[str, str])
    # Said once on stderr even under --quiet, and carried by the github and sarif reports:
    # what makes a type-aware run weaker than the user thinks (unresolved SPI imports).
    warnings: list[str] = field(default_factory=list[str])
    # The settings the files were checked under: the given ones, with the presets chosen from
    # the files' imports when none was configured (a later run on some of them reuses these).
    settings: Settings | None = None


def run_check(
    files: Sequence[Path | str],
    settings: Settings,
    *,
    progress: ProgressCallback | None = None,
    debug: bool = False,
    use_cache: bool = True,
    sources: Mapping[str, bytes] | None = None,
    oracle: TypeOracle | None = None,
    result_cache: ResultStore | None = None,
) -> RunResult:
    """Check ``files``. ``sources`` gives the text of files not to be read from disk (an
    editor's unsaved buffer, ``--stdin-filename``); they are checked as if they were there.
    ``oracle`` stands in for the run's own mypy build (the language server's warm one), and
    ``result_cache`` for the result cache in ``.loomlint_cache`` (a daemon's, in memory)."""

    def work() -> RunResult:
        leave_interrupts_to_the_main_thread()
        started = time.perf_counter()
        read, unreadable = read_sources(files, sources or {})
        # With no preset configured, the files' own imports choose them: read once, here.
        chosen, note = chosen_presets(settings, read.values())
        store = result_cache
        if store is None and use_cache:
            mode = "none" if chosen.types == "none" else "types"
            cache = ResultCache(
                chosen.project_root / CACHE_DIR_NAME, chosen.settings_fingerprint(), mode
            )
            # Right after mypy with loomlint's plugin, its worker may still be writing.
            cache.wait_for_writers()
            store = cache
        checking = _Run(chosen, progress, debug, store, oracle, started=started)
        run = checking.run(files, read, unreadable)
        run.settings = chosen
        if note is not None:
            run.notes.insert(0, note)
        return run

    return deep_stack(work)


class _Run:
    def __init__(
        self,
        settings: Settings,
        progress: ProgressCallback | None,
        debug: bool,
        cache: ResultStore | None,
        oracle: TypeOracle | None,
        *,
        started: float,
    ) -> None:
        self._settings = settings
        self._given_oracle = oracle
        self._progress = progress
        self._debug = debug
        self._cache = cache
        self._done = 0
        self._total = 0
        self.notes: list[str] = []
        # Analyses started, by path: each function waits for its result.
        self._pending: dict[str, Callable[[], FileResult]] = {}
        # The oracle's dependency key of each analysed file, kept with its cached result.
        self._keys: dict[str, str] = {}
        # LOOMLINT_TIMINGS=1 prints where a run's time went, on stderr.
        self._timings = os.environ.get("LOOMLINT_TIMINGS") == "1"
        # When the run began reading its files, for LOOMLINT_TIMINGS.
        self._started = started
        # Digests of the files CPython compiles: known from earlier runs, and found in this one.
        self._known_compilable = self._cache.compilable() if self._cache is not None else set[str]()
        self._compilable: set[str] = set()
        # Files CPython compiled in this run (those the result cache did not know to compile).
        self._compiled = 0
        # With types, the files that name no content and are not known to compile, and the
        # first worker's verdicts on them, asked while mypy builds (``start_screening``).
        self._plain: list[tuple[str, bytes]] = []
        self._plain_compiling: Future[list[bool]] | None = None
        # Why mypy could not run at all, when it could not.
        self._mypy_unavailable: str | None = None
        self._fact_seconds = 0.0

    def mark(self, phase: str) -> None:
        """A LOOMLINT_TIMINGS line: how long the run has taken when it reaches ``phase``."""
        if self._timings:
            elapsed = time.perf_counter() - self._started
            print(f"loomlint timings: {elapsed:7.2f} s  {phase}", file=sys.stderr)

    def run(
        self,
        files: Sequence[Path | str],
        sources: dict[str, bytes],
        unreadable: Mapping[str, str],
    ) -> RunResult:
        paths = [str(f) for f in files]
        self._total = len(paths)
        results: dict[str, FileResult] = {}
        for path, problem in unreadable.items():
            results[path] = file_diagnostic(path, "LML902", problem)
            self._tick()
        digests = {path: source_digest(source) for path, source in sources.items()}
        relevant: list[str] = []
        with_types = self._settings.types != "none"
        for path, source in sources.items():
            if self._may_hold_content(source):
                relevant.append(path)
            elif with_types and not self._known_to_compile(digests[path]):
                # Nothing to analyse, but a syntax error is still reported: compiled while
                # mypy builds (``_settle_plain``), not before.
                self._plain.append((path, source))
            elif self._compiles(source):
                # Nothing to analyse, but a syntax error is still reported (below).
                results[path] = FileResult(path=path)
                self._tick()
            else:
                relevant.append(path)
        self.mark(
            f"read and screened {len(paths)} files by text: {len(relevant)} to parse, "
            f"{self._compiled} compiled, {len(self._plain)} to compile"
        )
        cached = {path: self._cached(path, digests[path]) for path in relevant}
        pool = AnalysisPool(
            self._settings,
            plan_workers(
                sum(len(sources[p]) for p in relevant if cached[p] is None),
                with_types=self._settings.types != "none",
            ),
            debug=self._debug,
            # With types, they start as the build does (``_AnalyseAsFactsArrive.building``),
            # or when there is work for them: none when loomlint's plugin judges in the build.
            start_at_once=self._settings.types == "none",
        )
        self.mark(f"result cache: {sum(c is not None for c in cached.values())} hits")
        try:
            if self._settings.types == "none":
                self._plan_without_types(relevant, sources, cached, results, pool)
            else:
                self._plan_with_types(relevant, sources, cached, results, pool)
                self._settle_plain(results, pool)
            self.mark(f"planned: {len(self._pending)} files to analyse")
            phases: dict[str, float] = {}
            waited = 0.0
            for path, result_of in self._pending.items():
                started = time.perf_counter()
                result = results[path] = result_of()
                waited += time.perf_counter() - started
                for phase, seconds in result.phase_seconds.items():
                    phases[phase] = phases.get(phase, 0.0) + seconds
                self._tick()
                # A result judged without types because mypy failed is not kept. One judged
                # without types because an import was not found is: the dependency key of its
                # file moves when the package is installed, and the file is judged again.
                # Without types, a result that read other modules' classes stands while they
                # are unchanged.
                if self._cache is not None and not result.degraded:
                    key = self._keys.get(path)
                    if key is None and result.consulted:
                        key = files_key(result.consulted)
                    self._cache.put(path, digests[path], result, key)
            self.mark("analysed")
            self._mark_phases(phases, waited, pool.prepared_ahead)
            if self._cache is not None and self._compilable - self._known_compilable:
                self._cache.record_compilable(self._compilable | self._known_compilable)
        finally:
            pool.close()
            self.mark(f"workers stopped ({pool.workers_started} started)")
        run = RunResult(
            results=[results[path] for path in paths], notes=self.notes, digests=digests
        )
        if self._mypy_unavailable is None and any(result.degraded for result in run.results):
            run.notes.append(
                "mypy could not analyse some files (LML904); they were checked without types, "
                "so precision is reduced there"
            )
        without_types = {m for result in run.results for m in result.unresolved_untyped}
        run.warnings.extend(
            unresolved_imports_warning(
                run.results, without_types, report_guesses=self._settings.report_guesses
            )
        )
        run.warnings.extend(
            guesses_warnings(run.results, report_guesses=self._settings.report_guesses)
        )
        return run

    def _mark_phases(self, phases: dict[str, float], waited: float, prepared: int) -> None:
        """Where the analysis' time went, summed over files (workers run side by side)."""
        if not self._timings:
            return
        spent = ", ".join(
            f"{phase} {phases.get(phase, 0.0):.2f} s"
            for phase in ("parse", "flow", "positions", "judging")
        )
        self.mark(
            f"analysis, summed over files: {spent}; facts taken inside mypy's build "
            f"{self._fact_seconds:.2f} s; the run waited {waited:.2f} s for analyses after "
            f"the build; {prepared} files prepared while mypy built"
        )

    def _plan_without_types(
        self,
        relevant: list[str],
        sources: dict[str, bytes],
        cached: dict[str, CachedResult | None],
        results: dict[str, FileResult],
        pool: AnalysisPool,
    ) -> None:
        self.notes.append("checking without types (--no-types): precision is reduced")
        for path in relevant:
            hit = cached[path]
            # A result judged with other modules' classes stands while they are unchanged.
            if hit is not None and (
                hit.dependency_key is None or files_unchanged(hit.dependency_key)
            ):
                results[path] = hit.result
                self._tick()
            else:
                self._pending[path] = pool.submit(Task(path, sources[path], None, None))

    def _plan_with_types(
        self,
        relevant: list[str],
        sources: dict[str, bytes],
        cached: dict[str, CachedResult | None],
        results: dict[str, FileResult],
        pool: AnalysisPool,
    ) -> None:
        """Use what the cache still holds; start the analyses still to run as facts arrive."""
        if (
            self._cache is not None
            and all(cached[path] is not None for path in relevant)
            and self._cache.build_unchanged(relevant)
        ):
            # Every file's bytes match its cached result, and no file the last build read
            # has changed since: no type can differ, so mypy need not run.
            for path in relevant:
                hit = cached[path]
                assert hit is not None
                results[path] = hit.result
                self._tick()
            self.mark("nothing the last build read has changed: no mypy build")
            return
        from loomlint.run.oracle import SourceFile, dependency_key_holds

        texts = {path: _decoded(sources[path]) for path in relevant}
        # Files mypy cannot take would each stop its build with a blocking error, and each
        # stop costs a rebuild (the oracle's retry limit): enough of them would leave every
        # file without types. They are analysed without types (or refused) instead. Whether
        # CPython compiles a file is asked of every file before a warm build (the daemon's,
        # the language server's) only: a build of the run's own is started at once, and asks
        # it of every file once it stops on one (``refused_by_cpython``). Compiling them all
        # first would delay every build (0.13 s of langchain-core's 75 files) for the few
        # projects holding a file mypy cannot parse, whose first build then stops early.
        rejected = self._not_for_mypy_of(
            [path for path in relevant if texts[path] is not None],
            sources,
            compile=self._given_oracle is not None,
        )
        refused_by_cpython = functools.partial(self._not_for_mypy_of, sources=sources)

        for path in rejected:
            hit = cached[path]
            if hit is not None:  # no type went into it
                results[path] = hit.result
                self._tick()
        # While mypy builds, a worker screens the files it must analyse: most files that
        # mention content never read it, and need no LibCST analysis beyond that screen. Then
        # it prepares those that may report, for judging the moment mypy gives their facts.
        # Neither when loomlint's plugin judges them inside the build (``building``).
        to_analyse = [(p, sources[p]) for p in relevant if cached[p] is None]
        to_prepare = [(p, source) for p, source in to_analyse if p not in rejected]
        consumer = _AnalyseAsFactsArrive(self, pool, sources, to_analyse, to_prepare)
        if self._given_oracle is not None:
            # A warm build (the language server's, the daemon's) says nothing as it starts.
            consumer.start_screening()
        pool.hold_growth()
        oracle = self._oracle(
            [
                SourceFile(path, text, force=cached[path] is None)
                for path, text in texts.items()
                if text is not None and path not in rejected
            ],
            consumer,
            refused_by_cpython,
        )
        pool.release_growth()
        consumer.settle()
        self.mark(f"mypy built, {len(oracle.files) if oracle else 0} files' facts collected")
        if oracle is not None:
            rechecked = sorted(oracle.rechecked)
            self.mark(
                f"mypy re-checked {len(rechecked)} modules besides the checked files"
                + (f": {', '.join(rechecked[:20])}" if rechecked else "")
            )
        if oracle is None:
            for path in relevant:
                if path not in self._pending and path not in results:
                    self._pending[path] = pool.submit(
                        Task(path, sources[path], None, self._mypy_unavailable)
                    )
            return
        stale: list[str] = []
        for path in relevant:
            hit = cached[path]
            if hit is None or texts[path] is None or path in oracle.failures or path in rejected:
                continue
            if dependency_key_holds(hit.dependency_key, oracle.dependency_keys.get(path)):
                results[path] = hit.result
                self._tick()
            elif path in oracle.spare:
                # mypy checked it all the same: no second build for it.
                consumer.accept(path, oracle.spare[path])
            else:
                stale.append(path)
        if stale:
            # The interface of a module they depend on moved: build again with them forced.
            again = self._oracle(
                [SourceFile(p, texts[p] or "") for p in stale], consumer, refused_by_cpython
            )
            consumer.settle()
            self.mark(f"mypy built again for {len(stale)} cached files whose dependencies moved")
            if again is not None:
                oracle.failures.update(again.failures)
                oracle.inputs.update(again.inputs)
                oracle.dependency_keys.update(again.dependency_keys)
        for path, dependency_key in oracle.dependency_keys.items():
            self.record_key(path, dependency_key)
        if self._cache is not None and oracle.inputs:
            self._cache.record_build(relevant, oracle.inputs)
        for path in relevant:
            if path in results or path in self._pending:
                continue
            # mypy could not analyse it (LML904), or could not take its text at all.
            failure = oracle.failures.get(path) or self._mypy_unavailable
            if failure is None and texts[path] is None:
                failure = "mypy cannot read this file's text"
            elif path in rejected:
                failure = rejected[path]
            self._pending[path] = pool.submit(Task(path, sources[path], None, failure))

    def _oracle(
        self,
        files: list[SourceFile],
        consumer: _AnalyseAsFactsArrive,
        refuse: Callable[[Sequence[str]], Mapping[str, str]],
    ) -> OracleResult | None:
        from loomlint.run.oracle import MypyOracle, OracleResult, OracleUnavailable

        if not files:
            return OracleResult()
        oracle = self._given_oracle or MypyOracle(
            self._settings.spi,
            config_file=self._settings.mypy_config_file,
            project_plugins=self._settings.project_mypy_plugins,
            refuse=refuse,
        )
        try:
            result = oracle.analyze(files, consumer)
            self._fact_seconds += result.fact_seconds
            self.notes.extend(note for note in result.notes if note not in self.notes)
            return result
        except OracleUnavailable as exc:
            # Each file analysed without types says so (LML904): in every format, and in the
            # exit status, which a note on stderr (hidden by -q) is not.
            self._mypy_unavailable = f"mypy could not run ({exc})"
            self.notes.append(
                f"mypy could not run ({exc}); every file was checked without types, "
                "so precision is reduced"
            )
            return None

    def _not_for_mypy_of(
        self, paths: Sequence[str], sources: Mapping[str, bytes], *, compile: bool = True
    ) -> dict[str, str]:
        """``_not_for_mypy`` of each of ``paths``, for those mypy cannot analyse."""
        return {
            path: reason
            for path in paths
            if (reason := self._not_for_mypy(path, sources[path], compile=compile)) is not None
        }

    def _not_for_mypy(self, path: str, source: bytes, *, compile: bool = True) -> str | None:
        """Why mypy cannot analyse the file, if it cannot (``compile``: asking CPython too)."""
        if over_size(source) is not None:
            return "it is over one file's size budget, so mypy was not run on it"
        if compile and not self._compiles(source):
            return f"{python_version()} cannot compile it, so mypy was not run on it"
        try:
            path.encode("utf-8")
        except UnicodeEncodeError:
            return "its name is not valid UTF-8, which mypy cannot take"
        return None

    def start_compiling_plain(self, pool: AnalysisPool) -> None:
        """Have the first worker compile the files that name no content, while mypy builds."""
        if self._plain and self._plain_compiling is None:
            self._plain_compiling = pool.compile_files([source for _, source in self._plain])

    def _settle_plain(self, results: dict[str, FileResult], pool: AnalysisPool) -> None:
        """The files that name no content: nothing to analyse in those that compile; the
        others are analysed for their syntax error (LML901). Compiled here unless the first
        worker did it during the build."""
        verdicts: list[bool] | None = None
        compiling = self._plain_compiling
        if compiling is not None and compiling.exception() is None:
            verdicts = compiling.result()
        for index, (path, source) in enumerate(self._plain):
            if verdicts is None:
                compiled = self._compiles(source)
            else:
                compiled = verdicts[index]
                self._note_compiled(source_digest(source), compiled)
            if compiled:
                results[path] = FileResult(path=path)
                self._tick()
            else:
                failure = self._not_for_mypy(path, source)
                self._pending[path] = pool.submit(Task(path, source, None, failure))
        if self._plain:
            where = "here after the build" if verdicts is None else "by a worker during the build"
            self.mark(f"{len(self._plain)} files that name no content compiled {where}")

    def _known_to_compile(self, digest: str) -> bool:
        return digest in self._known_compilable or digest in self._compilable

    def _compiles(self, source: bytes) -> bool:
        """Whether CPython compiles the file, asked once per version of its bytes."""
        digest = source_digest(source)
        if self._known_to_compile(digest):
            return True
        compiled = compiles(source)
        self._note_compiled(digest, compiled)
        return compiled

    def _note_compiled(self, digest: str, compiled: bool) -> None:
        """CPython compiled these bytes in this run (here or on a worker): count it, and
        remember them if they compiled."""
        self._compiled += 1
        if compiled:
            self._compilable.add(digest)

    def _cached(self, path: str, digest: str) -> CachedResult | None:
        return self._cache.get(path, digest) if self._cache is not None else None

    def _may_hold_content(self, source: bytes) -> bool:
        return may_hold_content(source, self._settings)

    @property
    def settings_fingerprint(self) -> str:
        return self._settings.settings_fingerprint()

    def record_key(self, path: str, dependency_key: str) -> None:
        self._keys[path] = dependency_key

    def start(self, path: str, result_of: Callable[[], FileResult]) -> None:
        self._pending[path] = result_of

    def finish_empty(self, path: str) -> None:
        self._pending[path] = lambda: FileResult(path=path)

    def _tick(self) -> None:
        self._done += 1
        if self._progress is not None:
            self._progress(self._done, self._total)


class _AnalyseAsFactsArrive:
    """Starts each file's analysis the moment mypy has checked it, so that the workers
    analyse while mypy checks the modules that come after it."""

    def __init__(
        self,
        run: _Run,
        pool: AnalysisPool,
        sources: dict[str, bytes],
        to_screen: list[tuple[str, bytes]],
        to_prepare: list[tuple[str, bytes]],
    ) -> None:
        self._run = run
        self._pool = pool
        self._sources = sources
        self._to_screen: list[tuple[str, bytes]] | None = to_screen
        self._screening: Future[dict[str, bool]] | None = None
        self._to_prepare = to_prepare
        self._accepted: set[str] = set()
        # Facts of files whose screen had not said yet whether they may report.
        self._undecided: dict[str, FileTypes] = {}

    def start_screening(self) -> None:
        """Start the screen of the files to analyse (once), on the pool's first worker, and
        its compiling of the files that name no content."""
        if self._to_screen is not None:
            self._screening = self._pool.screen(self._to_screen)
            self._to_screen = None
            self._run.start_compiling_plain(self._pool)
            self._run.mark("screening started")

    def building(self, plugin_judges: bool) -> None:
        if not plugin_judges:
            self.start_screening()
            self._pool.prepare_ahead(self._to_prepare)
        # A second build (cached files whose dependencies moved) is small: nothing to prepare.
        # With the plugin judging, nothing to screen either: a file it judges is taken as it
        # judged it (``take_result``), and one it did not is analysed whole.
        self._to_screen = None
        self._to_prepare = []

    def screened(self, path: str) -> bool | None:
        if self._screening is None:
            return True
        if not self._screening.done():
            return None
        return self._verdicts().get(path, True)

    def _verdicts(self) -> dict[str, bool]:
        """The screen's verdicts, waiting for them; none (analyse everything) if it failed."""
        if self._screening is None or self._screening.exception() is not None:
            return {}
        return self._screening.result()

    def accept(self, path: str, facts: FileTypes | None) -> None:
        if path in self._accepted:
            return  # a build retried after a crash hands over the files it checked again
        self._accepted.add(path)
        if facts is not None and not has_typed_content(facts):
            screened = self.screened(path)
            if screened is None:
                self._undecided[path] = facts
                return
            if not screened:
                facts = None
        self._decide(path, facts)

    def take_result(self, path: str, found: PluginResult) -> bool:
        if path in self._accepted:
            return True
        if (
            found.settings_fingerprint != self._run.settings_fingerprint
            or found.source_digest != source_digest(self._sources[path])
        ):
            return False
        self._accepted.add(path)
        result = found.result
        diagnostics = [dataclasses.replace(d, path=path) for d in result.diagnostics]
        judged = dataclasses.replace(result, path=path, diagnostics=diagnostics)
        self._run.start(path, lambda: judged)
        return True

    def settle(self) -> None:
        """After the build: decide the files whose screen was still running."""
        undecided, self._undecided = self._undecided, {}
        verdicts = self._verdicts() if undecided else {}
        for path, facts in undecided.items():
            self._decide(path, facts if verdicts.get(path, True) else None)

    def _decide(self, path: str, facts: FileTypes | None) -> None:
        if facts is None:
            # Screened out, and mypy types nothing in it as content: nothing to report.
            self._run.finish_empty(path)
            return
        self._run.start(path, self._pool.submit(Task(path, self._sources[path], facts, None)))


def read_sources(
    files: Sequence[Path | str], given: Mapping[str, bytes]
) -> tuple[dict[str, bytes], dict[str, str]]:
    """Each file's bytes (``given``'s where it has them), and why each unreadable one is."""
    sources: dict[str, bytes] = {}
    unreadable: dict[str, str] = {}
    for path in map(str, files):
        if path in given:
            sources[path] = given[path]
            continue
        try:
            sources[path] = read_source(path)
        except Unreadable as exc:
            unreadable[path] = str(exc)
    return sources, unreadable


def unresolved_imports_warning(
    results: Sequence[FileResult], untyped: Collection[str] = (), *, report_guesses: bool = False
) -> list[str]:
    """For every file where mypy did not read the module defining a content read's receiver,
    a warning with the remedy: one for the modules mypy could not find (not installed where it
    looks), one for the names it found no definition of in a module it read (``module:name``
    entries: a misspelt import, or a version of the package without it), one for the modules
    ``untyped`` (installed, but shipping no type information, which mypy does not read unless
    told to). Each counts the findings there that rest on neither a type nor the presets' data
    (``Guess.MISSING_MODULE`` in ``FileResult.guesses``), the first of those kinds a file has
    taking them: left out, unless ``report_guesses``."""
    found: dict[str, dict[str, None]] = {"missing": {}, "name": {}, "unread": {}}
    files = dict.fromkeys(found, 0)
    guesses = dict.fromkeys(found, 0)
    for result in results:
        kinds: dict[str, None] = {}
        for entry in result.unresolved_imports:
            kind = "name" if ":" in entry else "unread" if entry in untyped else "missing"
            found[kind].setdefault(entry, None)
            kinds.setdefault(kind, None)
        for kind in kinds:
            files[kind] += 1
        first = next((kind for kind in found if kind in kinds), None)
        if first is not None:
            guesses[first] += result.guesses.get(Guess.MISSING_MODULE, 0)
    warnings: list[str] = []
    if found["missing"]:
        warnings.append(
            f"mypy could not find {', '.join(sorted(found['missing']))}, which defines the "
            f"messages read in {_files(files['missing'])}: "
            f"{_judged_there(guesses['missing'], report_guesses)}. "
            "Install the package where loomlint runs: in pre-commit, list it in the hook's "
            "additional_dependencies or use a `language: system` hook; otherwise install "
            "loomlint into the project's environment"
        )
    if found["name"]:
        names = ", ".join(
            f"`{name}` in {module}"
            for module, name in sorted(entry.split(":", 1) for entry in found["name"])
        )
        warnings.append(
            f"mypy found no {names}, which the messages read in {_files(files['name'])} are "
            f"typed by: {_judged_there(guesses['name'], report_guesses)}. mypy reports the "
            "import (attr-defined): correct the name, or install the version of the package "
            "that defines it"
        )
    if found["unread"]:
        unread = found["unread"]
        packages = sorted({module.split(".", 1)[0] for module in unread})
        overrides = ", ".join(f'"{p}", "{p}.*"' for p in packages)
        warnings.append(
            f"mypy does not read {', '.join(sorted(unread))}, which defines the messages read "
            f"in {_files(files['unread'])}: it is installed, but ships no type information (no "
            f"py.typed marker, no stubs); {_judged_there(guesses['unread'], report_guesses)}. "
            "Let mypy read its code: set `follow_untyped_imports = true` for it in your mypy "
            "configuration (`[[tool.mypy.overrides]]` with "
            f"`module = [{overrides}]`), or install stubs for it if there are any "
            "(`ignore_missing_imports` would only silence mypy)"
        )
    return warnings


def guesses_warnings(results: Sequence[FileResult], *, report_guesses: bool = False) -> list[str]:
    """For each kind of guess but the missing modules' (``unresolved_imports_warning`` words
    theirs, naming the modules), the findings of that kind (``FileResult.guesses``): why they
    rest on neither a type nor the presets' data, what became of them (left out unless
    ``report_guesses``), and the remedy that has them judged by types."""
    warnings: list[str] = []
    for kind, (why, remedy) in _SAID_OF_GUESSES.items():
        guesses = sum(result.guesses.get(kind, 0) for result in results)
        if not guesses:
            continue
        files = sum(1 for result in results if result.guesses.get(kind))
        if report_guesses:
            done = "it is reported as a guess" if guesses == 1 else "they are reported as guesses"
        else:
            done = f"{'it was' if guesses == 1 else 'they were'} {_NOT_REPORTED}"
        warnings.append(f"{_findings(guesses)} in {_files(files)} {why(guesses)}: {done}. {remedy}")
    return warnings


def _rest_on_any(count: int) -> str:
    return (
        f"{_rests(count)} on messages mypy types `Any` (a `dict[str, Any]`, a parameter declared "
        "`Any` or not annotated, an untyped library's value), which only their syntax says are "
        "content, and no preset knows those reads"
    )


def _are_unchecked(count: int) -> str:
    where = "is in a function" if count == 1 else "are in functions"
    return (
        f"{where} mypy does not check (no annotations, and check_untyped_defs is off), judged "
        "by syntax alone, and no preset knows those reads"
    )


def _are_skipped(count: int) -> str:
    where = "is in code" if count == 1 else "are in code"
    return (
        f"{where} mypy skips (a file whose first line is `# type: ignore`, a function of a "
        "module whose errors it ignores, a branch it deems unreachable), judged by syntax "
        "alone, and no preset knows those reads"
    )


def _are_untyped(count: int) -> str:
    where = "is in code" if count == 1 else "are in code"
    return (
        f"{where} checked without types, judged by syntax alone, and no preset knows those "
        "reads nor does a declared type say they are content"
    )


# Why a kind of guess is one, said of the count of its findings, and the remedy.
_SAID_OF_GUESSES: dict[Guess, tuple[Callable[[int], str], str]] = {
    Guess.TYPED_ANY: (
        _rest_on_any,
        "Declare the messages' types (the SDK's class, a TypedDict such as OpenAI's "
        "`ChatCompletionMessageParam`) to have them judged by types",
    ),
    Guess.UNCHECKED: (
        _are_unchecked,
        "Set `check_untyped_defs = true` in your mypy configuration to have them judged by types",
    ),
    Guess.SKIPPED: (
        _are_skipped,
        "Silence mypy's errors there with `disable_error_code` (a `# mypy: "
        "disable-error-code=...` line, or the module's override) instead of a leading "
        "`# type: ignore` or `ignore_errors`, under which mypy types nothing, and check a "
        "branch for another Python or platform with mypy's `python_version` or `platform` set "
        "to it, to have them judged by types",
    ),
    Guess.NO_TYPES: (
        _are_untyped,
        "Check with types (without --no-types, where mypy can check the files) to have them "
        "judged by types",
    ),
}


def _files(count: int) -> str:
    return f"{count} file{'s' if count != 1 else ''}"


def _findings(count: int) -> str:
    return f"{count} finding{'s' if count != 1 else ''}"


def _rests(count: int) -> str:
    return "rests" if count == 1 else "rest"


# What became of guesses left out, and how to have them.
_NOT_REPORTED = "not reported (--report-guesses, or `report-guesses = true`, reports them)"


def _judged_there(guesses: int, reported: bool) -> str:
    """How the reads of those messages were judged, and what became of the guesses."""
    judged = "their reads there are judged by the presets' data where it knows them"
    if not guesses:
        return f"{judged}, and no finding there is a guess"
    findings, rests = _findings(guesses), _rests(guesses)
    if reported:
        return (
            f"{judged}; {findings} there {rests} on neither types nor preset data, "
            "reported as guesses"
        )
    return (
        f"{judged}; {findings} there that {rests} on neither types nor preset data "
        f"{'was' if guesses == 1 else 'were'} {_NOT_REPORTED}"
    )


def _decoded(source: bytes) -> str | None:
    """The text mypy is given: the source decoded as Python decodes it."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None
