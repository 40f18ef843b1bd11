"""Reporting a finding from inside mypy's checker: the one place that works around its filters.

mypy type-checks many expressions more than once, speculatively, with errors filtered: every
candidate of an overloaded callee (``str``, ``print``, ``list``, ``sorted``, and ``str.format``,
which f-strings are lowered to), union math over union arguments, its expression cache, an
assignment's value inferred in two type contexts. Plugin hooks run inside those checks, and an
error reported through ``api.fail`` goes to the innermost filter: for an overloaded callee every
evaluation is a filtered one, so the finding never appears (mypy issue 7367). Worse, the filter
counts it as a type error of the candidate being tried, which makes mypy reject a matching
overload and infer something else.

A loomlint finding is a property of an expression and its (narrowed) type, not of the overload
candidate or type context being tried. So ``report`` records it directly: it sets mypy's stack
of error watchers aside while it adds the error, then restores the stack unchanged. No filter
sees the error, so mypy's inference is unaffected; ``# type: ignore[...]``, disabled error codes
and the cache still apply, since they are handled below the watchers; and a finding already
recorded for the same expression is not added again (the same hook runs once per candidate).

The stack is ``Errors._watchers``, a private attribute of mypy: ``loomlint.mypy_plugin`` only
loads on the mypy versions this was verified on (``SUPPORTED_MYPY``), and ``check_supported``
confirms the attribute is still there before the first check.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager

from mypy.checker import TypeChecker
from mypy.errorcodes import ErrorCode
from mypy.errors import Errors
from mypy.nodes import Context

from loomlint.mypy_checks.support import (
    SUPPORTED_MYPY,
    SUPPORTED_MYPY_TEXT,
    UnsupportedMypyError,
    check_supported,
    mypy_version_supported,
)

__all__ = [
    "SUPPORTED_MYPY",
    "SUPPORTED_MYPY_TEXT",
    "UnsupportedMypyError",
    "check_supported",
    "mypy_version_supported",
    "report",
]


def report(
    checker: TypeChecker,
    node: Context,
    message: str,
    code: ErrorCode,
    *,
    during_check: bool = True,
) -> None:
    """Record ``message`` at ``node`` under ``code``, past any speculative error filter.

    ``during_check=False`` reports after the module's check (casts): the error is attributed to
    the module, as mypy's own errors of its top level are.
    """
    if not during_check:
        with _module_context(checker):
            _record(checker, node, message, code)
        return
    if checker.binder.is_unreachable():
        return  # mypy reports nothing in code it found unreachable; neither do we
    _record(checker, node, message, code)


def _record(checker: TypeChecker, node: Context, message: str, code: ErrorCode) -> None:
    errors = checker.msg.errors
    if _already_reported(errors, node, message, code):
        return
    watchers = errors._watchers  # pyright: ignore[reportPrivateUsage]
    set_aside = watchers[:]
    del watchers[:]
    try:
        checker.msg.fail(message, node, code=code)
    finally:
        watchers[:] = set_aside


@contextmanager
def _module_context(checker: TypeChecker) -> Generator[None, None, None]:
    errors = checker.msg.errors
    saved = (errors.file, errors.target_module, errors.options, errors.scope)
    module = checker.tree.fullname
    errors.set_file(checker.path, module, checker.options, scope=checker.tscope)
    try:
        with checker.tscope.module_scope(module):
            yield
    finally:
        file, target_module, options, scope = saved
        errors.set_file(file, target_module, options, scope=scope)


def _already_reported(errors: Errors, node: Context, message: str, code: ErrorCode) -> bool:
    for info in errors.error_info_map.get(errors.file, ()):
        if (
            info.line == node.line
            and info.column == node.column
            and info.code == code
            and info.message == message
        ):
            return True
    return False
