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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from loomlint import __version__
from loomlint.catalog import rules_dir
from loomlint.diagnostics import FileResult
from loomlint.output.json import diagnostic_from_json, diagnostic_to_json

_FORMAT = 1
CACHE_DIR_NAME = ".loomlint_cache"


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
        expected = {
            "format": _FORMAT,
            "version": implementation_fingerprint(),
            "settings": self._settings,
            "mode": self._mode,
            "path": path,
            "source": digest,
        }
        if any(entry.get(key) != value for key, value in expected.items()):
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
            "format": _FORMAT,
            "version": implementation_fingerprint(),
            "settings": self._settings,
            "mode": self._mode,
            "path": path,
            "source": digest,
            "dependency_key": dependency_key,
            "diagnostics": [diagnostic_to_json(d) for d in result.diagnostics],
        }
        try:
            self._entries.mkdir(parents=True, exist_ok=True)
            ignore = self._directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Created by loomlint.\n*\n", encoding="utf-8")
            target = self._entry_path(path)
            handle, temporary = tempfile.mkstemp(dir=self._entries, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entry, stream)
            os.replace(temporary, target)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def _entry_path(self, path: str) -> Path:
        name = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:40]
        return self._entries / f"{name}.json"
