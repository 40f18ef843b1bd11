"""Suppression comments in the plugin: the same comments ``loomlint check`` honours.

- ``# loomlint: ignore[...]`` and ``# noqa: LML...`` silence the plugin's findings exactly as
  they silence the CLI's: parsed and applied by ``loomlint.suppress``, the one parser both
  front ends call. A finding of ``loom-content-use`` is silenced by LML001 or LML002 (the CLI
  reports a use whose origin is a destructuring as LML002; the plugin sees no origins).
- ``# type: ignore[loom-content-...]`` is mypy's own, and silences the plugin's finding as any
  mypy error. mypy's ``warn_unused_ignores`` would call it unused on a line where the plugin
  has no finding but ``loomlint check`` has (``loomlint check`` sees more: a literal ``%``
  format, a match capture); removing it would then bring the CLI's finding back. So the
  plugin marks the ``loom-*`` codes of every such comment used, and leaves reporting the
  unused ones to ``loomlint check --report-unused-suppressions`` (LML100), which honours the
  same comment and sees a superset of the plugin's findings.

A file's comments are read from disk once per version of the file (its size and mtime).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from mypy.errors import Errors

from loomlint.suppress import (
    Suppressions,
    may_hold_suppression,
    parse_suppressions,
    statement_ranges,
)

_NONE = Suppressions((), lambda line: None)


class FileSuppressions:
    """The suppressions of each checked file, by path."""

    def __init__(self) -> None:
        self._by_path: dict[str, tuple[tuple[int, int], Suppressions]] = {}

    def covers(self, path: str, line: int, rules: Iterable[str]) -> bool:
        """Whether a comment in ``path`` silences any of ``rules`` on ``line``."""
        return self._of(path).covers(line, rules)

    def _of(self, path: str) -> Suppressions:
        try:
            stat = os.stat(path)
        except OSError:
            return _NONE
        version = (stat.st_size, stat.st_mtime_ns)
        known = self._by_path.get(path)
        if known is not None and known[0] == version:
            return known[1]
        suppressions = _read(Path(path))
        self._by_path[path] = (version, suppressions)
        return suppressions


def _read(path: Path) -> Suppressions:
    try:
        source = path.read_bytes()
    except OSError:
        return _NONE
    if not may_hold_suppression(source):
        return _NONE
    text = source.decode("utf-8", errors="replace")
    parsed = [s for s in parse_suppressions(text) if s.kind != "type-ignore"]
    if not parsed:
        return _NONE
    return Suppressions(parsed, statement_ranges(text))


def mark_type_ignores_used(errors: Errors, path: str, codes: frozenset[str]) -> None:
    """Mark ``codes`` used in every ``# type: ignore[...]`` of ``path`` that names them, so
    mypy's ``warn_unused_ignores`` leaves them to ``loomlint check`` (see the module doc)."""
    ignored = errors.ignored_lines.get(path)
    if not ignored:
        return
    used = errors.used_ignored_lines[path]
    for line, named in ignored.items():
        for code in named:
            if code in codes and code not in used[line]:
                used[line].append(code)
