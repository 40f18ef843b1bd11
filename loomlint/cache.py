"""The result cache: a file's findings, kept while nothing they depend on changes.

An entry is valid for exactly: the file's bytes, the settings fingerprint, loomlint's version,
the mode (types or not) and, with types, the oracle's dependency key (the interfaces of the
modules the file's types come from, mypy's options for it, mypy's version). It lives in
``.loomlint_cache/`` under the project root, one small JSON file per source file, written
atomically; a corrupt or foreign entry is a miss, never an error.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from loomlint import __version__
from loomlint.catalog import rules_dir
from loomlint.diagnostics import FileResult
from loomlint.output.json import diagnostic_from_json, diagnostic_to_json

_FORMAT = 1
CACHE_DIR_NAME = ".loomlint_cache"
_BUILD_FILE = "build-v1.json"
_COMPILABLE_FILE = "compilable-v1.json"


def source_digest(source: bytes) -> str:
    return hashlib.sha256(source).hexdigest()


@functools.cache
def implementation_fingerprint() -> str:
    """loomlint's version, and the size and mtime of its own code and catalog.

    The version alone would keep serving results across edits of an editable install; a
    changed rule or catalog entry must invalidate every cached finding.
    """
    package = Path(__file__).resolve().parent
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


def stat_files(paths: Iterable[str]) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of each path; a missing file is recorded as (-1, -1)."""
    stats: dict[str, tuple[int, int]] = {}
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            stats[path] = (-1, -1)
        else:
            stats[path] = (status.st_mtime_ns, status.st_size)
    return stats


class ResultCache:
    def __init__(self, directory: Path, settings_fingerprint: str, mode: str) -> None:
        self._directory = directory
        self._entries = directory / f"results-v{_FORMAT}"
        self._settings = settings_fingerprint
        self._mode = mode

    def get(self, path: str, digest: str) -> CachedResult | None:
        """The entry for this path if it was made from these bytes under these settings."""
        try:
            data = json.loads(self._entry_path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict):
            return None
        entry = cast("dict[str, Any]", data)
        if any(entry.get(key) != value for key, value in self._identity(path, digest).items()):
            return None
        try:
            diagnostics = [diagnostic_from_json(item) for item in entry["diagnostics"]]
            key = entry.get("dependency_key")
            return CachedResult(
                FileResult(path=path, diagnostics=diagnostics),
                key if isinstance(key, str) else None,
            )
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, path: str, digest: str, result: FileResult, dependency_key: str | None) -> None:
        entry = {
            **self._identity(path, digest),
            "dependency_key": dependency_key,
            "diagnostics": [diagnostic_to_json(d) for d in result.diagnostics],
        }
        self._write(self._entry_path(path), entry)

    def _identity(self, path: str, digest: str) -> dict[str, Any]:
        """What an entry must match to stand: written by ``put``, compared by ``get``."""
        return {
            "format": _FORMAT,
            "version": implementation_fingerprint(),
            "settings": self._settings,
            "mode": self._mode,
            "path": path,
            "source": digest,
        }

    def compilable(self) -> set[str]:
        """Digests of files known to compile (the files with nothing to analyse)."""
        try:
            data = json.loads((self._directory / _COMPILABLE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return set()
        if not isinstance(data, dict):
            return set()
        record = cast("dict[str, Any]", data)
        digests = record.get("digests")
        if record.get("format") != _FORMAT or not isinstance(digests, list):
            return set()
        return {str(d) for d in cast("list[object]", digests)}

    def record_compilable(self, digests: set[str]) -> None:
        self._write(
            self._directory / _COMPILABLE_FILE, {"format": _FORMAT, "digests": sorted(digests)}
        )

    def build_unchanged(self, targets: Iterable[str]) -> bool:
        """Whether the last type-aware build over exactly these files read files that are all
        still as they were: then no type can have changed, and mypy need not run at all."""
        try:
            data = json.loads((self._directory / _BUILD_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        if not isinstance(data, dict):
            return False
        record = cast("dict[str, Any]", data)
        if (
            record.get("format") != _FORMAT
            or record.get("version") != implementation_fingerprint()
            or record.get("settings") != self._settings
            or record.get("targets") != sorted(os.path.abspath(t) for t in targets)
        ):
            return False
        inputs = record.get("inputs")
        if not isinstance(inputs, dict) or not inputs:
            return False
        try:
            recorded = {
                str(path): (int(stat[0]), int(stat[1]))
                for path, stat in cast("dict[str, list[int]]", inputs).items()
            }
        except (TypeError, ValueError, IndexError):
            return False
        return stat_files(recorded) == recorded

    def record_build(self, targets: Iterable[str], inputs: dict[str, tuple[int, int]]) -> None:
        record = {
            "format": _FORMAT,
            "version": implementation_fingerprint(),
            "settings": self._settings,
            "targets": sorted(os.path.abspath(t) for t in targets),
            "inputs": {path: list(stat) for path, stat in inputs.items()},
        }
        self._write(self._directory / _BUILD_FILE, record)

    def _write(self, target: Path, data: Mapping[str, object]) -> None:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            ignore = self._directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by loomlint.\n*\n", encoding="utf-8")
            handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(data, stream)
            os.replace(temporary, target)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def _entry_path(self, path: str) -> Path:
        # fsencode: a file name need not be valid UTF-8 (it arrives with surrogate escapes).
        name = hashlib.sha256(os.fsencode(os.path.abspath(path))).hexdigest()[:40]
        return self._entries / f"{name}.json"
