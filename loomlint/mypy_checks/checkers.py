"""Which mypy type checker checked a module: needed after the check, when hooks are over.

mypy hands its checker (with the module's type map) to call and attribute hooks only. Casts are
looked at once the module is checked (see ``casts``), so the plugin remembers the checker that
was current (``mypy.checker_state``) whenever mypy asked it for a hook during that module's
check: any call, attribute access or operator does.

A module that asks for no hook at all (say, a helper whose only expression is
``return cast(str, c)``) has no such moment. Only then, and only if it imports ``cast`` and
mypy reports its errors at all, the checker is found as the object referring to the module's
tree (``gc.get_referrers``): a scan of the heap, paid for that module alone. Modules whose
errors mypy ignores (installed packages, ``ignore_errors``) are skipped: mypy does not even
check their function bodies.
"""

from __future__ import annotations

import gc

from mypy.checker import TypeChecker
from mypy.checker_state import checker_state
from mypy.errors import Errors
from mypy.nodes import MypyFile
from mypy.options import Options


class CheckerRegistry:
    def __init__(self, options: Options) -> None:
        self._options = options
        self._last: object = None
        self._by_module: dict[str, TypeChecker] = {}
        # mypy's one error collector, shared by every module's checker.
        self._errors: Errors | None = None

    def note_current(self) -> None:
        """Remember the checker of the module being checked (called on every hook lookup)."""
        current = checker_state.type_checker
        if current is self._last:
            return
        self._last = current
        if isinstance(current, TypeChecker):
            self._by_module[current.tree.fullname] = current
            self._errors = current.msg.errors

    @property
    def errors(self) -> Errors | None:
        """mypy's error collector, once any module's check has asked for a hook."""
        return self._errors

    def forget(self, tree: MypyFile) -> None:
        self._last = None
        self._by_module.pop(tree.fullname, None)

    def checker_for(self, tree: MypyFile) -> TypeChecker | None:
        """The checker that has just checked ``tree`` (forgotten afterwards), or None when mypy
        ignores the module's errors."""
        self._last = None
        checker = self._by_module.pop(tree.fullname, None)
        if checker is not None and checker.tree is tree:
            return None if checker.can_skip_diagnostics else checker
        if self._errors is not None and tree.path in self._errors.ignored_files:
            return None
        if self._options.clone_for_module(tree.fullname).ignore_errors:
            return None
        return _referring_checker(tree)


def _referring_checker(tree: MypyFile) -> TypeChecker | None:
    for referrer in gc.get_referrers(tree):
        if isinstance(referrer, TypeChecker) and referrer.tree is tree:
            return None if referrer.can_skip_diagnostics else referrer
    return None
