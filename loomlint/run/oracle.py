"""The type oracle: mypy, run in-process on the user's own configuration.

One mypy build answers for every file being checked. The build honours the user's mypy
configuration (read through mypy's own option processing, so ``strict`` and per-module
sections apply) and the user's mypy cache. Two things are added:

- each file being checked is reduced to picklable ``FileTypes`` facts (``FactCollector``)
  the moment mypy has checked it, through a plugin hook (see ``checked_modules``), and handed
  to the caller while the build goes on; mypy then frees its tree as usual;
- a file mypy did not check, because its cache was fresh (a module loaded from the cache
  has no syntax tree, and no expression types), is type-checked after the build, alone:
  parsed, analysed and checked against the cached modules it imports, as mypy's
  fine-grained update checks a changed module (``_check_alone``). Forcing it through the
  build instead (its text given) would check its whole import cycle again.

Only a file whose text is not the one on disk (an editor's buffer) is given to mypy with its
text. Every module the build checks is checked exactly as a plain ``mypy`` run checks it,
nothing added is part of mypy's cache key, and nothing checked alone is written to the
cache, so the user's cache stays valid for their own mypy runs.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import io
import os
import re
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import platformdirs
from mypy import build
from mypy.build import BuildManager, Graph, State
from mypy.errors import CompileError
from mypy.freetree import free_tree
from mypy.graph_utils import strongly_connected_components
from mypy.main import process_options
from mypy.modulefinder import BuildSource
from mypy.nodes import Expression, MypyFile
from mypy.options import Options
from mypy.semanal_main import semantic_analysis_for_scc
from mypy.server.update import ensure_trees_loaded, replace_modules_with_new_variants
from mypy.types import Type
from mypy.version import __version__ as mypy_version

from loomlint.catalog.spi import SpiModel
from loomlint.engine.facts import FactCollector, types_content
from loomlint.engine.typefacts import (
    FileTypes,
)
from loomlint.files.stamps import FileStamp, stat_files
from loomlint.run import plugin_results
from loomlint.run.checked_modules import CheckedModuleHook, hooked_plugins

_INTERNAL_ERROR = re.compile(
    r"^(?P<path>.+?):(?:(?P<line>\d+):)? error: INTERNAL ERROR", re.MULTILINE
)
_MAX_CRASH_RETRIES = 3
# mypy's blocking error for a file it finds under two module names: the name its path gives
# (mypy crawls up to the first folder without an ``__init__.py``) and the name an import finds.
_FOUND_TWICE = re.compile(
    r"^(?P<path>.+?): error: Source file found twice under different module names: "
    r'"(?P<first>[^"]+)" and "(?P<second>[^"]+)"'
)


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file to analyse: its path as reported, and its decoded text.

    ``force`` makes mypy analyse it and the oracle report its facts. An unforced file is only
    built (from mypy's cache when fresh) so that its dependency key is known: a result cached
    for it stays valid while that key does.
    """

    path: str
    text: str
    force: bool = True


@dataclass(slots=True)
class OracleResult:
    files: dict[str, FileTypes] = field(default_factory=dict[str, FileTypes])
    # Files the oracle could not analyse, with the reason (reported as LML904).
    failures: dict[str, str] = field(default_factory=dict[str, str])
    # A digest of everything mypy's types for the file depend on: the interfaces of the
    # modules it depends on, the options that affect its types, mypy's version.
    dependency_keys: dict[str, str] = field(default_factory=dict[str, str])
    # Every file the build read (the modules of its graph, its configuration), with the
    # stamp it had: while none of them changes, neither can any type.
    inputs: dict[str, FileStamp] = field(default_factory=dict[str, FileStamp])
    # Modules mypy checked rather than loaded from its cache, besides the forced files: none
    # when the cache (the user's own mypy's, say) was fresh.
    rechecked: set[str] = field(default_factory=set[str])
    # Seconds spent taking facts from mypy's trees inside its build (LOOMLINT_TIMINGS).
    fact_seconds: float = 0.0
    # Facts of files not forced that mypy checked all the same (a module they import changed):
    # a file whose cached result turns out stale is analysed from them, with no second build.
    spare: dict[str, FileTypes] = field(default_factory=dict[str, FileTypes])
    # What the run says about how types were had (a mypy cache it could not write, ...).
    notes: list[str] = field(default_factory=list[str])


