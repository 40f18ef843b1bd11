"""Files -> result cache -> type oracle -> workers -> results. The CLI is a thin shell over this.

1. Files whose text cannot hold a content read (no content field or content type named in it)
   are only compiled by CPython, for syntax errors: LibCST never parses them.
2. With types, one in-process mypy build answers for every other file. Files whose bytes
   match their cached result are built unforced (from mypy's cache), only to learn their
   dependency key; their cached findings stand while that key does. The rest are forced and
   their facts extracted. A cached file whose dependency key moved is built again, forced.
3. The files that need it are analysed on every core; their results are cached.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from loomlint.analysis.oracle import MypyOracle, OracleResult, OracleUnavailable, SourceFile
from loomlint.analysis.typefacts import has_typed_content
from loomlint.cache import CACHE_DIR_NAME, CachedResult, ResultCache, source_digest
from loomlint.config import Settings
from loomlint.deepstack import deep_stack
from loomlint.diagnostics import FileResult
from loomlint.workers import AnalysisPool, Task, file_diagnostic, should_parallelise

ProgressCallback = Callable[[int, int], None]

_DEPTH_ERRORS = ("too many nested parentheses", "too many levels of indentation", "too complex")


@dataclass(slots=True)
class RunResult:
    results: list[FileResult] = field(default_factory=list[FileResult])
    # Said once each on stderr: reduced precision, mypy unavailable, ...
    notes: list[str] = field(default_factory=list[str])


def run_check(
    files: Sequence[Path | str],
    settings: Settings,
    *,
    progress: ProgressCallback | None = None,
    debug: bool = False,
    use_cache: bool = True,
) -> RunResult:
    return deep_stack(lambda: _Run(settings, progress, debug, use_cache).run(files))


class _Run:
    def __init__(
        self,
        settings: Settings,
        progress: ProgressCallback | None,
        debug: bool,
        use_cache: bool,
    ) -> None:
        self._settings = settings
        self._progress = progress
        self._debug = debug
        mode = "none" if settings.types == "none" else "types"
        self._cache = (
            ResultCache(
                settings.project_root / CACHE_DIR_NAME, settings.settings_fingerprint(), mode
            )
            if use_cache
            else None
        )
        self._done = 0
        self._total = 0
        self.notes: list[str] = []

    def run(self, files: Sequence[Path | str]) -> RunResult:
        paths = [str(f) for f in files]
        self._total = len(paths)
        results: dict[str, FileResult] = {}
        sources: dict[str, bytes] = {}
        for path in paths:
            try:
                sources[path] = Path(path).read_bytes()
            except OSError as exc:
                results[path] = file_diagnostic(
                    path, "LML902", f"the file cannot be read ({exc.strerror}); it was not checked"
                )
                self._tick()
        relevant: list[str] = []
        for path, source in sources.items():
            if self._needs_parse(source):
                relevant.append(path)
            else:
                results[path] = FileResult(path=path)
                self._tick()
        digests = {path: source_digest(sources[path]) for path in relevant}
        cached = {path: self._cached(path, digests[path]) for path in relevant}
        pool = AnalysisPool(
            self._settings,
            parallel=should_parallelise(
                sum(len(sources[p]) for p in relevant if cached[p] is None)
            ),
            debug=self._debug,
        )
        try:
            tasks = self._plan(relevant, sources, digests, cached, results, pool)
            for task, result in zip(tasks, pool.map(tasks, self._tick), strict=True):
                results[task.path] = result
                if self._cache is not None and task.types_failure is None:
                    self._cache.put(task.path, digests[task.path], result, task.dependency_key)
        finally:
            pool.close()
        run = RunResult(results=[results[path] for path in paths], notes=self.notes)
        if any(result.degraded for result in run.results):
            run.notes.append(
                "mypy could not analyse some files (LML904); they were checked without types, "
                "so precision is reduced there"
            )
        return run

    def _plan(
        self,
        relevant: list[str],
        sources: dict[str, bytes],
        digests: dict[str, str],
        cached: dict[str, CachedResult | None],
        results: dict[str, FileResult],
        pool: AnalysisPool,
    ) -> list[Task]:
        """Use what the cache still holds; return the analyses still to run."""
        if self._settings.types == "none":
            self.notes.append("checking without types (--no-types): precision is reduced")
            tasks: list[Task] = []
            for path in relevant:
                hit = cached[path]
                if hit is not None:
                    results[path] = hit.result
                    self._tick()
                else:
                    tasks.append(Task(path, sources[path], None, None, None))
            return tasks
        texts = {path: _text_for_mypy(sources[path]) for path in relevant}
        # While mypy builds, a worker screens the files it must analyse: most files that
        # mention content never read it, and need no LibCST analysis beyond that screen.
        screening = pool.screen([(p, sources[p]) for p in relevant if cached[p] is None])
        oracle = self._oracle(
            [
                SourceFile(path, text, force=cached[path] is None)
                for path, text in texts.items()
                if text is not None
            ]
        )
        if oracle is None:
            return [Task(path, sources[path], None, None, None) for path in relevant]
        stale: list[str] = []
        for path in relevant:
            hit = cached[path]
            if hit is not None and texts[path] is not None and path not in oracle.failures:
                if oracle.dependency_keys.get(path) == hit.dependency_key:
                    results[path] = hit.result
                    self._tick()
                else:
                    stale.append(path)
        if stale:
            # The interface of a module they depend on moved: build again with them forced.
            again = self._oracle([SourceFile(p, texts[p] or "") for p in stale])
            if again is not None:
                oracle.files.update(again.files)
                oracle.failures.update(again.failures)
                oracle.dependency_keys.update(again.dependency_keys)
        verdicts = screening.result() if screening is not None else {}
        pending: list[Task] = []
        for path in relevant:
            if path in results:
                continue
            task = Task(
                path,
                sources[path],
                oracle.files.get(path),
                oracle.failures.get(path),
                oracle.dependency_keys.get(path),
            )
            if verdicts.get(path, True) or task.types_failure or has_typed_content(task.types):
                pending.append(task)
                continue
            results[path] = FileResult(path=path)
            self._tick()
            if self._cache is not None:
                self._cache.put(path, digests[path], results[path], task.dependency_key)
        return pending

    def _oracle(self, files: list[SourceFile]) -> OracleResult | None:
        if not files:
            return OracleResult()
        oracle = MypyOracle(self._settings.spi, config_file=self._settings.mypy_config_file)
        try:
            return oracle.analyze(files)
        except OracleUnavailable as exc:
            self.notes.append(
                f"mypy could not run ({exc}); every file was checked without types, "
                "so precision is reduced"
            )
            return None

    def _cached(self, path: str, digest: str) -> CachedResult | None:
        return self._cache.get(path, digest) if self._cache is not None else None

    def _needs_parse(self, source: bytes) -> bool:
        """Whether LibCST must see the file: it may hold content, a suppression to report
        as unused, or CPython cannot compile it (LibCST decides what that means)."""
        spi = self._settings.spi
        words = [*spi.content_fields, *spi.content_types.short_names]
        if any(word.encode() in source for word in words):
            return True
        if self._settings.report_unused_suppressions and (
            b"loomlint" in source or b"noqa" in source
        ):
            return True
        return _text_for_mypy(source) is None

    def _tick(self) -> None:
        self._done += 1
        if self._progress is not None:
            self._progress(self._done, self._total)


def _text_for_mypy(source: bytes) -> str | None:
    """The decoded text, if CPython compiles it (mypy cannot take what CPython cannot)."""
    try:
        compile(source, "<loomlint>", "exec", flags=0x400, dont_inherit=True)
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError, LookupError):
        return None
