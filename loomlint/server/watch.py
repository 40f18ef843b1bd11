"""Which files changed on disk since a warm build read them, trusting no timestamp alone.

mypy's own ``FileSystemWatcher`` (dmypy's) takes a file whose size and modification time,
to the second, are as they were for unchanged. An edit that keeps the size within the same
second, or whose modification time is set back (``touch -d``, a restore from a backup, some
synchronisation tools), then goes unseen, and a daemon keeps answering from the old text.

Here a file counts as unchanged while its size, inode, modification time and status-change
time (``st_ctime``, which no user can set back), to the nanosecond, are as recorded; when any
differs, its bytes are hashed, and it changed if they did. As in git's "racy clean" rule, a
file whose timestamps fall within ``_RACY_NS`` of the moment they were recorded is hashed
again at every look until it is older: a second write in the same clock tick of the file
system's coarse clock would give the same timestamps.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass

# Timestamps this close to when they were read may yet be shared by a later write.
_RACY_NS = 2_000_000_000

_Stat = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class _Seen:
    stat: _Stat  # (size, inode, mtime_ns, ctime_ns)
    digest: str
    racy: bool


class ContentWatcher:
    """The files of a build, by content (``find_changed``)."""

    def __init__(self) -> None:
        # None: watched, but not seen yet (reported as changed at the next look if it exists).
        self._seen: dict[str, _Seen | None] = {}

    def add_watched_paths(self, paths: Iterable[str]) -> None:
        for path in paths:
            self._seen.setdefault(path, None)

    def find_changed(self) -> set[str]:
        """The watched paths whose bytes changed (or that appeared or went) since the last
        look."""
        changed: set[str] = set()
        for path, seen in self._seen.items():
            now = _look(path, seen)
            if now is seen:
                continue
            if seen is None or now is None or now.digest != seen.digest:
                changed.add(path)
            self._seen[path] = now
        return changed


def _look(path: str, seen: _Seen | None) -> _Seen | None:
    """The file as it is now (``seen`` itself when nothing can have changed)."""
    taken = time.time_ns()
    try:
        status = os.stat(path)
    except OSError:
        return None
    stat = (status.st_size, status.st_ino, status.st_mtime_ns, status.st_ctime_ns)
    if seen is not None and not seen.racy and stat == seen.stat:
        return seen
    try:
        with open(path, "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()
    except OSError:
        return None
    racy = max(status.st_mtime_ns, status.st_ctime_ns) >= taken - _RACY_NS
    if seen is not None and (stat, digest, racy) == (seen.stat, seen.digest, seen.racy):
        return seen
    return _Seen(stat, digest, racy)
