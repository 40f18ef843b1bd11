"""Each module's tree and types, handed over the moment mypy has checked it.

mypy frees a module's syntax tree, and its map of expression types, as soon as it has checked
the module, unless ``preserve_asts`` and ``export_types`` keep them to the end of the build:
every module's, since both options are global, which costs a cold build of a large package a
fifth more memory. The last plugin hook mypy calls for a checked module before freeing it is
``get_additional_indirect_deps(tree)``, while the tree and the module's types are complete.
The hook gets the tree only; the types are the module's ``State``'s, and the states are found
once, when the build's graph is loaded (``set_modules``), as the objects that refer to the
build's manager: a scan of the heap, some 0.05 s on langchain-core's. The manager itself is
found earlier, as the object that refers to the build's options, when mypy asks for the first
parsed module's additional dependencies (``get_additional_deps``): the heap is small then.

If the states cannot be found (a future mypy), the build falls back to keeping every tree and
every type to its end (``preserve_asts``, ``export_types``), and the caller reads them there.

mypy records, with every module it caches, one entry of configuration data per plugin of its
chain. Beside a user's plugin that reports data (``pydantic.mypy`` does), one more plugin in the
chain would change that record, and the user's own mypy runs and loomlint's builds would find
each other's cache stale (``plugin configuration differs``). So when the configuration names
plugins, the hook joins the chain as the last of them (``hooked_plugins``): mypy's loader
builds that plugin from a subclass that also hands the checked modules over, and the chain,
its configuration data and its snapshot are the ones a plain ``mypy`` run has.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import sys
import threading
from collections.abc import Callable, Generator, Sequence
from types import ModuleType

from mypy.build import BuildManager, State
from mypy.nodes import Expression, MypyFile
from mypy.options import Options
from mypy.plugin import Plugin
from mypy.types import Type
from mypy.version import __version__ as mypy_version

# A checked module: its tree, its expression types, its per-module options, and the build's
# manager.
CheckedModule = Callable[[MypyFile, dict[Expression, Type], Options, BuildManager], None]


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
        self._manager_finder = ManagerFinder(options)
        # None until the graph is loaded; then whether modules are handed over as checked.
        self.attached: bool | None = None

    def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
        if self._wanted:
            self._manager_finder.find()
        return []

    def set_modules(self, modules: dict[str, MypyFile]) -> None:
        super().set_modules(modules)
        if not self._wanted:
            self.attached = True  # nothing to hand over: no need to look for the states
            return
        manager = self._manager_finder.find()
        states = build_states(manager) if manager is not None else []
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
            self._take(file, state.type_map(), state.options, state.manager)
        return set()


class ManagerFinder:
    """The manager of the build that runs with ``options``, found once (None if it cannot be):
    the one object of the heap that refers to them. Asked first while mypy parses, when the
    heap is a fraction of what it is once the graph is loaded."""

    def __init__(self, options: Options) -> None:
        self._options = options
        self._manager: BuildManager | None = None
        self._searched = False

    def find(self) -> BuildManager | None:
        if not self._searched:
            self._searched = True
            shared: dict[int, BuildManager | None] | None = getattr(_sharing, "managers", None)
            if shared is not None and id(self._options) in shared:
                self._manager = shared[id(self._options)]
                return self._manager
            managers = [r for r in gc.get_referrers(self._options) if isinstance(r, BuildManager)]
            if len(managers) == 1:
                self._manager = managers[0]
            if shared is not None:
                shared[id(self._options)] = self._manager
        return self._manager


def build_states(manager: BuildManager) -> list[State]:
    """The states of ``manager``'s build: the objects that refer to it (searched once in a
    hooked plugin's ``set_modules``, see ``_hooked_plugin_type``)."""
    shared: dict[int, list[State]] | None = getattr(_sharing, "states", None)
    if shared is not None and id(manager) in shared:
        return shared[id(manager)]
    states = [r for r in gc.get_referrers(manager) if isinstance(r, State)]
    if shared is not None:
        shared[id(manager)] = states
    return states


# While a hooked plugin's hook runs: the states found, by manager, and the managers, by
# options. Kept no longer, so that no build's outlive it here.
_sharing = threading.local()


