"""loomlint's mypy plugin: ``plugins = ["loomlint.mypy_plugin"]`` in mypy's configuration.

It reports coercion, unsafe use and casts of part-message content under the error codes
``loom-content-coercion``, ``loom-content-use`` and ``loom-content-cast``, from the same
catalog, SPI model and ``[tool.loomlint]`` configuration as ``loomlint check``. This module
only dispatches mypy's hooks; the checks are plain functions in ``loomlint.mypy_checks``.
See docs/mypy-plugin.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mypy.errors import CompileError
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
from mypy.plugins.default import DefaultPlugin
from mypy.types import FunctionLike, Type

from loomlint.mypy_checks import casts, codes
from loomlint.mypy_checks.checkers import CheckerRegistry
from loomlint.mypy_checks.config import PluginConfig, PluginConfigError, load_plugin_config
from loomlint.mypy_checks.hooks import FunctionHook, MethodHook, function_hook, method_hook
from loomlint.mypy_checks.support import (
    UnsupportedMypyError,
    check_supported,
    refusing_plugin,
)
from loomlint.mypy_checks.suppressions import mark_type_ignores_used

__all__ = ["LoomlintPlugin", "codes", "plugin"]

_MODULE = "loomlint.mypy_plugin"
# Dunder methods mypy calls for iteration, indexing, `in` and %-formatting (mypy_checks.operators).
_OPERATOR_METHODS = frozenset({"__iter__", "__getitem__", "__contains__", "__mod__"})
# The only other dunder whose calls are written as calls with arguments: super().__init__(...).
# The rest are operators (``==``, ``+``, ``<``...), where content is sanctioned or mypy reports.
_CALLED_DUNDERS = frozenset({"__init__"})


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point. On a mypy version it does not support, a plugin that makes the run
    fail with a mypy error saying so (exit status 2; ``mypy_checks.support``)."""
    try:
        check_supported(version)
    except UnsupportedMypyError as unsupported:
        return refusing_plugin(str(unsupported), key="plugins")
    return LoomlintPlugin


class LoomlintPlugin(Plugin):
    """Dispatches mypy's hooks by full name to ``loomlint.mypy_checks``."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        # A bad [tool.loomlint] fails the build as a mypy error, at mypy's first question
        # (see mypy_checks.support): raising here would be a traceback, or a dmypy crash.
        self._problem: str | None = None
        try:
            self._config: PluginConfig = load_plugin_config(options)
        except PluginConfigError as problem:
            self._problem = str(problem)
            return
        # mypy uses the first plugin that returns a hook for a name: each of ours runs the
        # default plugin's own hook for that name first (see mypy_checks.hooks).
        self._default = DefaultPlugin(options)
        # Checking every callee's parameters takes a hook for every name, which would hide the
        # hooks of plugins listed after this one: that is done only when this one is last.
        self._every_callee = _listed_last(options)
        sinks = self._config.sinks
        self._sink_functions = frozenset(sinks.by_callee)
        self._sink_methods = frozenset(
            [*sinks.methods_by_name, *sinks.by_method, *_OPERATOR_METHODS]
        )
        self._function_hooks: dict[str, FunctionHook | None] = {}
        self._method_hooks: dict[str, MethodHook | None] = {}
        self._checkers = CheckerRegistry(options)

    # --- configuration and per-module work ----------------------------------------------------

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        self._refuse_if_misconfigured()
        return {"loomlint": self._config.fingerprint}

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        self._refuse_if_misconfigured()
        return []

    def _refuse_if_misconfigured(self) -> None:
        if self._problem is not None:
            raise CompileError([self._problem], use_stdout=False)

    def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
        # Called once per module after mypy has checked it: the point where its casts are seen.
        casts.check_module(file, self._checkers, self._config)
        errors = self._checkers.errors
        if errors is not None:
            mark_type_ignores_used(errors, file.path, codes.MYPY_CODES)
        return set()

    # --- call hooks ---------------------------------------------------------------------------

    def get_function_hook(self, fullname: str) -> Callable[[FunctionContext], Type] | None:
        self._refuse_if_misconfigured()
        self._checkers.note_current()
        if fullname not in self._function_hooks:
            self._function_hooks[fullname] = self._new_function_hook(fullname)
        return self._function_hooks[fullname]

    def get_method_hook(self, fullname: str) -> Callable[[MethodContext], Type] | None:
        self._refuse_if_misconfigured()
        self._checkers.note_current()
        if fullname not in self._method_hooks:
            self._method_hooks[fullname] = self._new_method_hook(fullname)
        return self._method_hooks[fullname]

    def get_function_signature_hook(
        self, fullname: str
    ) -> Callable[[FunctionSigContext], FunctionLike] | None:
        self._refuse_if_misconfigured()
        self._checkers.note_current()
        return None

    def get_method_signature_hook(
        self, fullname: str
    ) -> Callable[[MethodSigContext], FunctionLike] | None:
        self._refuse_if_misconfigured()
        self._checkers.note_current()
        return None

    def get_attribute_hook(self, fullname: str) -> Callable[[AttributeContext], Type] | None:
        self._refuse_if_misconfigured()
        self._checkers.note_current()
        return None

    def _new_function_hook(self, fullname: str) -> FunctionHook | None:
        inner = self._default.get_function_hook(fullname)
        if fullname in self._sink_functions or (
            self._every_callee and self._default.get_function_signature_hook(fullname) is None
        ):
            return function_hook(fullname, self._config, inner)
        return inner

    def _new_method_hook(self, fullname: str) -> MethodHook | None:
        inner = self._default.get_method_hook(fullname)
        method = fullname.rpartition(".")[2]
        if method in self._sink_methods or (
            self._every_callee
            and not (_is_dunder(method) and method not in _CALLED_DUNDERS)
            and self._default.get_method_signature_hook(fullname) is None
        ):
            return method_hook(fullname, self._config, inner)
        return inner


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _listed_last(options: Options) -> bool:
    """Whether no configured plugin comes after this one (or it was not configured by name)."""
    names = [_plugin_module(entry) for entry in options.plugins]
    return _MODULE not in names or names[-1] == _MODULE


def _plugin_module(entry: str) -> str:
    module = entry.rsplit(":", 1)[0] if ":" in entry.rpartition("/")[2] else entry
    if module.endswith(".py"):
        module = module[:-3].replace("\\", "/").rpartition("/")[2]
        return "loomlint.mypy_plugin" if module == "mypy_plugin" else module
    return module
