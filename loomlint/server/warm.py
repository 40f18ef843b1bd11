"""Types from a mypy build kept warm in memory and updated fine-grained, as dmypy does.

The first request builds the project once in mypy's fine-grained mode (``mypy.dmypy_server``
does the same: trees and fine-grained dependencies kept in memory, no cache read or written,
so the user's own mypy cache is left alone). Every later request hands the changed files to
``FineGrainedBuildManager.update``: mypy re-checks those modules, and only the targets in
other modules that depend on what changed, not the import cycle around them.

Unsaved editor buffers reach mypy through its file-system cache: after each flush, the
buffer's bytes stand in for the file's. ``on_disk`` gives the same build as an oracle that
judges the files as they are on disk (``loomlint check`` asking a daemon): the buffers
overlaid by the editor's last update are read from disk again first, and only the files
changed on disk since the last update, plus those whose types the caller asks for, are
updated. The types of an updated module are exported into
``manager.all_types`` (``export_types``, set only for updates, so the first build keeps no
types of the whole project); they are reduced to the same ``FileTypes`` facts a
``loomlint check`` build gives, by the same code (``MypyOracle._facts_of``).
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mypy import build
from mypy.build import BuildManager, State
from mypy.errors import CompileError
from mypy.find_sources import InvalidSourceList, create_source_list
from mypy.fscache import FileSystemCache
from mypy.modulefinder import BuildSource
from mypy.nodes import Expression
from mypy.options import Options
from mypy.server.update import FineGrainedBuildManager
from mypy.types import Type
from mypy.util import hash_digest

from loomlint.catalog.spi import SpiModel
from loomlint.engine.typefacts import FileTypes
from loomlint.files.encoding import source_bytes
from loomlint.files.stamps import FileStamp, stat_files
from loomlint.run.oracle import (
    FactsConsumer,
    MypyOracle,
    OracleResult,
    OracleUnavailable,
    SourceFile,
    TypeOracle,
    package_found_twice,
)
from loomlint.server.watch import ContentWatcher

# Files of the project whose syntax error stops the first build are left out of it, one at a
# time, this many times at most.
_MAX_LEFT_OUT = 20
# A buffer's stand-in path: no file by that name is ever read or written.
_SHADOW_SUFFIX = ".loomlint-buffer"
# The SPIs whose facts and dependency keys are kept (checks with other presets, see
# ``_Reader``); the daemon keeps as many result stores.
_KEPT_READERS = 4


@dataclass(frozen=True, slots=True)
class UpdateStats:
    """What the last request did: for logs, tests and the benchmark."""

    cold_build: bool
    updated_modules: tuple[str, ...]


@dataclass(slots=True)
class _Reader:
    """How the files on disk were read under one SPI (``analyze_on_disk``): mypy's build
    serves every SPI alike, but the facts read from it are the SPI's.

    ``processed``: how often each module was (re)processed since its facts could last have
    differed, a module's dependency key on disk; ``epoch`` tells these keys from those of
    any reader before it. ``facts``: the facts last read for each module."""

    epoch: str = field(default_factory=lambda: secrets.token_hex(8))
    processed: dict[str, int] = field(default_factory=dict[str, int])
    facts: dict[str, FileTypes] = field(default_factory=dict[str, FileTypes])


class WarmMypy(MypyOracle):
    """A ``TypeOracle`` over one fine-grained mypy build of the project, kept between calls.

    Not thread-safe: one thread makes every call (mypy's state is global).
    """

    def __init__(
        self,
        spi: SpiModel,
        *,
        config_file: Path | None,
        project_plugins: bool,
        project_root: Path,
        project_files: Sequence[str],
    ) -> None:
        super().__init__(spi, config_file=config_file, project_plugins=project_plugins)
        # The editor's checks read facts for this SPI; a check on disk for its run's.
        self._editor_spi = spi
        self._root = str(project_root.resolve())
        self._project_files = [os.path.abspath(path) for path in project_files]
        self._fscache = FileSystemCache()
        self._watcher = ContentWatcher()
        self._manager: FineGrainedBuildManager | None = None
        # The folders where the build looked for modules, as they were then: a package
        # installed into one of them since (a new entry, see ``stat_files``) may be what an
        # import could not find, which only a new build finds.
        self._search_folders: dict[str, FileStamp] = {}
        self._options: Options | None = None
        # Absolute path -> module id, for every module the build knows by path.
        self._modules: dict[str, str] = {}
        # Files whose buffer mypy last saw instead of the file: at their next update the
        # file on disk stands again (the buffer was closed).
        self._overlaid: set[str] = set()
        # The files of a package mypy finds under two module names (``found_twice``), left
        # out of the build from its start, and why: each would stop mypy again, in the build
        # and in an update alike, so they go without types as ``loomlint check``'s do.
        self._found_twice: dict[str, str] = {}
        # The folders from each of those files up to the project root, as they were: an
        # __init__.py added to one (what the reason advises) ends the conflict, which only a
        # new build finds.
        self._found_twice_folders: dict[str, FileStamp] = {}
        self.last = UpdateStats(cold_build=False, updated_modules=())
        # How many times the project was built from scratch (the first time, and after
        # a crash or a package installed).
        self.cold_builds = 0
        # By SPI, the most recently used last; ``_reader`` is the current one's.
        self._readers: dict[SpiModel, _Reader] = {}
        self._reader = _Reader()

    @property
    def started(self) -> bool:
        return self._manager is not None

    def analyze(
        self, files: Sequence[SourceFile], consumer: FactsConsumer | None = None
    ) -> OracleResult:
        """Types of the editor's buffers ``files``, whose text stands in for the files'."""
        buffers = {os.path.abspath(f.path): f for f in files}
        self._spi = self._editor_spi
        return self._guarded(
            lambda result: self._update(
                self._manager or self._start(buffers, result), buffers, consumer, result
            )
        )

    def on_disk(self, spi: SpiModel | None = None) -> TypeOracle:
        """This build as the oracle of a ``loomlint check`` run: files as they are on disk,
        their facts read for ``spi`` (the run's presets; by default the build's own)."""
        return _OnDisk(self, spi or self._editor_spi)

    def analyze_on_disk(
        self,
        files: Sequence[SourceFile],
        consumer: FactsConsumer | None = None,
        *,
        spi: SpiModel | None = None,
    ) -> OracleResult:
        """Types of the forced ``files`` as they are on disk, and every file's dependency
        key (how often mypy processed its module in this build)."""
        wanted = {os.path.abspath(f.path): f for f in files}
        forced = {path: f for path, f in wanted.items() if f.force}

        def run(result: OracleResult) -> FineGrainedBuildManager:
            self._read_for(spi or self._editor_spi)
            taken: set[str] = set()
            manager = self._manager or self._start({}, result, forced, consumer, taken)
            before = dict(self._reader.processed)
            self._update_on_disk(
                manager,
                {p: f for p, f in forced.items() if p not in taken},
                wanted,
                consumer,
                result,
            )
            self._confirm_unchanged(manager, wanted, before)
            for path, source in wanted.items():
                module = self._modules.get(path) or path
                result.dependency_keys[source.path] = (
                    f"{self._reader.epoch}:{module}:{self._reader.processed.get(module, 0)}"
                )
            return manager

        return self._guarded(run)

    def _read_for(self, spi: SpiModel) -> None:
        """Take facts for ``spi`` from now on (the build itself serves every SPI)."""
        self._spi = spi
        self._reader = self._readers.pop(spi) if spi in self._readers else _Reader()
        self._readers[spi] = self._reader
        while len(self._readers) > _KEPT_READERS:
            del self._readers[next(iter(self._readers))]

    def _confirm_unchanged(
        self,
        fine: FineGrainedBuildManager,
        wanted: Mapping[str, SourceFile],
        before: Mapping[str, int],
    ) -> None:
        """An unforced file whose module mypy re-processed keeps its dependency key when
        its facts are still those last read: its result stands, and it is not analysed
        again. (mypy re-processes much that does not change: on langchain-core, after any
        edit, the methods a plugin generates in every model class of the import cycle.)"""
        for path, source in wanted.items():
            module = self._modules.get(path)
            if source.force or module is None:
                continue
            if self._reader.processed.get(module, 0) == before.get(module, 0):
                continue
            known = self._reader.facts.get(module)
            if known is not None and self._recheck(fine, path, source, None) == known:
                self._reader.processed[module] = before.get(module, 0)

    def _guarded(self, work: Callable[[OracleResult], FineGrainedBuildManager]) -> OracleResult:
        result = OracleResult()
        output = io.StringIO()
        # mypy writes a crash report to sys.stdout/sys.stderr whatever it is given, and the
        # language server's stdout is its protocol stream.
        with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            try:
                if self._manager is not None and self._folders_changed():
                    self._reset()
                cold = self._manager is None
                manager = work(result)
            except OracleUnavailable:
                self._reset()
                raise
            except (Exception, SystemExit) as exc:  # mypy's own bug (its internal error
                # report ends in SystemExit): start again from scratch next time
                self._reset()
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                raise OracleUnavailable(f"mypy crashed: {detail}") from None
        self.last = UpdateStats(cold, tuple(manager.updated_modules))
        return result

    def forget_buffer(self, path: str) -> None:
        """The editor closed ``path``: from the next update, mypy reads the file on disk."""
        self._overlaid.add(os.path.abspath(path))

    def _folders_changed(self) -> bool:
        return any(
            stat_files(folders) != folders
            for folders in (self._search_folders, self._found_twice_folders)
        )

    def _reset(self) -> None:
        self._manager = None
        self._options = None
        self._modules.clear()
        self._readers.clear()
        self._reader = _Reader()
        self._fscache = FileSystemCache()
        self._watcher = ContentWatcher()
        self._search_folders = {}
        self._found_twice_folders = {}

    def _start(
        self,
        buffers: dict[str, SourceFile],
        result: OracleResult,
        export: Mapping[str, SourceFile] | None = None,
        consumer: FactsConsumer | None = None,
        taken: set[str] | None = None,
    ) -> FineGrainedBuildManager:
        """The first build. The types of the files in ``export`` are read from it (their
        paths added to ``taken``), so that they need no update after it."""
        export = export or {}
        project = list(dict.fromkeys([*self._project_files, *buffers, *export]))
        left_out: set[str] = set()
        self._found_twice = {}
        for _attempt in range(_MAX_LEFT_OUT + 1):
            sources, options = self._options_for([p for p in project if p not in left_out])
            # Exported by the first build only when it is asked for (a check run's cold
            # start): the types of the whole project are held until they are read.
            options.export_types = bool(export)
            self._fscache.flush()
            # The first build takes the buffers' text as its sources' text.
            sources = [
                BuildSource(s.path, s.module, buffers[s.path].text, s.base_dir)
                if s.path in buffers
                else s
                for s in sources
            ]
            blocking = _Messages()
            try:
                built = build.build(
                    sources,
                    options,
                    fscache=self._fscache,
                    stdout=io.StringIO(),
                    stderr=io.StringIO(),
                    flush_errors=blocking,
                )
            except CompileError as exc:
                messages = exc.messages or blocking.messages
                package = package_found_twice(messages, sources)
                if package is not None:
                    # Each file of the package would stop the build in turn: all are left out.
                    paths, reason = package
                    left_out.update(paths)
                    self._found_twice.update(dict.fromkeys(paths, reason))
                    continue
                culprit = _blocking_path(messages, project, left_out)
                if culprit is None:
                    raise OracleUnavailable(" / ".join(exc.messages[:3]) or "no output") from None
                left_out.add(culprit)
                if culprit in buffers:
                    result.failures[buffers[culprit].path] = (
                        f"mypy stopped with a blocking error: {_blocking_message(exc.messages)}"
                    )
                continue
            manager = FineGrainedBuildManager(built)
            self._manager = manager
            self.cold_builds += 1
            self._options = options
            search = built.manager.search_paths
            self._search_folders = stat_files(
                folder
                for folder in map(os.path.abspath, [*search.package_path, *search.mypy_path])
                # A folder of the project's own sources (an editable install puts the root
                # on the path) changes with every file saved by rename: its files are
                # watched one by one instead. (A virtual environment inside the project
                # holds none of its sources, and is watched.)
                if not any(_nested(path, folder) for path in self._project_files)
            )
            self._found_twice_folders = stat_files(_folders_up_to(self._found_twice, self._root))
            self._modules = {}
            self._learn_modules(manager)
            self._watcher.find_changed()  # records what the build read
            try:
                for path, source in export.items():
                    state = manager.graph.get(self._modules.get(path, ""))
                    if path in left_out or state is None or state.tree is None:
                        continue  # updated after the build, or failed there
                    self._take_facts(source, state, manager.manager.all_types, consumer, result)
                    (taken if taken is not None else set[str]()).add(path)
            finally:
                built.types.clear()
                manager.manager.all_types.clear()
                options.export_types = False
            return manager
        raise OracleUnavailable("too many files of the project stop mypy with a syntax error")

    def _learn_modules(self, fine: FineGrainedBuildManager) -> None:
        """Map the build's modules by path; like dmypy, watch the project's own files."""
        new = {
            os.path.abspath(state.xpath): module
            for module, state in fine.graph.items()
            if state.path is not None and os.path.abspath(state.xpath) not in self._modules
        }
        self._modules.update(new)
        self._watcher.add_watched_paths(
            [path for path in new if path.startswith(self._root + os.sep)]
        )

    def _count_processed(self, fine: FineGrainedBuildManager) -> None:
        """Every module mypy processed anew in the last update (changed, or holding targets
        that depend on what changed): the types read from it before may differ now."""
        graph = fine.graph
        touched = set(fine.updated_modules)
        for target in fine.processed_targets:
            name = target
            while name and name not in graph:
                name = name.rpartition(".")[0]
            if name:
                touched.add(name)
        for reader in self._readers.values():
            for module in touched:
                reader.processed[module] = reader.processed.get(module, 0) + 1

    def _take_facts(
        self,
        source: SourceFile,
        state: State,
        types: dict[Expression, Type],
        consumer: FactsConsumer | None,
        result: OracleResult,
        *,
        on_disk: bool = True,
    ) -> FileTypes | None:
        """The file's facts, passed on to ``consumer`` and kept in ``result``; read from
        the file on disk, they are also remembered (``_confirm_unchanged``)."""
        assert state.tree is not None
        try:
            facts = self._facts_of(
                source, state.tree, types, state.options, state.manager, consumer
            )
        except Exception as exc:  # loomlint's own bug: this file goes without types
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            result.failures[source.path] = f"internal error while reading mypy's types ({detail})"
            facts = None
        if on_disk and facts is not None:
            self._reader.facts[state.id] = facts
        elif on_disk:
            self._reader.facts.pop(state.id, None)
        if facts is not None:
            result.files[source.path] = facts
        return facts

    def _update_on_disk(
        self,
        fine: FineGrainedBuildManager,
        forced: dict[str, SourceFile],
        wanted: Mapping[str, SourceFile],
        consumer: FactsConsumer | None,
        result: OracleResult,
    ) -> None:
        """Update the files changed on disk, those an editor's buffer stood in for, and the
        forced ones; read the forced files' types."""
        manager = fine.manager
        options = self._options
        assert options is not None
        forced = self._without_found_twice(forced, result)
        self._fscache.flush()
        fine.flush_cache()
        manager.shadow_map.clear()
        manager.shadow_equivalence_map.clear()
        on_disk = [
            path
            for path in sorted({*self._watcher.find_changed(), *self._not_as_built(wanted)})
            if path in self._modules
        ]
        # A forced file mypy has as it is on disk only needs its types read again (its
        # cached result is stale: mypy re-processed something in it); updating it would
        # also re-process everything that depends on it.
        stale = {*on_disk, *self._overlaid}
        unchanged = {p: f for p, f in forced.items() if p not in stale and p in self._modules}
        changed = self._modules_of(
            [*on_disk, *sorted(self._overlaid), *(p for p in forced if p not in unchanged)],
            options,
        )
        self._overlaid = set()
        if changed:
            self._update_and_read(
                fine,
                changed,
                {p: f for p, f in forced.items() if p not in unchanged},
                consumer,
                result,
                on_disk=True,
            )
        for path, source in unchanged.items():
            self._recheck(fine, path, source, consumer, result)

    def _without_found_twice(
        self, files: Mapping[str, SourceFile], result: OracleResult
    ) -> dict[str, SourceFile]:
        """``files`` less those left out of the build as a package mypy finds twice, each of
        which fails with why (``found_twice``)."""
        kept: dict[str, SourceFile] = {}
        for path, source in files.items():
            reason = self._found_twice.get(path)
            if reason is None:
                kept[path] = source
            else:
                result.failures[source.path] = reason
        return kept

    def _not_as_built(self, paths: Iterable[str]) -> set[str]:
        """Those of ``paths`` whose bytes on disk are not those mypy last parsed: the checked
        files are compared by content whatever their timestamps say (a file that changed
        while the build read it included)."""
        assert self._manager is not None
        graph = self._manager.graph
        differ: set[str] = set()
        for path in paths:
            state = graph.get(self._modules.get(path, ""))
            if state is None or state.source_hash is None:
                continue
            try:
                with open(path, "rb") as file:
                    data = file.read()
            except OSError:
                continue  # gone: the watcher says so
            if hash_digest(data) != state.source_hash:
                differ.add(path)
        return differ

    def _recheck(
        self,
        fine: FineGrainedBuildManager,
        path: str,
        source: SourceFile,
        consumer: FactsConsumer | None,
        result: OracleResult | None = None,
    ) -> FileTypes | None:
        """Type-check one module of the build again, as it stands, for its types: no
        parsing or semantic analysis, nothing else re-processed. Without ``result``, only
        to compare its facts: nothing is remembered."""
        state = fine.graph.get(self._modules[path])
        if fine.blocking_error is not None or state is None or state.tree is None:
            if result is not None:
                result.failures[source.path] = "mypy could not update this file's types"
            return None
        checker = state.type_checker()
        # mypy's errors are kept only during an update (each starts afresh) and nobody reads
        # them in between; a file's flushed errors would refuse this check's.
        fine.manager.errors.reset()
        checker.reset()
        # As mypy's fine-grained update re-checks a target (mypy.server.update).
        checker.pass_num = 0
        checker.last_pass = 3
        with state.wrap_context():
            checker.check_first_pass()
            while checker.check_second_pass(allow_constructor_cache=False):
                pass
        return self._take_facts(
            source,
            state,
            state.type_map(),
            consumer,
            result or OracleResult(),
            on_disk=result is not None,
        )

    def _options_for(self, paths: list[str]) -> tuple[list[BuildSource], Options]:
        sources, options = self._mypy_options(paths)
        # What dmypy sets (mypy.dmypy_server.Server): fine-grained mode keeps every tree and
        # the fine-grained dependencies in memory, and reads and writes no cache.
        options.incremental = True
        options.fine_grained_incremental = True
        options.use_fine_grained_cache = False
        options.cache_dir = os.devnull
        options.local_partial_types = True
        options.num_workers = 0
        options.preserve_asts = False
        options.export_types = False
        return sources, options

    def _update(
        self,
        fine: FineGrainedBuildManager,
        buffers: dict[str, SourceFile],
        consumer: FactsConsumer | None,
        result: OracleResult,
    ) -> FineGrainedBuildManager:
        manager = fine.manager
        options = self._options
        assert options is not None
        buffers = self._without_found_twice(buffers, result)
        self._fscache.flush()
        fine.flush_cache()
        # Files changed on disk since the last update (saved elsewhere, a git checkout).
        on_disk = [
            path
            for path in self._watcher.find_changed()
            if path not in buffers and path in self._modules
        ]
        self._overlay(manager, buffers)
        failed = {os.path.abspath(path) for path in result.failures}
        wanted = [path for path in buffers if path not in failed]
        changed = self._modules_of(
            [*wanted, *on_disk, *sorted(self._overlaid - set(buffers))], options
        )
        self._overlaid = set(buffers)
        self._update_and_read(
            fine, changed, {p: buffers[p] for p in wanted}, consumer, result, on_disk=False
        )
        return fine

    def _update_and_read(
        self,
        fine: FineGrainedBuildManager,
        changed: list[tuple[str, str]],
        wanted: Mapping[str, SourceFile],
        consumer: FactsConsumer | None,
        result: OracleResult,
        *,
        on_disk: bool,
    ) -> None:
        """Update the ``changed`` modules; read the types of the ``wanted`` files."""
        manager = fine.manager
        # Types are exported for this update only, and dropped once read.
        manager.options.export_types = True
        manager.all_types.clear()
        try:
            messages = fine.update(changed, [])
            self._count_processed(fine)
            self._learn_modules(fine)
            blocked = fine.blocking_error
            for path, source in wanted.items():
                state = fine.graph.get(self._modules.get(path, ""))
                if blocked is not None and os.path.abspath(blocked[1]) == path:
                    result.failures[source.path] = (
                        f"mypy stopped with a blocking error: {_blocking_message(messages)}"
                    )
                elif blocked is not None or state is None or state.tree is None:
                    result.failures[source.path] = "mypy could not update this file's types" + (
                        f" (a blocking error in {blocked[1]})" if blocked is not None else ""
                    )
                else:
                    self._take_facts(
                        source, state, manager.all_types, consumer, result, on_disk=on_disk
                    )
        finally:
            manager.all_types.clear()
            manager.options.export_types = False

    def _overlay(self, manager: BuildManager, buffers: dict[str, SourceFile]) -> None:
        """The buffers' text stands in for the files' bytes until the next flush.

        Through mypy's shadow files (``--shadow-file``): a module whose path is shadowed is
        read through the file-system cache, where the buffer waits under the shadow's path.
        (An unshadowed module is read from disk by mypy's native parser itself.)
        """
        manager.shadow_map.clear()
        manager.shadow_equivalence_map.clear()
        for path, source in buffers.items():
            shadow = path + _SHADOW_SUFFIX
            data = source_bytes(source.text)  # read back as its coding declaration says
            manager.shadow_map[path] = shadow
            self._fscache.read_cache[shadow] = data
            self._fscache.hash_cache[shadow] = hash_digest(data)

    def _modules_of(self, paths: list[str], options: Options) -> list[tuple[str, str]]:
        """(module id, path) of each file mypy can take as a module."""
        changed: list[tuple[str, str]] = []
        for path in dict.fromkeys(paths):
            module = self._modules.get(path) or self._module_of(path, options)
            if module is not None:
                self._modules[path] = module
                changed.append((module, path))
        return changed

    def _module_of(self, path: str, options: Options) -> str | None:
        """The module id of a file the build does not know yet (a new file)."""
        try:
            found = create_source_list([path], options, self._fscache)
        except InvalidSourceList:
            return None
        return found[0].module if found else None


class _OnDisk:
    """A ``WarmMypy`` as the oracle of a check run (``WarmMypy.on_disk``)."""

    def __init__(self, warm: WarmMypy, spi: SpiModel) -> None:
        self._warm = warm
        self._spi = spi

    def analyze(
        self, files: Sequence[SourceFile], consumer: FactsConsumer | None = None
    ) -> OracleResult:
        return self._warm.analyze_on_disk(files, consumer, spi=self._spi)


class _Messages:
    def __init__(self) -> None:
        self.messages: list[str] = []

    def __call__(self, filename: str | None, new_messages: list[str], is_serious: bool) -> None:
        del filename, is_serious
        self.messages = (self.messages + new_messages)[-200:]


def _nested(inner: str, outer: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


def _folders_up_to(paths: Iterable[str], root: str) -> set[str]:
    """The folders of ``paths`` and those above them, up to ``root`` (or to the top, for a
    path outside it)."""
    folders: set[str] = set()
    for path in paths:
        folder = os.path.dirname(path)
        while folder not in folders:
            folders.add(folder)
            if folder == root or os.path.dirname(folder) == folder:
                break
            folder = os.path.dirname(folder)
    return folders


def _blocking_path(messages: list[str], project: list[str], left_out: set[str]) -> str | None:
    """The project file a blocking error names, if it is one not left out yet."""
    candidates = set(project) - left_out
    for message in messages:
        path = os.path.abspath(message.split(":", 1)[0])
        if path in candidates:
            return path
    return None


def _blocking_message(messages: list[str]) -> str:
    errors = [m for m in messages if ": error:" in m]
    return (errors or messages or ["a syntax error"])[0]
