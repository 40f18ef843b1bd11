"""Files -> type oracle -> per-file analysis -> results. The CLI is a thin shell over this.

The oracle (one in-process mypy build for all files) runs first; each file is then analysed
with its facts. A file whose text cannot hold a content read is not parsed by LibCST at all,
only compiled by CPython to catch syntax errors.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from loomlint.analysis.engine import analyze_source, deep_stack
from loomlint.analysis.oracle import MypyOracle, OracleResult, OracleUnavailable, SourceFile
from loomlint.analysis.typefacts import FileTypes
from loomlint.catalog import load_catalog
from loomlint.config import Settings
from loomlint.diagnostics import Diagnostic, FileResult

ProgressCallback = Callable[[int, int], None]


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
) -> RunResult:
    return deep_stack(lambda: _run(files, settings, progress, debug))


def _run(
    files: Sequence[Path | str],
    settings: Settings,
    progress: ProgressCallback | None,
    debug: bool,
) -> RunResult:
    run = RunResult()
    paths = [str(f) for f in files]
    sources = {path: _read(path) for path in paths}
    oracle = _types_for(sources, settings, run)
    for done, path in enumerate(paths, start=1):
        source = sources[path]
        if isinstance(source, OSError):
            run.results.append(_unreadable(path, source))
        else:
            run.results.append(_analyze(path, source, settings, oracle, debug))
        if progress is not None:
            progress(done, len(paths))
    if any(result.degraded for result in run.results):
        run.notes.append(
            "mypy could not analyse some files (LML904); they were checked without types, "
            "so precision is reduced there"
        )
    return run


def _read(path: str) -> bytes | OSError:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        return exc


def _types_for(
    sources: dict[str, bytes | OSError], settings: Settings, run: RunResult
) -> OracleResult | None:
    if settings.types == "none":
        run.notes.append("checking without types (--no-types): precision is reduced")
        return None
    wanted: list[SourceFile] = []
    for path, source in sources.items():
        if isinstance(source, OSError) or not _may_hold_content(source, settings):
            continue
        text = _decoded_if_compilable(source)
        if text is not None:
            wanted.append(SourceFile(path, text))
    if not wanted:
        return OracleResult()
    try:
        return MypyOracle(settings.spi, config_file=settings.mypy_config_file).analyze(wanted)
    except OracleUnavailable as exc:
        run.notes.append(
            f"mypy could not run ({exc}); every file was checked without types, "
            "so precision is reduced"
        )
        return None


def _analyze(
    path: str,
    source: bytes,
    settings: Settings,
    oracle: OracleResult | None,
    debug: bool,
) -> FileResult:
    types: FileTypes | None = None
    failure: str | None = None
    if oracle is not None:
        types = oracle.files.get(path)
        failure = oracle.failures.get(path)
    try:
        return analyze_source(path, source, settings, types, types_failure=failure)
    except Exception as exc:
        if debug:
            raise
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return _file_diagnostic(
            path,
            "LML905",
            f"internal error while analysing this file ({detail}); "
            "run with --debug for the traceback",
        )


def _may_hold_content(source: bytes, settings: Settings) -> bool:
    """Whether the file's text mentions a content field or a content type at all."""
    spi = settings.spi
    words = [*spi.content_fields, *spi.content_types.short_names]
    return any(word.encode() in source for word in words)


def _decoded_if_compilable(source: bytes) -> str | None:
    """The text mypy will see, if CPython can compile it (mypy cannot take what it cannot)."""
    try:
        compile(source, "<loomlint>", "exec", flags=0x400, dont_inherit=True)
        import io
        import tokenize

        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError, LookupError):
        return None


def _unreadable(path: str, error: OSError) -> FileResult:
    return _file_diagnostic(
        path, "LML902", f"the file cannot be read ({error.strerror}); it was not checked"
    )


def _file_diagnostic(path: str, code: str, message: str) -> FileResult:
    rule = load_catalog().rule(code)
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
                name=rule.name,
                message=message,
            )
        ],
    )
