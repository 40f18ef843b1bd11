"""Each module's tree and types, handed over the moment mypy has checked it.

mypy frees a module's syntax tree, and its map of expression types, as soon as it has checked
the module, unless ``preserve_asts`` and ``export_types`` keep them to the end of the build:
every module's, since both options are global, which costs a cold build of a large package a
fifth more memory. The last plugin hook mypy calls for a checked module before freeing it is
``get_additional_indirect_deps(tree)``, while the tree and the module's types are complete.
The hook gets the tree only; the types are the module's ``State``'s, and the states are found
once, when the build's graph is loaded (``set_modules``), as the objects that refer to the
build's manager: two scans of the heap while it is small, a few tens of milliseconds.

If the states cannot be found (a future mypy), the build falls back to keeping every tree and
every type to its end (``preserve_asts``, ``export_types``), and the caller reads them there.
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from mypy.build import BuildManager, State
from mypy.nodes import Expression, MypyFile
from mypy.options import Options
from mypy.plugin import Plugin
from mypy.types import Type

# A checked module: its tree, its expression types, its per-module options.
CheckedModule = Callable[[MypyFile, dict[Expression, Type], Options], None]


class CheckedModuleHook(Plugin):
    """A plugin for ``build.build(extra_plugins=...)`` that hands each of ``modules`` (by
    module id) to ``take`` once it is checked. It changes nothing mypy checks or caches: it
    adds no dependency."""

    def __init__(self, options: Options, modules: set[str], take: CheckedModule) -> None:
        super().__init__(options)
        self._wanted = modules
        self._take = take
        # By module id: a module mypy finds stale is parsed only later, in the build.
        self._states: dict[str, State] = {}
        # None until the graph is loaded; then whether modules are handed over as checked.
        self.attached: bool | None = None

    def set_modules(self, modules: dict[str, MypyFile]) -> None:
        super().set_modules(modules)
        if not self._wanted:
            self.attached = True  # nothing to hand over: no need to look for the states
            return
        states = build_states(self.options)
        self.attached = bool(states)
        if self.attached:
            self._states = {state.id: state for state in states if state.id in self._wanted}
        else:
            self.options.preserve_asts = True
            self.options.export_types = True

    def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
        state = self._states.get(file.fullname)
        if state is not None and state.tree is file:
            del self._states[file.fullname]
            self._take(file, state.type_map(), state.options)
        return set()


def build_states(options: Options) -> list[State]:
    """The states of the build that runs with ``options`` (empty if it cannot be found)."""
    managers = [r for r in gc.get_referrers(options) if isinstance(r, BuildManager)]
    if len(managers) != 1:
        return []
    return [r for r in gc.get_referrers(managers[0]) if isinstance(r, State)]
