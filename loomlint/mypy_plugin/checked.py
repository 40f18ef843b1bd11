"""A module mypy has just checked: its tree, its expression types, its options, its text.

mypy calls ``get_additional_indirect_deps(tree)`` for every module it checks, once the check is
over and before it frees the module's types and flushes its errors: the moment the plugin
analyses the module (``mypy_plugin.analysis``). The hook gets the tree only; the types are the
module's build ``State``'s. The states are found once, when the build's graph is loaded
(``set_modules``), as the objects that refer to the build's manager, itself found earlier, while
mypy parses and the heap is small (``checked_modules.ManagerFinder`` and ``build_states``, which
``loomlint check``'s own build uses too).

mypy's daemon makes a new state for a module it updates, after that first load, and scanning
its large heap again would cost more than the update. So the plugin also notes the type checker
that is current whenever mypy asks it for a hook (``note_current``: every call and attribute
access asks) and takes the types from that checker. Only a module that is in neither (it asks
for no hook at all) is found by scanning the heap for what refers to its tree.
"""

from __future__ import annotations

import gc
import io
import os
import tokenize
from dataclasses import dataclass

from mypy.build import BuildManager, State
from mypy.checker import TypeChecker
from mypy.checker_state import checker_state
from mypy.errors import Errors
from mypy.nodes import Expression, MypyFile
from mypy.options import Options
from mypy.types import Type
from mypy.util import DecodeError, decode_python_encoding

from loomlint.catalog.rules import load_catalog
from loomlint.run.checked_modules import ManagerFinder, build_states


@dataclass(frozen=True, slots=True)
class CheckedModule:
    # The file as mypy names it in its errors (the key of ``Errors.error_info_map``).
    path: str
    module: str
    tree: MypyFile
    types: dict[Expression, Type]
    options: Options
    errors: Errors
    # The bytes mypy checked (None when they cannot be had: then the file cannot be analysed).
    source: bytes | None
    # The build's manager (None when it cannot be found).
    manager: BuildManager | None


class CheckedModules:
    def __init__(self, options: Options) -> None:
        self._manager_finder = ManagerFinder(options)
        self._states: dict[str, State] = {}
        self._unchecked: dict[str, State] = {}
        self._states_found = False
        self._last_checker: object = None
        self._checkers: dict[str, TypeChecker] = {}

    def set_modules(self) -> bool:
        """mypy has loaded its graph (the first build, or a daemon's update): find the states.
        Whether they were found now (at the first build)."""
        if self._states_found:
            return False  # a daemon's update: the heap is large now, its new states are noted
        self._states_found = True
        manager = self._find_manager()
        if manager is None:
            return False
        self._states = {state.id: state for state in build_states(manager)}
        # A state serves its module's first check only: a daemon's update checks the module
        # again through another state, or none (``checked``).
        self._unchecked = dict(self._states)
        return True

    @property
    def manager(self) -> BuildManager | None:
        return self._find_manager()

    @property
    def states(self) -> dict[str, State]:
        """The build's graph: each module's state, by module id (as loaded, not updated)."""
        return self._states

    @property
    def errors(self) -> Errors | None:
        """mypy's error collector (None when the build's manager cannot be found)."""
        manager = self._find_manager()
        return manager.errors if manager is not None else None

    def parsed_bytes(self, path: str) -> bytes | None:
        """The bytes of a module mypy has just parsed (its file-system cache has them)."""
        return _checked_bytes(self._find_manager(), path, None)

    def _find_manager(self) -> BuildManager | None:
        """The build's manager, first asked for by ``get_additional_deps`` while mypy parses,
        before the graph is loaded and ``set_modules`` finds the states."""
        return self._manager_finder.find()

    def note_current(self) -> None:
        """Remember the checker of the module being checked (called on every hook lookup)."""
        current = checker_state.type_checker
        if current is self._last_checker:
            return
        self._last_checker = current
        if isinstance(current, TypeChecker):
            self._checkers[current.tree.fullname] = current

    def checked(self, tree: MypyFile) -> CheckedModule | None:
        """``tree``'s module, which mypy has just checked; None when mypy reports no error in
        it (an installed package, typeshed, ``ignore_errors``) or its types cannot be found."""
        self._last_checker = None
        checker = self._checkers.pop(tree.fullname, None)
        state = self._unchecked.pop(tree.fullname, None)
        if state is None or state.tree is not tree:
            state = None
            if checker is None or checker.tree is not tree:
                checker = None
                state, checker = _referring(tree)
        if state is not None:
            errors = state.manager.errors
            if _errors_ignored(errors, state.xpath, state.options):
                return None
            return CheckedModule(
                state.xpath,
                state.id,
                tree,
                state.type_map(),
                state.options,
                errors,
                _checked_bytes(state.manager, state.xpath, state.source),
                state.manager,
            )
        if checker is None:
            return None
        errors = checker.msg.errors
        if checker.can_skip_diagnostics or _errors_ignored(errors, checker.path, checker.options):
            return None
        manager = self._find_manager()
        return CheckedModule(
            checker.path,
            tree.fullname,
            tree,
            checker._type_maps[0],  # pyright: ignore[reportPrivateUsage]  # as State.type_map
            checker.options,
            errors,
            _checked_bytes(manager, checker.path, None),
            manager,
        )


