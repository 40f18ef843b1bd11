"""The result cache: a file's findings, kept while nothing they depend on changes.

An entry is valid for exactly: the file's bytes, the settings fingerprint, loomlint's version,
the mode (types or not) and, with types, the oracle's dependency key (the interfaces of the
modules the file's types come from, mypy's options for it, mypy's version). It lives in
``.loomlint_cache/`` under the project root, one small JSON file per source file, written
atomically; a corrupt or foreign entry is a miss, never an error.

The folder is part of the tree being analysed, so a pull request can fill it. Every file in it
is sealed with an HMAC keyed by a secret kept outside the tree (``cache_key``): a file whose
seal does not match, forged, truncated or nested to exhaust the parser, is a miss and is never
parsed. The cache never follows a link, reading or writing (``loomlint.files.safe``).
"""

from __future__ import annotations

import dataclasses
import fcntl
import functools
import hashlib
import hmac
import json
import os
import secrets
import stat
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

import platformdirs

import loomlint
from loomlint import __version__
from loomlint.catalog.rules import rules_dir
from loomlint.engine.diagnostics import (
    FileResult,
    diagnostic_from_json,
    diagnostic_to_json,
    guesses_from_json,
    guesses_to_json,
)
from loomlint.files.safe import (
    create_file,
    is_within,
    open_beneath,
    open_folder,
    read_regular,
    replace_file,
)
from loomlint.files.stamps import FileStamp, stat_files

_FORMAT = 4
CACHE_DIR_NAME = ".loomlint_cache"
_BUILD_FILE = f"build-v{_FORMAT}.json"
_COMPILABLE_FILE = f"compilable-v{_FORMAT}.json"
_GITIGNORE = b"# Created by loomlint.\n*\n"
# No cache file is near this size; a bigger one is a miss, unread.
_MAX_FILE_BYTES = 64 << 20
_KEY_FILE = "cache-key"
# How long a run waits for a process still writing the cache (the mypy plugin's, just after
# mypy): past it, it goes on without what that process writes.
_WRITERS_SECONDS = 10.0
_KEY_BYTES = 32


def source_digest(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()


@functools.cache
def implementation_fingerprint() -> str:
    """loomlint's version, and the size and mtime of its own code and catalog.

    The version alone would keep serving results across edits of an editable install; a
    changed rule or catalog entry must invalidate every cached finding.
    """
    package = Path(loomlint.__file__).resolve().parent
    digest = hashlib.sha256(__version__.encode())
    roots = [package, rules_dir()]
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".toml") and path.is_file():
                status = path.stat()
                digest.update(f"{path.name}:{status.st_size}:{status.st_mtime_ns};".encode())
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class CachedResult:
    result: FileResult
    # With types: the dependency key the result was computed under.
    dependency_key: str | None


def files_key(paths: Iterable[str]) -> str:
    """The dependency key of a result judged with other files read (without types, the
    project modules its imports name): their stamps now."""
    return json.dumps(sorted(stat_files(paths).items()))


def files_unchanged(key: str) -> bool:
    """Whether the files a ``files_key`` recorded are as they were then."""
    try:
        stats = {str(path): _stamp(stat) for path, stat in json.loads(key)}
    except (ValueError, TypeError, IndexError, RecursionError):
        return False
    return stat_files(stats) == stats


def _module_names(recorded: object) -> tuple[str, ...] | None:
    """A recorded list of module names, or None when it is not one."""
    if not isinstance(recorded, list):
        return None
    names = cast("list[object]", recorded)
    if not all(isinstance(name, str) for name in names):
        return None
    return tuple(cast("list[str]", names))


def _stamp(recorded: object) -> FileStamp:
    """A stamp read back from JSON; raises ``ValueError`` or ``TypeError`` for another shape
    (a record of an older loomlint's two numbers, say)."""
    if not isinstance(recorded, list) or len(cast("list[object]", recorded)) != 3:
        raise ValueError("not a file stamp")
    mtime, ctime, size = cast("list[int]", recorded)
    return (int(mtime), int(ctime), int(size))