@contextlib.contextmanager
def _found_once() -> Generator[None]:
    _sharing.states = {}
    _sharing.managers = {}
    try:
        yield
    finally:
        _sharing.states = None
        _sharing.managers = None


# A plugin's entry point is replaced for one build at a time.
_ENTRY_LOCK = threading.Lock()


@contextlib.contextmanager
def hooked_plugins(options: Options, hook: CheckedModuleHook) -> Generator[Sequence[Plugin] | None]:
    """For the build that runs with ``options``, the extra plugins to give ``build.build`` so
    that ``hook`` sees each checked module, leaving mypy's cache records as a plain run's; or
    None when that cannot be done (the caller keeps trees and types to the build's end).

    Without configured plugins the hook is simply one more plugin: a chain in which no plugin
    reports configuration data records none. With them, it rides on the last one (see the
    module's docstring); the entry point is restored when the build ends."""
    if not options.plugins:
        yield [hook]
        return
    found = _plugin_entry(options, options.plugins[-1])
    if found is None:
        yield None
        return
    module, entry_name = found
    entry = getattr(module, entry_name, None)
    if not callable(entry):
        yield None  # mypy reports the configuration error itself
        return
    try:
        plugin_type = entry(mypy_version)
        hooked = _hooked_plugin_type(plugin_type, hook)
    except Exception:  # the plugin's own failure is mypy's to report; a class not subclassable
        yield None
        return

    def hooked_entry(version: str) -> type[Plugin]:
        del version  # the class was made for this mypy's version, above
        return hooked

    with _ENTRY_LOCK:
        setattr(module, entry_name, hooked_entry)
        try:
            yield []
        finally:
            setattr(module, entry_name, entry)


def _plugin_entry(options: Options, configured: str) -> tuple[ModuleType, str] | None:
    """The module and entry point's name of a configured plugin, imported as mypy's
    ``load_plugins_from_config`` imports it (None if it cannot be)."""
    entry_name = "plugin"
    plugin_dir: str | None = None
    if ":" in os.path.basename(configured):
        configured, entry_name = configured.rsplit(":", 1)
    if configured.endswith(".py"):
        if options.config_file is None:
            return None
        plugin_path = os.path.join(os.path.dirname(options.config_file), configured)
        plugin_dir = os.path.abspath(os.path.dirname(plugin_path))
        module_name = os.path.basename(plugin_path)[:-3]
        sys.path.insert(0, plugin_dir)
    elif "/" in configured or "\\" in configured:
        return None
    else:
        module_name = configured
    try:
        return importlib.import_module(module_name), entry_name
    except Exception:
        return None
    finally:
        if plugin_dir is not None and sys.path and sys.path[0] == plugin_dir:
            del sys.path[0]


def _hooked_plugin_type(plugin_type: object, hook: CheckedModuleHook) -> type[Plugin]:
    """A subclass of a configured plugin's class that also hands checked modules to ``hook``;
    everything else, its configuration data included, is the plugin's own."""
    if not (isinstance(plugin_type, type) and issubclass(plugin_type, Plugin)):
        raise TypeError(f"not a mypy plugin class: {plugin_type!r}")
    base: type[Plugin] = plugin_type

    class Hooked(base):  # type: ignore[misc, valid-type]
        # The configured plugin (loomlint's own, in ``loomlint check``'s build of a project
        # that names it) searches the heap for the build's manager and states as the hook
        # does: each is searched once (``_found_once``).
        def set_modules(self, modules: dict[str, MypyFile]) -> None:
            with _found_once():
                super().set_modules(modules)
                hook.set_modules(modules)

        def get_additional_deps(self, file: MypyFile) -> list[tuple[int, str, int]]:
            with _found_once():
                hook.get_additional_deps(file)
                deps: list[tuple[int, str, int]] = super().get_additional_deps(file)
            return deps

        def get_additional_indirect_deps(self, file: MypyFile) -> set[str]:
            deps: set[str] = super().get_additional_indirect_deps(file)
            hook.get_additional_indirect_deps(file)
            return deps

    Hooked.__name__ = base.__name__
    Hooked.__qualname__ = base.__qualname__
    Hooked.__module__ = base.__module__
    return Hooked