def check_order(states: dict[str, State]) -> list[str]:
    """The files of the build's graph in the order mypy will check them, as far as the graph
    says: its import cycles in dependency order, each in mypy's order within it. (A guess that
    only orders work ahead: mypy's daemon, or a graph mypy changes later, may check otherwise.)
    Absolute paths, as the plugin offers them."""
    try:
        from mypy.build import PRI_INDIRECT, deps_filtered, order_ascc_ex, prepare_sccs_full
        from mypy.graph_utils import strongly_connected_components, topsort

        vertices = set(states)
        edges = {id: deps_filtered(states, vertices, id, PRI_INDIRECT) for id in vertices}
        cycles = prepare_sccs_full(strongly_connected_components(vertices, edges), edges)
        order: list[str] = []
        for ready in topsort(cycles):
            # As mypy's ``sorted_components`` orders the cycles ready at once.
            for cycle in sorted(ready, key=lambda c: -min(states[id].order for id in c.mod_ids)):
                modules = order_ascc_ex(states, cycle)
                order.extend(os.path.abspath(states[id].xpath) for id in modules)
        return order
    except Exception:  # another mypy: the files are prepared in the order offered
        return []


def with_missing_imports(states: dict[str, State]) -> list[str]:
    """The files of the build that import a module mypy could not find (``State.suppressed``),
    but for modules whose values are never messages. A read there may rest on a class mypy
    could not type, and the engine then takes the project's imported classes as evidence
    (``analyze.needs_imported_classes``): the worker prepares these files so ahead. A guess,
    which judging corrects where it was wrong. Absolute paths, as the plugin offers them."""
    unrelated = load_catalog().unrelated  # the catalog the facts' unresolved reads consult
    return [
        os.path.abspath(state.xpath)
        for state in states.values()
        if any(not unrelated.is_unrelated_module(module) for module in state.suppressed)
    ]


def _errors_ignored(errors: Errors, path: str, options: Options) -> bool:
    return path in errors.ignored_files or options.ignore_errors


def _referring(tree: MypyFile) -> tuple[State | None, TypeChecker | None]:
    """The state or checker that holds ``tree``, found by scanning the heap (the rare case)."""
    for referrer in gc.get_referrers(tree):
        if isinstance(referrer, State) and referrer.tree is tree:
            return referrer, None
        if isinstance(referrer, TypeChecker) and referrer.tree is tree:
            return None, referrer
    return None, None


def _checked_bytes(manager: BuildManager | None, path: str, text: str | None) -> bytes | None:
    """The file's bytes as mypy read them (its file-system cache has them), when mypy checked
    what they say; else the text mypy was given (``loomlint check``'s and the language
    server's builds pass some files' text), encoded as its coding declaration says."""
    try:
        if manager is not None:
            raw = manager.fscache.read(path)
        else:
            with open(path, "rb") as file:
                raw = file.read()
    except OSError:
        raw = None
    if text is None:
        return raw
    if raw is not None:
        try:
            if decode_python_encoding(raw) == text:
                return raw
        except (DecodeError, UnicodeDecodeError, LookupError):
            pass
    return _encoded(text)


def _encoded(text: str) -> bytes | None:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(text.encode("utf-8")).readline)
        return text.encode("utf-8" if encoding == "utf-8-sig" else encoding)
    except (SyntaxError, UnicodeEncodeError, LookupError):
        return None