@dataclass(frozen=True, slots=True)
class _Built:
    """What one build gave: facts of the forced files, every target's dependency key, the
    files the build read, and the forced files whose facts could not be read."""

    facts: dict[str, FileTypes]
    dependency_keys: dict[str, str]
    inputs: dict[str, FileStamp]
    unreadable: dict[str, str]
    rechecked: frozenset[str]
    spare: dict[str, FileTypes]
    fact_seconds: float


class FactsConsumer(Protocol):
    """Takes each forced file's facts as soon as mypy has checked it, during the build."""

    def building(self, plugin_judges: bool) -> None:
        """The build starts. ``plugin_judges``: the project's mypy configuration names
        loomlint's plugin, which judges the forced files inside the build (``plugin_results``):
        what the run would prepare for judging them is that plugin's to do."""
        ...

    def screened(self, path: str) -> bool | None:
        """Whether the file may report without types naming a value content (its screen);
        None while that is not known yet. It must not wait: mypy waits for it."""
        ...

    def accept(self, path: str, facts: FileTypes | None) -> None:
        """``facts`` is None when the file screened out and nothing in it is content."""
        ...

    def take_result(self, path: str, found: plugin_results.PluginResult) -> bool:
        """The mypy plugin's result for the file (``plugin_results``), judged in this build:
        whether it stands for the file's (the run judges the file itself otherwise)."""
        ...


class TypeOracle(Protocol):
    def analyze(
        self, files: Sequence[SourceFile], consumer: FactsConsumer | None = None
    ) -> OracleResult: ...


class OracleUnavailable(Exception):
    """mypy could not run at all (bad configuration, a blocking error outside the targets)."""


