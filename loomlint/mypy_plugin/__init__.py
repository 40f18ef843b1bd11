"""loomlint's mypy plugin: ``plugins = ["loomlint.mypy_plugin"]`` in mypy's configuration.

A front end of the engine ``loomlint check`` runs: once mypy has checked a module, the plugin
hands the module's tree and types to that engine and reports its findings as mypy errors,
under the rules' mypy codes (``loom-content-coercion``, ``loom-content-use``,
``loom-content-cast``, ...), with the same messages, advice and suppressions. It judges nothing
itself: this module is the plugin class mypy calls, and the package holds its wiring:

- ``config``: ``[tool.loomlint]`` read once, and its fingerprint;
- ``settings_log``: the settings each module in mypy's cache was judged under, so that a
  change of them re-checks the modules the plugin judges, and only those;
- ``support``: the refusal of an unsupported mypy or a bad configuration, as a mypy error;
- ``codes``: the plugin's mypy error codes, named by the rule catalog;
- ``checked``: the tree, types, options and text of a module mypy has just checked;
- ``analysis``: that module judged by ``loomlint check``'s engine, its findings reported;
- ``suppressions``: the plugin's codes in ``# type: ignore[...]`` and ``warn_unused_ignores``;
- ``worker``: the plugin's second process, parsing and following flow while mypy type-checks;
- ``results``: each module's findings recorded where ``loomlint check`` looks for them.

A front end: may import ``run`` and the wings below it, never ``cli`` or ``server``. See
docs/mypy-plugin.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from mypy.errors import CompileError, Errors
from mypy.nodes import MypyFile
from mypy.options import Options
from mypy.plugin import (
    AttributeContext,
    FunctionContext,
    FunctionSigContext,
    MethodContext,
    MethodSigContext,
    Plugin,
    ReportConfigContext,
)
from mypy.types import FunctionLike, Type

from loomlint.engine.diagnostics import FileResult
from loomlint.engine.prescreen import may_hold_content
from loomlint.mypy_plugin import analysis, codes
from loomlint.mypy_plugin.checked import (
    CheckedModule,
    CheckedModules,
    check_order,
    with_missing_imports,
)
from loomlint.mypy_plugin.config import PluginConfig, PluginConfigError, load_plugin_config
from loomlint.mypy_plugin.results import ResultRecorder
from loomlint.mypy_plugin.settings_log import SettingsLog
from loomlint.mypy_plugin.support import (
    UnsupportedMypyError,
    check_supported,
    refusing_plugin,
)
from loomlint.mypy_plugin.suppressions import mark_type_ignores_used
from loomlint.run import plugin_results
from loomlint.run.cache import source_digest
from loomlint.run.plugin_results import PluginResult

__all__ = ["LoomlintPlugin", "codes", "plugin"]

# A fine-grained target name that names no module (no module name holds a colon).
_NO_TARGET = "loomlint:findings"


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point. On a mypy version it does not support, a plugin that makes the run
    fail with a mypy error saying so (exit status 2; ``mypy_plugin.support``)."""
    try:
        check_supported(version)
    except UnsupportedMypyError as unsupported:
        return refusing_plugin(str(unsupported), key="plugins")
    return LoomlintPlugin