class ResultStore(Protocol):
    """Where a run keeps results between runs: ``ResultCache`` on disk, or a daemon's
    ``MemoryResultCache``."""

    def get(self, path: str, digest: str) -> CachedResult | None: ...

    def put(
        self, path: str, digest: str, result: FileResult, dependency_key: str | None
    ) -> None: ...

    def compilable(self) -> set[str]: ...

    def record_compilable(self, digests: set[str]) -> None: ...

    def build_unchanged(self, targets: Iterable[str]) -> bool: ...

    def record_build(self, targets: Iterable[str], inputs: dict[str, FileStamp]) -> None: ...


class MemoryResultCache:
    """Results kept in a daemon's memory, for one settings fingerprint and mode.

    Its dependency keys are the warm build's own (``WarmMypy.on_disk``), which no other
    build shares; so the daemon keeps its results here rather than in ``.loomlint_cache``.
    mypy always runs (``build_unchanged`` is never true): the warm build finds the files
    changed on disk itself.
    """

    def __init__(self) -> None:
        self._results: dict[str, tuple[str, CachedResult]] = {}
        self._compilable: set[str] = set()

    def get(self, path: str, digest: str) -> CachedResult | None:
        entry = self._results.get(path)
        return entry[1] if entry is not None and entry[0] == digest else None

    def put(self, path: str, digest: str, result: FileResult, dependency_key: str | None) -> None:
        self._results[path] = (digest, CachedResult(result, dependency_key))

    def compilable(self) -> set[str]:
        return set(self._compilable)

    def record_compilable(self, digests: set[str]) -> None:
        self._compilable = set(digests)

    def build_unchanged(self, targets: Iterable[str]) -> bool:
        del targets
        return False

    def record_build(self, targets: Iterable[str], inputs: dict[str, FileStamp]) -> None:
        del targets, inputs


