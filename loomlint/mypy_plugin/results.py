"""The plugin's findings, recorded where ``loomlint check`` looks for them.

Each module the plugin judges gets its result-cache entry (``loomlint.run.cache.ResultCache``,
under the settings fingerprint ``loomlint check`` computes for the same configuration), with
the dependency key ``loomlint check``'s own build would give it (``oracle.dependency_key``).
A module's key is known once mypy has finished with it: mypy adds its indirect dependencies
after the plugin's hook, and writes its import cycle's interfaces once the cycle is done. So
an entry waits for a later hook to learn its key; the entries still waiting when mypy's
process ends are written without one (``loomlint check`` builds them again when something
changes). The plugin's worker process (``mypy_plugin.worker``) holds them and writes them, off
mypy's way, and it outlives mypy's process.

When mypy's process has ended, the worker also records the build as ``loomlint check``
records its own (``ResultCache.record_build``), if mypy completed it: the modules whose
errors mypy reports (their entries are this build's, or older ones for modules mypy found
fresh, whose types did not change), and every file the build read. ``loomlint check`` on
those files (or some of them) then needs no mypy build while none of those files changes.

Nothing is recorded under mypy's daemon, whose fine-grained builds write no cache.
"""

from __future__ import annotations

import os

from mypy.build import BuildManager, State

from loomlint.engine.diagnostics import FileResult
from loomlint.mypy_plugin.worker import AnalysisWorker, BuildRecord, MetastoreAt
from loomlint.run.cache import source_digest


class ResultRecorder:
    def __init__(self, worker: AnalysisWorker) -> None:
        self._worker = worker
        # Modules whose entries wait for their key, with their files.
        self._waiting: dict[str, str] = {}
        self._closures: dict[str, bytes] | None = None
        self._recording = False
        self._broken = False

    def judged(
        self,
        manager: BuildManager,
        states: dict[str, State],
        module: str,
        entry: tuple[str, bytes, FileResult] | None,
    ) -> None:
        """mypy has checked ``module``; ``entry`` is its file, bytes and result, when it is a
        file ``loomlint check`` analyses."""
        if self._broken:
            return
        self._send_keys(manager, states)
        if entry is None:
            return
        path, source, result = entry
        if not self._worker.keep(path, source_digest(source), result):
            self._broken = True  # no worker: nothing is recorded in this run
            return
        self._waiting[module] = path
        if not self._recording:
            self._recording = True
            self._worker.record(_build_record(manager, states))

    def _send_keys(self, manager: BuildManager, states: dict[str, State]) -> None:
        """The keys of the waiting modules whose import cycle is done."""
        if not self._waiting:
            return
        # Imported once there is a key to make: not at mypy's start, on its way.
        from loomlint.run.oracle import closure_digests, dependency_key

        for module, path in list(self._waiting.items()):
            state = states.get(module)
            cycle = manager.scc_by_mod_id.get(module)
            if state is None or cycle is None or cycle.id not in manager.done_sccs:
                continue
            if self._closures is None:
                self._closures = closure_digests(states)
            self._worker.key(path, dependency_key(state, states, self._closures))
            del self._waiting[module]


def _build_record(manager: BuildManager, states: dict[str, State]) -> BuildRecord:
    options = manager.options
    read = [state.xpath for state in states.values()]
    read.extend(path for path in [options.config_file] if path)
    # A package installed where mypy looks for packages changes its folder: an import that
    # could not be found may be found now.
    search_paths = manager.search_paths
    read.extend(search_paths.package_path + search_paths.mypy_path)
    # Absolute: loomlint check may run from another folder.
    read = [os.path.abspath(path) for path in read]
    major, minor = options.python_version
    prefix = os.path.join(options.cache_dir, f"{major}.{minor}")  # mypy's cache prefix
    metastore = MetastoreAt(prefix, options.sqlite_cache, options.sqlite_num_shards)
    return BuildRecord(
        targets=tuple(
            os.path.abspath(state.xpath)
            for state in states.values()
            if not (state.ignore_all or state.options.ignore_errors)
        ),
        read=tuple(read),
        metastore=metastore,
        snapshot_before=metastore.snapshot_time(),
    )