class LoomlintPlugin(Plugin):
    """Runs the engine on each module mypy has checked. It adds no hook of its own to mypy's
    checking: it only notes, when mypy asks for one, which module is being checked."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        # A bad [tool.loomlint] fails the build as a mypy error, at mypy's first question
        # (see mypy_plugin.support): raising here would be a traceback, or a dmypy crash.
        self._problem: str | None = None
        self._checked = CheckedModules(options)
        # Under mypy's daemon: each module's last judgement, and the errors it went into.
        self._judgements: dict[str, analysis.Judged] | None = (
            {} if options.fine_grained_incremental else None
        )
        self._reported_into: object = None
        try:
            self._config: PluginConfig = load_plugin_config(options)
        except PluginConfigError as problem:
            self._problem = str(problem)
            return
        self._analyst = analysis.ModuleAnalyst(self._config.settings)
        self._settings_log = SettingsLog(self._config.settings, self._config.fingerprint)
        self._recorder = ResultRecorder(self._analyst.worker)
        # Inside loomlint check's own build, the run takes the results (``plugin_results``).
        self._loomlint_build = plugin_results.current()
        # Whether the worker records results (``_record``): not under the daemon, which writes
        # no cache, nor inside loomlint check's build, which takes them itself.
        self._records = self._judgements is None and self._loomlint_build is None
        self._fingerprint = self._config.settings.settings_fingerprint()

    def _refuse_if_misconfigured(self) -> None:
        if self._problem is not None:
            raise CompileError([self._problem], use_stdout=False)

    # --- configuration and per-module work ----------------------------------------------------

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        self._refuse_if_misconfigured()
        return self._settings_log.config_data(ctx, self._checked.manager)

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        self._refuse_if_misconfigured()
        errors = self._checked.errors
        if errors is None or file.path in errors.ignored_files:
            return []  # mypy reports nothing in this module (an installed package, typeshed)
        # Before mypy's daemon, which calls unused ignores before the end of the module's
        # check (get_additional_indirect_deps), can call a loom code of one unused.
        mark_type_ignores_used(errors, file.path, codes.MYPY_CODES)
        source = self._checked.parsed_bytes(file.path)
        if source is not None:
            self._analyst.offer(file.path, source, recording=self._records)
        return []

    def set_modules(self, modules: dict[str, MypyFile]) -> None:
        super().set_modules(modules)
        found = self._checked.set_modules()
        if found and self._problem is None and self._analyst.worker.running:
            states = self._checked.states
            self._analyst.order(check_order(states), with_missing_imports(states))

    def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
        # Called once per module after mypy has checked it, before its errors are flushed.
        module = self._checked.checked(file)
        if module is None:
            self._record(file, None, None)
            return set()
        result = self._analyst.analyse(module)
        judgement = analysis.judged(module, result)
        if self._judgements is None:
            analysis.report(module.errors, judgement)
        else:
            self._report_in_daemon(module.errors, judgement)
        self._record(file, module, result)
        return set()

    def _record(
        self, file: MypyFile, module: CheckedModule | None, result: FileResult | None
    ) -> None:
        """Keep the module's result where ``loomlint check`` looks for it: in its result
        cache, or, inside ``loomlint check``'s own build, handed to that run
        (``plugin_results``). Not under mypy's daemon, which writes no cache."""
        manager = self._checked.manager
        if self._judgements is not None or manager is None:
            return
        entry = None
        if module is not None and module.source is not None:
            source = module.source
            if may_hold_content(source, self._config.settings):
                path = os.path.abspath(module.path)
                entry = (path, source, result or FileResult(path=path))
        if self._loomlint_build is None:
            self._recorder.judged(manager, self._checked.states, file.fullname, entry)
        elif entry is not None:
            path, source, judged = entry
            self._loomlint_build.put(
                path, PluginResult(self._fingerprint, source_digest(source), judged)
            )

    def _report_in_daemon(self, errors: Errors, judgement: analysis.Judged) -> None:
        """Under mypy's daemon, each update of a changed module starts by resetting every
        error of the build; mypy brings its own back by checking again the functions that had
        errors. The plugin's findings in the modules it did not check again are reported
        again instead: they stand while those modules do. They are attributed to no target
        mypy could check again (``_NO_TARGET``), so that its clearing of a target's errors
        leaves them be."""
        assert self._judgements is not None
        if errors.error_info_map is not self._reported_into:
            self._reported_into = errors.error_info_map
            modules = self._modules or {}
            for path, other in list(self._judgements.items()):
                if path == judgement.path:
                    continue
                if other.module not in modules:
                    del self._judgements[path]  # removed from the build
                    continue
                errors.set_file_ignored_lines(
                    path, other.tree.ignored_lines, other.options.ignore_errors
                )
                errors.set_skipped_lines(path, other.tree.skipped_lines)
                analysis.report(errors, other, target=_NO_TARGET)
        self._judgements[judgement.path] = judgement
        analysis.report(errors, judgement, target=_NO_TARGET)

    # --- hook lookups: which module is being checked ------------------------------------------

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        self._checked.note_current()
        return None

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        self._checked.note_current()
        return None

    def get_function_signature_hook(
        self, fullname: str
    ) -> Callable[[FunctionSigContext], FunctionLike] | None:
        self._checked.note_current()
        return None

    def get_method_signature_hook(
        self, fullname: str
    ) -> Callable[[MethodSigContext], FunctionLike] | None:
        self._checked.note_current()
        return None

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        self._checked.note_current()
        return None