class MypyOracle:
    """Types from an in-process mypy build over the files being checked."""

    def __init__(
        self,
        spi: SpiModel,
        *,
        config_file: Path | None = None,
        project_plugins: bool = True,
        refuse: Callable[[Sequence[str]], Mapping[str, str]] | None = None,
    ) -> None:
        self._spi = spi
        self._config_file = config_file
        self._project_plugins = project_plugins
        # Asked once, when a build first stops on a blocking error, of every file it was
        # given: those mypy must not be given (CPython cannot compile them), with why. The
        # files are then not screened before a build that may never stop.
        self._refuse = refuse
        self._notes: list[str] = []

    def analyze(
        self, files: Sequence[SourceFile], consumer: FactsConsumer | None = None
    ) -> OracleResult:
        result = OracleResult(notes=self._notes)
        pending = {os.path.abspath(f.path): f for f in files}
        for _attempt in range(_MAX_CRASH_RETRIES + 1):
            if not pending:
                return result
            try:
                built = self._build(list(pending.values()), consumer)
                result.files.update(built.facts)
                result.dependency_keys.update(built.dependency_keys)
                result.inputs.update(built.inputs)
                result.failures.update(built.unreadable)
                result.rechecked.update(built.rechecked)
                result.spare.update(built.spare)
                result.fact_seconds += built.fact_seconds
                return result
            except _TargetCrash as crash:
                refused = self._refused(pending)
                for abspath in crash.abspaths:
                    culprit = pending.pop(abspath)
                    result.failures[culprit.path] = refused.pop(abspath, crash.reason)
                for abspath, reason in refused.items():
                    result.failures[pending.pop(abspath).path] = reason
        for source in pending.values():
            result.failures[source.path] = (
                f"mypy stopped on other files of this run {_MAX_CRASH_RETRIES + 1} times (a "
                "blocking error or a crash each time), and was not run again"
            )
        return result

    def _refused(self, pending: Mapping[str, SourceFile]) -> dict[str, str]:
        """The files of ``pending`` (by absolute path) that ``refuse`` says mypy must not be
        given, with why: asked after the first stopped build only, the next build is then
        stopped only by what CPython compiles and mypy does not take."""
        refuse, self._refuse = self._refuse, None
        if refuse is None:
            return {}
        refused = refuse([source.path for source in pending.values()])
        return {os.path.abspath(path): reason for path, reason in refused.items()}

    def _mypy_options(self, paths: list[str]) -> tuple[list[BuildSource], Options]:
        """The build's sources and options, as a plain ``mypy`` run on ``paths`` has them."""
        output = io.StringIO()
        args = ["--config-file", str(self._config_file)] if self._config_file is not None else []
        # After "--", a file named like an option (``--strict.py``) is only a file.
        args += ["--", *paths]
        try:
            sources, options = process_options(args, stdout=output, stderr=output)
        except SystemExit:
            raise OracleUnavailable(_first_lines(output.getvalue())) from None
        if not self._project_plugins:
            # mypy imports each named plugin at the start of the build: emptied here, no code
            # of the analysed project runs in this process (python_executable still would).
            options.plugins = []
        return sources, options

    def _build(self, files: list[SourceFile], consumer: FactsConsumer | None) -> _Built:
        by_abspath = {os.path.abspath(f.path): f for f in files}
        output = io.StringIO()
        sources, options = self._mypy_options([f.path for f in files])
        self._use_writable_cache(options)
        if consumer is not None:
            consumer.building(_names_loomlint_plugin(options))
        targets: list[BuildSource] = []
        # Forced files mypy reads from disk: those it does not check in the build (its cache
        # is fresh for them) are type-checked afterwards, one at a time (``_check_alone``).
        from_disk: dict[str, BuildSource] = {}
        for s in sources:
            wanted = by_abspath.get(os.path.abspath(s.path)) if s.path is not None else None
            if wanted is None:
                continue
            # A file's text given to mypy makes it check the file's whole import cycle again,
            # however fresh its cache: only a text that is not the file's on disk (an editor's
            # buffer) is given.
            text = wanted.text if wanted.force and not _is_on_disk(wanted) else None
            target = BuildSource(s.path, s.module, text, s.base_dir)
            targets.append(target)
            if wanted.force and text is None:
                from_disk[os.path.abspath(s.path or "")] = target
        facts: dict[str, FileTypes] = {}
        unreadable: dict[str, str] = {}
        spare: dict[str, FileTypes] = {}
        # Forced files whose types have been read (or found unreadable).
        taken: set[str] = set()
        # What the mypy plugin judged in this build, when the configuration names it.
        plugin_judged = plugin_results.PluginResults()

        fact_seconds = [0.0]

        def take(
            tree: MypyFile,
            types: dict[Expression, Type],
            module_options: Options,
            manager: BuildManager,
        ) -> None:
            started = time.perf_counter()
            try:
                take_facts(tree, types, module_options, manager)
            finally:
                fact_seconds[0] += time.perf_counter() - started

        def take_facts(
            tree: MypyFile,
            types: dict[Expression, Type],
            module_options: Options,
            manager: BuildManager,
        ) -> None:
            source = by_abspath.get(os.path.abspath(tree.path))
            if source is None or source.path in taken:
                return
            if not source.force:
                self._take_spare(source, tree, types, module_options, manager, spare)
                return
            judged = plugin_judged.take(os.path.abspath(tree.path))
            if (
                judged is not None
                and consumer is not None
                and consumer.take_result(source.path, judged)
            ):
                taken.add(source.path)
                return
            taken.add(source.path)
            try:
                found = self._facts_of(source, tree, types, module_options, manager, consumer)
            except Exception as exc:  # loomlint's own bug: that file goes without types
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                unreadable[source.path] = f"internal error while reading mypy's types ({detail})"
                return
            if found is not None:
                facts[source.path] = found

        # Trees and types are taken as each module is checked (and freed by mypy right after),
        # through a plugin hook that leaves mypy's cache records as a plain run's
        # (``hooked_plugins``). Where it cannot, the trees and types are kept to the build's
        # end instead, and read there.
        hook = CheckedModuleHook(options, {t.module for t in targets}, take)
        blocking = _BlockingMessages()
        try:
            # mypy reports an internal error on sys.stderr whatever streams it was given.
            with (
                contextlib.redirect_stdout(output),
                contextlib.redirect_stderr(output),
                plugin_results.collecting(plugin_judged),
                hooked_plugins(options, hook) as extra_plugins,
            ):
                streamed = extra_plugins is not None
                options.preserve_asts = not streamed
                options.export_types = not streamed
                built = build.build(
                    targets,
                    options,
                    stdout=output,
                    stderr=output,
                    flush_errors=blocking,
                    extra_plugins=extra_plugins or [],
                )
        except CompileError as exc:
            messages = exc.messages or blocking.messages
            package = package_found_twice(messages, targets)
            if package is not None:
                raise _TargetCrash(*package) from None
            raise _blocking_error(messages, by_abspath) from None
        except SystemExit:
            raise _crash_from_output(output.getvalue(), by_abspath) from None
        except Exception as exc:  # mypy's own bug, raised instead of reported
            trace = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            raise _crash_from_output(output.getvalue(), by_abspath, trace) from None
        keys: dict[str, str] = {}
        closures = closure_digests(built.graph)
        for target in targets:
            state = built.graph.get(target.module)
            source = by_abspath[os.path.abspath(target.path or "")]
            if state is None:
                continue
            keys[source.path] = dependency_key(state, built.graph, closures)
            checked = target.text is not None or target.module in built.manager.rechecked_modules
            if (not streamed or hook.attached is False) and checked and state.tree is not None:
                # The trees and types were kept to the build's end.
                take(state.tree, built.types, state.options, built.manager)
        # What the cache answered for: each forced file is checked alone, against the cached
        # interfaces of every module it imports (its import cycle's included). The largest
        # first: the analyses of the files whose facts come last are what the run waits for.
        for abspath, target in sorted(
            from_disk.items(), key=lambda item: -len(by_abspath[item[0]].text)
        ):
            source = by_abspath[abspath]
            if source.path in taken or target.module not in built.graph:
                continue
            try:
                with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                    state = _check_alone(built.manager, built.graph, target.module)
            except CompileError as exc:
                taken.add(source.path)
                message = (exc.messages or ["a blocking error"])[-1]
                unreadable[source.path] = f"mypy stopped with a blocking error: {message}"
                continue
            except SystemExit:  # mypy's internal error, reported on the output given
                taken.add(source.path)
                unreadable[source.path] = "mypy crashed with an internal error"
                continue
            except Exception as exc:  # mypy's own bug, raised instead of reported
                taken.add(source.path)
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                unreadable[source.path] = f"mypy crashed with an internal error: {detail}"
                continue
            assert state.tree is not None
            take(state.tree, state.type_map(), state.options, built.manager)
            _release(built.manager, state)
        read = [state.xpath for state in built.graph.values()]
        read.extend(path for path in [options.config_file] if path)
        # A package installed where mypy looks for packages changes its folder: an import
        # that could not be found may be found now.
        search_paths = built.manager.search_paths
        read.extend(search_paths.package_path + search_paths.mypy_path)
        forced_modules = {
            target.module
            for target in targets
            if by_abspath[os.path.abspath(target.path or "")].force
        }
        rechecked = frozenset(built.manager.rechecked_modules - forced_modules)
        return _Built(facts, keys, stat_files(read), unreadable, rechecked, spare, fact_seconds[0])

    def _use_writable_cache(self, options: Options) -> None:
        """mypy's cache folder, or a private one when it cannot be written: mypy stops with
        an error where it cannot write its cache, and every file would go without types."""
        if not options.incremental or options.cache_dir == os.devnull:
            return
        problem = _unwritable(
            os.path.join(options.cache_dir, "{}.{}".format(*options.python_version))
        )
        if problem is None:
            return
        private = platformdirs.user_cache_path("loomlint", appauthor=False) / "mypy-cache"
        private /= hashlib.sha256(os.fsencode(os.path.abspath(options.cache_dir))).hexdigest()[:16]
        note = (
            f"mypy's cache folder '{options.cache_dir}' cannot be written ({problem}); this run "
            f"keeps mypy's cache in a private folder instead: '{private}'"
        )
        if note not in self._notes:
            self._notes.append(note)
        options.cache_dir = str(private)

    def _facts_of(
        self,
        source: SourceFile,
        tree: MypyFile,
        types: dict[Expression, Type],
        module_options: Options,
        manager: BuildManager,
        consumer: FactsConsumer | None,
    ) -> FileTypes | None:
        """A checked file's facts, when its analysis may need them; passed on to ``consumer``.

        Without a say from the consumer's screen (still running, or no screen), the facts are
        taken: the tree is gone once mypy moves on.
        """
        screened = consumer.screened(source.path) if consumer is not None else None
        facts: FileTypes | None = None
        if screened is not False or types_content(tree, types, self._spi):
            facts = self._collect(tree, types, module_options, manager)
        if consumer is not None:
            consumer.accept(source.path, facts)
        return facts

    def _take_spare(
        self,
        source: SourceFile,
        tree: MypyFile,
        types: dict[Expression, Type],
        module_options: Options,
        manager: BuildManager,
        spare: dict[str, FileTypes],
    ) -> None:
        """Keep the facts of a file mypy checked though it was not forced, if mypy read the
        text the file is analysed from (not so for an editor's buffer that differs)."""
        try:
            with open(source.path, encoding="utf-8", newline="") as file:
                if file.read() != source.text:
                    return
            spare[source.path] = self._collect(tree, types, module_options, manager)
        except Exception:  # a spare is only a shortcut: without it, the file is built again
            return

    def _collect(
        self,
        tree: MypyFile,
        types: dict[Expression, Type],
        module_options: Options,
        manager: BuildManager,
    ) -> FileTypes:
        """A checked module's facts, read with its own options."""
        collector = FactCollector(
            types,
            self._spi,
            module_options,
            check_untyped_defs=module_options.check_untyped_defs,
            build=manager,
        )
        return collector.collect(tree)