class ResultCache:
    def __init__(self, directory: Path, settings_fingerprint: str, mode: str) -> None:
        self._project = directory.parent
        self._name = directory.name
        self._results = f"results-v{_FORMAT}"
        self._settings = settings_fingerprint
        self._mode = mode
        # None: no key can be had, so nothing is read from or written to the cache.
        self._key = cache_key(self._project)
        # The cache folder, locked while this process writes (``hold_for_writing``).
        self._writing: int | None = None

    def get(self, path: str, digest: str) -> CachedResult | None:
        """The entry for this path if it was made from these bytes under these settings."""
        data = self._read(self._results, self._entry_name(path))
        if not isinstance(data, dict):
            return None
        entry = cast("dict[str, Any]", data)
        if any(entry.get(key) != value for key, value in self._identity(path, digest).items()):
            return None
        items: object = entry.get("diagnostics")
        if not isinstance(items, list):
            return None
        try:
            guesses = guesses_from_json(entry.get("guesses"))
            # Named as this run names the file (the entry may come from a run that named it
            # otherwise: from another folder, or the mypy plugin's absolute path).
            diagnostics = [
                dataclasses.replace(
                    diagnostic_from_json(cast("Mapping[str, Any]", item)), path=path
                )
                for item in cast("list[object]", items)
            ]
        except (KeyError, TypeError, ValueError, RecursionError):
            return None
        key = entry.get("dependency_key")
        unresolved = _module_names(entry.get("unresolved_imports", []))
        untyped = _module_names(entry.get("unresolved_untyped", []))
        if unresolved is None or untyped is None:
            return None
        return CachedResult(
            FileResult(
                path=path,
                diagnostics=diagnostics,
                unresolved_imports=unresolved,
                unresolved_untyped=untyped,
                guesses=guesses,
            ),
            key if isinstance(key, str) else None,
        )

    def put(self, path: str, digest: str, result: FileResult, dependency_key: str | None) -> None:
        entry = {
            **self._identity(path, digest),
            "dependency_key": dependency_key,
            "diagnostics": [diagnostic_to_json(d) for d in result.diagnostics],
            # Judged without types there: the run's warning names them again.
            "unresolved_imports": list(result.unresolved_imports),
            "unresolved_untyped": list(result.unresolved_untyped),
            # Findings there that were guesses, by why, for the run's warnings.
            "guesses": guesses_to_json(result.guesses),
        }
        self._write(self._results, self._entry_name(path), entry)

    def _identity(self, path: str, digest: str) -> dict[str, Any]:
        """What an entry must match to stand: written by ``put``, compared by ``get``."""
        return {
            "format": _FORMAT,
            "version": implementation_fingerprint(),
            "settings": self._settings,
            "mode": self._mode,
            "path": os.path.abspath(path),
            "source": digest,
        }

    def compilable(self) -> set[str]:
        """Digests of files known to compile (the files with nothing to analyse)."""
        data = self._read(None, _COMPILABLE_FILE)
        if not isinstance(data, dict):
            return set()
        record = cast("dict[str, Any]", data)
        digests = record.get("digests")
        if record.get("format") != _FORMAT or not isinstance(digests, list):
            return set()
        return {d for d in cast("list[object]", digests) if isinstance(d, str)}

    def record_compilable(self, digests: set[str]) -> None:
        self._write(None, _COMPILABLE_FILE, {"format": _FORMAT, "digests": sorted(digests)})

    def build_unchanged(self, targets: Iterable[str]) -> bool:
        """Whether the last type-aware build over these files (and perhaps more: a ``mypy`` run
        with the plugin over the whole project, say) read files that are all still as they
        were: then no type can have changed, and mypy need not run at all. (Every target of
        that build had its result written or confirmed by it, so each of these targets'
        cached results stands.)"""
        data = self._read(None, _BUILD_FILE)
        if not isinstance(data, dict):
            return False
        record = cast("dict[str, Any]", data)
        if (
            record.get("format") != _FORMAT
            or record.get("version") != implementation_fingerprint()
            or record.get("settings") != self._settings
        ):
            return False
        recorded_targets = record.get("targets")
        if not isinstance(recorded_targets, list) or not {
            os.path.abspath(t) for t in targets
        } <= set(cast("list[object]", recorded_targets)):
            return False
        inputs = record.get("inputs")
        if not isinstance(inputs, dict) or not inputs:
            return False
        try:
            recorded = {
                str(path): _stamp(stat) for path, stat in cast("dict[str, object]", inputs).items()
            }
        except (TypeError, ValueError):
            return False
        return stat_files(recorded) == recorded

    def record_build(self, targets: Iterable[str], inputs: dict[str, FileStamp]) -> None:
        record = {
            "format": _FORMAT,
            "version": implementation_fingerprint(),
            "settings": self._settings,
            "targets": sorted(os.path.abspath(t) for t in targets),
            "inputs": {path: list(stat) for path, stat in inputs.items()},
        }
        self._write(None, _BUILD_FILE, record)

    def hold_for_writing(self) -> None:
        """Lock the cache for this process's writes until it ends: a process that writes after
        others have moved on (the mypy plugin's worker, which writes when mypy has exited)
        makes ``wait_for_writers`` wait."""
        if self._key is None or self._writing is not None:
            return
        try:
            project = open_folder(self._project)
            try:
                folder = open_beneath(project, [self._name], create=True)
            finally:
                os.close(project)
        except OSError:
            return
        try:
            fcntl.flock(folder, fcntl.LOCK_EX)
        except OSError:
            os.close(folder)
            return
        self._writing = folder

    def wait_for_writers(self, seconds: float = _WRITERS_SECONDS) -> None:
        """Wait (at most ``seconds``) for a process still writing (``hold_for_writing``)."""
        try:
            project = open_folder(self._project)
            try:
                folder = open_beneath(project, [self._name])
            finally:
                os.close(project)
        except OSError:
            return
        try:
            deadline = time.monotonic() + seconds
            while True:
                try:
                    fcntl.flock(folder, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        return  # only a shortcut is lost: the cache is checked entry by entry
                    time.sleep(0.01)
                    continue
                except OSError:
                    return
                fcntl.flock(folder, fcntl.LOCK_UN)
                return
        finally:
            os.close(folder)

    def _seal(self, key: bytes, name: str, body: bytes) -> bytes:
        """The hex HMAC of a file's body, bound to the file's name (an entry copied to another
        name fails it)."""
        return hmac.new(key, name.encode() + b"\0" + body, hashlib.sha256).hexdigest().encode()

    def _read(self, folder_name: str | None, name: str) -> object:
        """The JSON a sealed cache file holds; None if it is absent, unreadable or not sealed
        with this machine's key."""
        if self._key is None:
            return None
        names = [self._name] if folder_name is None else [self._name, folder_name]
        try:
            project = open_folder(self._project)
            try:
                folder = open_beneath(project, names)
            finally:
                os.close(project)
            try:
                raw, _ = read_regular(folder, name, limit=_MAX_FILE_BYTES)
            finally:
                os.close(folder)
        except OSError:
            return None
        seal, _, body = raw.partition(b"\n")
        if not hmac.compare_digest(seal, self._seal(self._key, f"{folder_name}/{name}", body)):
            return None
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            return None

    def _write(self, folder_name: str | None, name: str, data: Mapping[str, object]) -> None:
        if self._key is None:
            return
        body = json.dumps(data).encode()
        sealed = self._seal(self._key, f"{folder_name}/{name}", body) + b"\n" + body
        try:
            project = open_folder(self._project)
            try:
                cache = open_beneath(project, [self._name], create=True)
            finally:
                os.close(project)
            try:
                if not _exists(cache, ".gitignore"):
                    create_file(cache, ".gitignore", _GITIGNORE, mode=0o644)
                if folder_name is None:
                    replace_file(cache, name, sealed, mode=0o600, durable=False)
                    return
                folder = open_beneath(cache, [folder_name], create=True)
                try:
                    replace_file(folder, name, sealed, mode=0o600, durable=False)
                finally:
                    os.close(folder)
            finally:
                os.close(cache)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def _entry_name(self, path: str) -> str:
        # fsencode: a file name need not be valid UTF-8 (it arrives with surrogate escapes).
        return hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()[:40] + ".json"


def _exists(folder: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def cache_key(project_root: Path) -> bytes | None:
    """The secret that seals cache files: 32 random bytes in the user's cache folder
    (``$XDG_CACHE_HOME/loomlint/cache-key`` on Linux), made on first use, mode 0600.

    None when it cannot be had, or when that folder lies inside the project, where a pull
    request could supply the key along with entries sealed with it.
    """
    folder_path = platformdirs.user_cache_path("loomlint", appauthor=False)
    if is_within(os.path.realpath(folder_path), os.path.realpath(project_root)):
        return None
    try:
        folder_path.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder = open_folder(folder_path)
    except OSError:
        return None
    try:
        key = _read_key(folder)
        if key is None and not _exists(folder, _KEY_FILE):
            create_file(folder, _KEY_FILE, secrets.token_bytes(_KEY_BYTES), mode=0o600)
            key = _read_key(folder)  # this run's, or the one a concurrent run made first
        return key
    except OSError:
        return None
    finally:
        os.close(folder)


def _read_key(folder: int) -> bytes | None:
    """The key, if the file holds one that only its owner, this user, can read."""
    try:
        key, status = read_regular(folder, _KEY_FILE, limit=_KEY_BYTES)
    except OSError:
        return None
    if (
        len(key) != _KEY_BYTES
        or status.st_uid != os.getuid()
        or stat.S_IMODE(status.st_mode) & 0o077
    ):
        return None
    return key
