"""A stand-in for ``loomlint.run.runner.run_check``, so CLI tests need no analysis."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from loomlint.engine.diagnostics import Diagnostic, FileResult
from loomlint.project.config import Settings


@dataclass
class FakeRunResult:
    results: list[FileResult]
    notes: list[str]
    digests: dict[str, str] = field(default_factory=dict[str, str])
    warnings: list[str] = field(default_factory=list[str])


@dataclass
class FakeRunner:
    """Stands in for ``loomlint.run.runner.run_check``: returns the diagnostics it is given."""

    findings: list[Diagnostic] = field(default_factory=list[Diagnostic])
    notes: list[str] = field(default_factory=list[str])
    warnings: list[str] = field(default_factory=list[str])
    error: Exception | None = None
    calls: list[tuple[list[str], Settings]] = field(
        default_factory=list[tuple[list[str], Settings]]
    )
    # The sources each call was given instead of files on disk.
    sources: list[dict[str, bytes]] = field(default_factory=list[dict[str, bytes]])
    # Whether each call was given a progress callback.
    progress_given: list[bool] = field(default_factory=list[bool])

    def __call__(
        self,
        files: Sequence[Path | str],
        settings: Settings,
        *,
        progress: Callable[[int, int], None] | None = None,
        debug: bool = False,
        use_cache: bool = True,
        sources: Mapping[str, bytes] | None = None,
    ) -> FakeRunResult:
        self.calls.append(([str(f) for f in files], settings))
        self.sources.append(dict(sources or {}))
        self.progress_given.append(progress is not None)
        if self.error is not None:
            raise self.error
        results = [
            FileResult(path=str(f), diagnostics=[d for d in self.findings if d.path == str(f)])
            for f in files
        ]
        if progress is not None:
            for done in range(1, len(files) + 1):
                progress(done, len(files))
        return FakeRunResult(results=results, notes=list(self.notes), warnings=list(self.warnings))

    @property
    def settings(self) -> Settings:
        return self.calls[-1][1]

    @property
    def files(self) -> list[str]:
        return self.calls[-1][0]