def _names_loomlint_plugin(options: Options) -> bool:
    """Whether the build loads loomlint's mypy plugin (``plugins``: a module, or a module and
    the function to call in it)."""
    return any(name.partition(":")[0] == "loomlint.mypy_plugin" for name in options.plugins)


def _is_on_disk(source: SourceFile) -> bool:
    """Whether the file on disk holds the text being analysed (mypy reads it from there)."""
    try:
        with open(source.path, encoding="utf-8", newline="") as file:
            return file.read() == source.text
    except (OSError, UnicodeDecodeError):
        return False


def _check_alone(manager: BuildManager, graph: Graph, module: str) -> State:
    """Type-check one module of a finished build from its source, alone: every module it
    imports, directly or not (the other modules of its import cycle too), is loaded from
    mypy's cache, as mypy's fine-grained update does for a changed module
    (``mypy.server.update.update_module_isolated``). Its types are those a build checking
    its whole import cycle gives; nothing is written to the cache. Raises ``CompileError``
    on a blocking error."""
    state = graph[module]
    ensure_trees_loaded(manager, graph, [module])
    cached_tree = manager.modules.get(module)
    state.tree = None
    manager.ast_cache.pop(module, None)
    # Each module starts with no errors: nobody reads them, and they would pile up.
    manager.errors.reset()
    try:
        # The cached tree stays the module's until the new one is analysed: the other
        # modules' cached trees resolve their references to it lazily, by name.
        state.parse_file(temporary=True)
        manager.ast_cache.pop(module, None)
        state.check_blockers()
        semantic_analysis_for_scc(graph, [module], manager.errors)
    except BaseException:
        # The modules checked after this one still see its cached definitions.
        state.tree = cached_tree
        raise
    # The new tree keeps the identities of the cached tree's definitions, which the other
    # modules' cached trees refer to (a class of this module is one class, not two).
    replace_modules_with_new_variants(manager, graph, {module: cached_tree}, {module: state.tree})
    state.type_check_first_pass()
    while state.type_check_second_pass():
        pass
    return state


