"""A module mypy has checked, judged by the engine ``loomlint check`` runs, and its findings
reported as mypy errors.

The plugin takes the module's facts from mypy's tree and types (``FactCollector``, as
``loomlint check``'s build does) and hands them, with the bytes mypy checked, to
``analysis.engine.analyze_source``: the same screens decide which files need it, the same
code judges, the same suppressions apply. Each finding is reported under its rule's mypy code
(``mypy_plugin.codes``), at the engine's line and column, with the engine's message, in the
module's error context, so mypy prints it, honours ``# type: ignore[code]`` and
``disable_error_code`` for it, and replays it from its cache.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass

from mypy.errors import Errors
from mypy.nodes import MypyFile
from mypy.options import Options

from loomlint.engine.diagnostics import Diagnostic, FileResult
from loomlint.engine.facts import FactCollector, types_content
from loomlint.engine.prescreen import may_hold_content, may_report
from loomlint.engine.typefacts import FileTypes, has_typed_content
from loomlint.mypy_plugin.checked import CheckedModule
from loomlint.mypy_plugin.codes import ERROR_CODE_OF_RULE, MYPY_CODES
from loomlint.mypy_plugin.suppressions import mark_type_ignores_used
from loomlint.mypy_plugin.worker import AnalysisWorker
from loomlint.project.config import Settings
from loomlint.run.deepstack import deep_stack


class ModuleAnalyst:
    """Judges the modules mypy checks with the engine: in the plugin's second process
    (``mypy_plugin.worker``) once the run is large enough to pay for it, else in mypy's."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._worker = AnalysisWorker(settings)

    @property
    def worker(self) -> AnalysisWorker:
        return self._worker

    def offer(self, path: str, source: bytes, *, recording: bool) -> None:
        """mypy has parsed the module at ``path`` and will check it: what needs no types may
        start now. ``recording``: its result will be recorded (by the worker)."""
        if may_hold_content(source, self._settings):
            self._worker.offer(os.path.abspath(path), source, start=recording)

    def order(self, paths: list[str], missing_imports: list[str]) -> None:
        """The order mypy will check the offered modules in, and which of them import a module
        mypy could not find: the worker prepares them in that order, and those for judging
        with the project's imported classes as evidence."""
        if paths or missing_imports:
            self._worker.order(paths, missing_imports)

    def analyse(self, module: CheckedModule) -> FileResult | None:
        """The engine's result for ``module``; None when the screens that spare ``loomlint
        check`` the analysis of a file say it has nothing to report."""
        settings = self._settings
        source = module.source
        path = os.path.abspath(module.path)
        if source is None or not may_hold_content(source, settings):
            self._worker.drop(path)
            return None
        screened = self._worker.screen(path, source) if self._worker.running else None
        if screened is None:
            screened = may_report(source, settings)
        facts: FileTypes | None = None
        failure: str | None = None
        timings = self._worker.timings
        started = time.thread_time()
        try:
            if screened or types_content(module.tree, module.types, settings.spi):
                facts = FactCollector(
                    module.types,
                    settings.spi,
                    module.options,
                    check_untyped_defs=module.options.check_untyped_defs,
                    build=module.manager,
                ).collect(module.tree)
        except Exception as exc:  # loomlint's own bug: the file goes without types, as in check
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            failure = f"internal error while reading mypy's types ({detail})"
        timings.facts_seconds += time.thread_time() - started
        timings.facts_files += facts is not None
        if failure is None and not screened and not has_typed_content(facts):
            self._worker.drop(path)
            return None
        try:
            if self._worker.running:
                judged = self._worker.judge(path, source, facts, failure)
                if judged is not None:
                    return judged
            # Imported when mypy's process analyses a file itself, not at mypy's start.
            from loomlint.run.workers import Task, analyse_task

            task = Task(path, source, facts, failure)
            started = time.perf_counter()
            result = deep_stack(lambda: analyse_task(task, settings, False))
            # On a thread of its own, while mypy's waits: its wall time is mypy's.
            timings.analysed_seconds += time.perf_counter() - started
            timings.analysed_files += 1
            return result
        finally:
            self._worker.send_timings()


@dataclass(frozen=True, slots=True)
class Judged:
    """What the plugin reports for one module: enough to report it again (``report``)."""

    path: str
    module: str
    tree: MypyFile
    options: Options
    # The findings under a mypy code, in the engine's order.
    findings: tuple[Diagnostic, ...]


def judged(module: CheckedModule, result: FileResult | None) -> Judged:
    findings = () if result is None else result.diagnostics
    return Judged(
        module.path,
        module.module,
        module.tree,
        module.options,
        tuple(d for d in findings if d.code in ERROR_CODE_OF_RULE),
    )


def report(errors: Errors, judgement: Judged, *, target: str | None = None) -> None:
    """Report ``judgement``'s findings as errors of its module (attributed to ``target``,
    the module itself by default), and mark the plugin's codes used in its
    ``# type: ignore[...]`` comments."""
    if judgement.findings:
        with _module_context(errors, judgement.path, judgement.module, judgement.options):
            for diagnostic in judgement.findings:
                # mypy prints a column one past the one it is given; the engine's are 1-based.
                info = errors.report(
                    diagnostic.line,
                    diagnostic.column - 1,
                    diagnostic.message,
                    code=ERROR_CODE_OF_RULE[diagnostic.code],
                    end_line=diagnostic.end_line,
                    end_column=diagnostic.end_column - 1,
                )
                if target is not None:
                    info.target = target
    mark_type_ignores_used(errors, judgement.path, MYPY_CODES)


@contextmanager
def _module_context(
    errors: Errors, path: str, module: str, options: Options
) -> Generator[None, None, None]:
    """Report into ``path``'s errors at module scope, and restore the context after: an error
    attributed to the module (not a function) is kept when mypy's daemon re-checks only a
    function of it."""
    saved = (errors.file, errors.target_module, errors.options, errors.scope)
    errors.set_file(path, module, options)
    try:
        yield
    finally:
        file, target_module, saved_options, scope = saved
        errors.set_file(file, target_module, saved_options, scope=scope)
