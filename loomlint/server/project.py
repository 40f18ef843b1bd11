"""One workspace as the language server sees it: its configuration, its warm mypy, and the
checks it runs, through the same runner and engine as ``loomlint check``.

Every check is ``runner.run_check`` on the editor's buffer text (``texts``), with the result
cache off (buffers are not files) and, with types, the warm fine-grained mypy as the oracle.
So a buffer gets byte for byte the findings ``loomlint check`` gives the same text.

The configuration is read again whenever one of the files it may come from changes (its
modification time or size), and with it the warm mypy is dropped and built again.

``check_on_disk`` serves ``loomlint check`` through a daemon: the same run on the files as
they are on disk, with the warm mypy as its oracle (``WarmMypy.on_disk``) and its results
kept in memory between runs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from loomlint.engine.diagnostics import FileResult
from loomlint.files.encoding import source_bytes
from loomlint.project.config import LOOMLINT_TOML, PYPROJECT, CliOverrides, ConfigError, Settings
from loomlint.project.discovery import DiscoveryError, discover_files
from loomlint.project.preset_inference import chosen_presets, with_presets_chosen
from loomlint.project.settings import load_settings
from loomlint.run.cache import MemoryResultCache
from loomlint.run.runner import RunResult, read_sources, run_check
from loomlint.server.endpoint import CheckRequest, environment_digest
from loomlint.server.warm import UpdateStats, WarmMypy

# Where loomlint's and mypy's configuration may come from, in the root or above it.
CONFIG_NAMES = (LOOMLINT_TOML, PYPROJECT, "mypy.ini", ".mypy.ini", "setup.cfg")

_Stamp = tuple[tuple[str, int, int], ...]
# Result stores kept for this many settings fingerprints (a check with other --select...).
_KEPT_STORES = 4


class Refused(Exception):
    """The daemon will not run this check; the message says why (the client runs it)."""


class Project:
    """The checks of one workspace root. ``check_typed`` must be called from one thread only
    (the warm mypy is not thread-safe); ``check_quick`` from any."""

    def __init__(self, root: Path, overrides: CliOverrides | None = None) -> None:
        self.root = Path(os.path.abspath(root))
        # What the server was started with (--no-project-plugins), over the configuration.
        self._overrides = overrides or CliOverrides()
        self._lock = threading.Lock()
        self._settings: Settings | None = None
        self._stamp: _Stamp = ()
        self._warm: WarmMypy | None = None
        # What the warm mypy was built with: another SPI or mypy configuration needs another.
        self._warm_key: tuple[object, ...] | None = None
        # The daemon's results, by settings fingerprint (``check_on_disk``).
        self._stores: dict[str, MemoryResultCache] = {}
        # Notes of the last typed check (mypy unavailable, ...), for the server's log.
        self.notes: list[str] = []
        # Whether the last check on disk had to build the project from scratch.
        self.last_check_cold = False

    def settings(self) -> Settings:
        """The current settings, read again if a configuration file changed.

        Raises ``ConfigError`` for a bad configuration (the server shows it and keeps going).
        """
        with self._lock:
            stamp = self._config_stamp()
            if self._settings is None or stamp != self._stamp:
                self._warm = None
                self._stores.clear()
                self._settings = None
                self._stamp = stamp
                self._settings = load_settings(self.root, overrides=self._overrides)
            return self._settings

    def includes(self, path: str) -> bool:
        """Whether ``loomlint check`` would check ``path`` when named (``exclude`` says no)."""
        settings = self.settings()
        try:
            return bool(discover_files([path], settings).files)
        except DiscoveryError:
            return path.endswith((".py", ".pyi"))  # not saved yet: nothing excludes it

    def check_quick(self, path: str, text: str) -> FileResult:
        """Findings without types (``--no-types``): at once, while the types are not ready."""
        settings = replace(self.settings(), types="none")
        run = run_check([path], settings, use_cache=False, sources={path: source_bytes(text)})
        return run.results[0]

    def check_typed(self, buffers: Mapping[str, str]) -> dict[str, FileResult]:
        """Findings with types for every open buffer, from one update of the warm mypy."""
        settings = self.settings()
        texts = {path: source_bytes(text) for path, text in buffers.items()}
        oracle = None
        if settings.types != "none":
            oracle = self._warm_mypy(settings)
        run = run_check(list(buffers), settings, use_cache=False, sources=texts, oracle=oracle)
        self.notes = list(run.notes)
        return {result.path: result for result in run.results}

    def check_on_disk(self, request: CheckRequest) -> RunResult:
        """``loomlint check`` of files as they are on disk, for a client whose settings and
        environment must be this process's: otherwise ``Refused``."""
        try:
            self.settings()  # read again if it changed (and the warm mypy dropped)
        except ConfigError as exc:
            raise Refused(f"it cannot read the configuration ({exc})") from None
        if request.environment != environment_digest():
            raise Refused(
                "it runs another loomlint, mypy or Python environment "
                "(restart it: loomlint daemon stop; loomlint daemon start)"
            )
        try:
            # As the client read them: presets not configured are the checked files' choice.
            settings = load_settings(
                Path(request.cwd),
                Path(request.config) if request.config is not None else None,
                request.overrides,
                presets_from="run",
            )
        except ConfigError as exc:
            raise Refused(f"it cannot read the configuration ({exc})") from None
        if request.presets is not None:
            settings = with_presets_chosen(settings, request.presets)
        if settings.settings_fingerprint() != request.settings:
            raise Refused("it reads the configuration otherwise (changed meanwhile?)")
        if settings.project_root != self.root:
            raise Refused(f"the configuration's project is {settings.project_root}, not its own")
        if settings.types == "none":
            raise Refused("a check without types has no warm types to use")
        if self._overrides.no_project_plugins and settings.project_mypy_plugins:
            raise Refused(
                "it runs without the project's mypy plugins (--no-project-plugins); "
                "give the check --no-project-plugins too"
            )
        root = os.path.realpath(self.root)
        for path in request.files:
            if not os.path.isabs(path) or not _within(os.path.realpath(path), root):
                raise Refused(f"'{path}' is outside its project {root}")
        # The presets are chosen before the run, as `run_check` would choose them: the warm
        # mypy and the results kept are those of the chosen ones.
        files = list(request.files)
        sources, _ = read_sources(files, {})
        settings, note = chosen_presets(settings, sources.values())
        fingerprint = settings.settings_fingerprint()
        store = self._stores.pop(fingerprint, None) or MemoryResultCache()
        self._stores[fingerprint] = store  # the most recently used last
        while len(self._stores) > _KEPT_STORES:
            del self._stores[next(iter(self._stores))]
        # One warm build serves every choice of presets: only the facts read differ.
        warm = self._warm_mypy(settings)
        cold_builds = warm.cold_builds
        run = run_check(
            files, settings, oracle=warm.on_disk(settings.spi), result_cache=store, sources=sources
        )
        self.last_check_cold = warm.cold_builds != cold_builds
        if note is not None:
            run.notes.insert(0, note)
        return run

    def forget_buffer(self, path: str) -> None:
        """The editor closed ``path``: the file on disk stands again (call from the typed
        check's thread)."""
        if self._warm is not None:
            self._warm.forget_buffer(path)

    @property
    def last_update(self) -> UpdateStats | None:
        return self._warm.last if self._warm is not None else None

    def _warm_mypy(self, settings: Settings) -> WarmMypy:
        key = (settings.mypy_config_file, settings.project_mypy_plugins)
        if self._warm is not None and key != self._warm_key:
            self._warm = None
            self._stores.clear()
        self._warm_key = key
        if self._warm is None:
            try:
                # Absolute: discovery names files relative to the settings' folder, and the
                # process may work in another (an editor's, a daemon's starting folder).
                files = [
                    os.path.join(settings.cwd, path)
                    for path in discover_files([settings.project_root], settings).files
                ]
            except DiscoveryError:
                files = []
            self._warm = WarmMypy(
                self.settings().spi,  # the editor's: a check on disk names its own
                config_file=settings.mypy_config_file,
                project_plugins=settings.project_mypy_plugins,
                project_root=settings.project_root,
                project_files=files,
            )
        return self._warm

    def _config_stamp(self) -> _Stamp:
        candidates = [d / name for d in (self.root, *self.root.parents) for name in CONFIG_NAMES]
        if self._settings is not None:
            # Wherever they are: a base that ``extend`` names outside the project too.
            candidates.extend(self._settings.config_bases)
            if self._settings.mypy_config_file is not None:
                candidates.append(self._settings.mypy_config_file)
        stamp: list[tuple[str, int, int]] = []
        for candidate in candidates:
            try:
                stat = candidate.stat()
            except OSError:
                continue
            stamp.append((str(candidate), stat.st_mtime_ns, stat.st_size))
        return tuple(stamp)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