def _release(manager: BuildManager, state: State) -> None:
    """Free what checking a module alone built, as mypy does once it has checked a module: its
    function bodies and types (its definitions stay, for the modules checked after it)."""
    state.free_state()
    if state.tree is not None and not manager.options.preserve_asts:
        free_tree(state.tree)
        state.tree.defs.clear()
    manager.errors.reset()


def _unwritable(folder: str) -> str | None:
    """Why no file can be written in ``folder`` (created if missing), or None."""
    try:
        os.makedirs(folder, exist_ok=True)
        descriptor, probe = tempfile.mkstemp(dir=folder, prefix=".loomlint-probe-")
    except OSError as exc:
        return str(exc)
    os.close(descriptor)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return None


class _TargetCrash(Exception):
    """The targets mypy stopped on (one file, or every file of a package it finds twice),
    to leave out of the next build, and why."""

    def __init__(self, abspaths: Sequence[str], reason: str) -> None:
        super().__init__(reason)
        self.abspaths = tuple(abspaths)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class FoundTwice:
    """mypy's blocking "Source file found twice under different module names": a folder above
    ``path`` has no ``__init__.py``, so the module name mypy gives the file from its path
    (``crawled``, counted from ``base_dir``) is not the one an import finds (``imported``).
    Every file mypy counts from the same folder is in the same case."""

    path: str
    crawled: str
    imported: str
    base_dir: str

    @property
    def reason(self) -> str:
        """Why, in the same words for every file of the package, whichever of its modules mypy
        stopped on: the package's top folder, and the two names mypy finds it under."""
        top = self.crawled.split(".")[0]
        imported = self.imported[: len(self.imported) - len(self.crawled)] + top
        folder = _shown(os.path.join(self.base_dir, top))
        return (
            f'mypy finds this file\'s package under two names ("{top}" and "{imported}", '
            f"{folder}), because a folder above it has no __init__.py. Add the missing "
            "__init__.py files, or set explicit_package_bases = true (with mypy_path naming the "
            "folder the package starts in) in mypy's configuration"
        )


def _shown(path: str) -> str:
    """A path as a message shows it: relative to the working folder, if it is below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def found_twice(messages: Iterable[str]) -> FoundTwice | None:
    """The first file of ``messages`` (mypy's) that mypy found under two module names."""
    for message in messages:
        found = _FOUND_TWICE.match(message)
        if found is None:
            continue
        crawled, imported = sorted((found["first"], found["second"]), key=len)
        if not imported.endswith("." + crawled):
            continue
        path = os.path.abspath(found["path"])
        folder, name = os.path.split(path)
        base = folder if name == "__init__.py" else os.path.splitext(path)[0]
        for _ in crawled.split("."):
            base = os.path.dirname(base)
        return FoundTwice(path, crawled, imported, base)
    return None


def counted_from(found: FoundTwice, sources: Iterable[BuildSource]) -> list[str]:
    """The files of ``sources`` whose module names mypy counts from ``found``'s folder."""
    return [
        os.path.abspath(source.path)
        for source in sources
        if source.path is not None
        and source.base_dir is not None
        and os.path.abspath(source.base_dir) == found.base_dir
    ]


def package_found_twice(
    messages: list[str], sources: Iterable[BuildSource]
) -> tuple[list[str], str] | None:
    """For a build mypy stopped on a package it finds twice (``found_twice``): the files of
    ``sources`` in that package, to leave out of the next build together, and why. None for
    any other blocking error; ``OracleUnavailable`` when none of ``sources`` is in the package
    (no build without it can be tried)."""
    twice = found_twice(messages)
    if twice is None:
        return None
    package = counted_from(twice, sources)
    if not package:
        raise OracleUnavailable(twice.reason)
    return package, twice.reason


# How a key of two digests begins (the language server's keys are of another kind).
_TWO_DIGESTS = "digests:"


def dependency_key(state: State, graph: Graph, closures: dict[str, bytes]) -> str:
    """What a module's types depend on besides its own text: the options that shape its types,
    mypy's version, the imports mypy could not find, and its dependencies (mypy records
    indirect ones too: every module a type of it comes from).

    Two digests, of the dependencies' interfaces and of all the text they stand on (each
    one's ``closures``): the types stand while either one does (``dependency_key_holds``).
    The interfaces' alone would not do: mypy's interface hash of a module whose text is
    unchanged differs between a build that takes that module's own dependencies from its cache
    and one that checks them afresh (a TypedDict's items are serialised in another order). On
    pydantic-ai a warm run found 10 cached files stale that way, and built again: 47 s."""
    common = hashlib.sha256(mypy_version.encode())
    # The configuration's options for the module, as mypy's cache records them: not the
    # module's own ``# mypy:`` comments, which are in its text (the result cache's key) and
    # are in ``state.options`` only where this build parsed it.
    options = state.manager.options.clone_for_module(state.id)
    common.update(repr(options.select_options_affecting_cache()).encode())
    # An import that could not be found and now can (the package was installed) is no longer
    # suppressed: both digests move.
    for missing in sorted(state.suppressed):
        common.update(b"?" + missing.encode() + b"\0")
    interfaces = common.copy()
    sources = common.copy()
    for dependency in sorted(state.dependencies):
        dependency_state = graph.get(dependency)
        name = dependency.encode() + b"\0"
        interfaces.update(
            name + (dependency_state.interface_hash if dependency_state else b"-") + b"\0"
        )
        sources.update(name + closures.get(dependency, b"-") + b"\0")
    return f"{_TWO_DIGESTS}{interfaces.hexdigest()}:{sources.hexdigest()}"


def closure_digests(graph: Graph) -> dict[str, bytes]:
    """For each module, a digest of the text of every module it imports, directly or not, and
    of the imports among them mypy could not find: while it holds, no type in the module can
    have changed. Modules of one import cycle share their cycle's digest."""
    edges = {
        module: [d for d in (*state.dependencies, *(state.ancestors or ())) if d in graph]
        for module, state in graph.items()
    }
    digests: dict[str, bytes] = {}
    # Each cycle comes after every cycle it imports (Tarjan's order), so theirs are known.
    for cycle in strongly_connected_components(set(graph), edges):
        digest = hashlib.sha256()
        for module in sorted(cycle):
            state = graph[module]
            digest.update(module.encode() + b"\0" + _source_hash(state).encode() + b"\0")
            for missing in sorted(state.suppressed):
                digest.update(b"?" + missing.encode() + b"\0")
        imported = {digests[d] for module in cycle for d in edges[module] if d not in cycle}
        for closure in sorted(imported):
            digest.update(closure)
        for module in cycle:
            digests[module] = digest.digest()
    return digests


def _source_hash(state: State) -> str:
    """The hash of a module's text, whether mypy parsed it in this build or took it from its
    cache (as mypy's own fine-grained snapshot does)."""
    if state.source_hash:
        return state.source_hash
    return state.meta.hash if state.meta is not None else ""


def dependency_key_holds(recorded: str | None, current: str | None) -> bool:
    """Whether a cached result, made when a file's dependency key was ``recorded``, still
    stands now that it is ``current``. A key of this oracle's two digests holds while no
    dependency's interface moved, or none's text did; any other key (the language server's)
    holds while it is the same."""
    if recorded is None or current is None:
        return False
    if not (recorded.startswith(_TWO_DIGESTS) and current.startswith(_TWO_DIGESTS)):
        return recorded == current
    recorded_interfaces, _, recorded_sources = recorded.removeprefix(_TWO_DIGESTS).partition(":")
    current_interfaces, _, current_sources = current.removeprefix(_TWO_DIGESTS).partition(":")
    return recorded_interfaces == current_interfaces or recorded_sources == current_sources


class _BlockingMessages:
    """mypy's flush callback: keeps only the latest messages. A blocking error (a syntax
    error stops the build) is among the last flushed, and names its file; the user's type
    errors are mypy's to report, not loomlint's, and dropping them keeps them out of memory."""

    def __init__(self) -> None:
        self._recent: collections.deque[str] = collections.deque(maxlen=200)

    @property
    def messages(self) -> list[str]:
        return list(self._recent)

    def __call__(self, filename: str | None, new_messages: list[str], is_serious: bool) -> None:
        del filename, is_serious
        self._recent.extend(new_messages)


# One line of mypy's report: ``path:line: error: ...`` (the line, and a column, are optional).
_REPORTED = re.compile(r"(?P<path>.+?)(?::\d+)*: (?P<severity>error|note|warning): ")


def _blocking_error(
    messages: list[str], targets: dict[str, str] | dict[str, SourceFile]
) -> Exception:
    # The blocking error is the last one mypy reported before it stopped; the errors before it
    # (a missing import, say) did not stop it.
    for message in reversed(messages):
        reported = _REPORTED.match(message)
        if reported is None or reported["severity"] != "error":
            continue
        abspath = os.path.abspath(reported["path"])
        if abspath in targets:
            return _TargetCrash([abspath], f"mypy stopped with a blocking error: {message}")
    return OracleUnavailable(_first_lines("\n".join(messages)))


def _crash_from_output(output: str, targets: dict[str, SourceFile], trace: str = "") -> Exception:
    for match in _INTERNAL_ERROR.finditer(output):
        abspath = os.path.abspath(match.group("path"))
        if abspath in targets:
            where = f" at line {match.group('line')}" if match.group("line") else ""
            detail = f": {trace}" if trace else ""
            return _TargetCrash([abspath], f"mypy crashed with an internal error{where}{detail}")
    return OracleUnavailable("mypy crashed: " + _first_lines(trace or output))


def _first_lines(text: str, count: int = 3) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " / ".join(lines[:count]) if lines else "no output"
