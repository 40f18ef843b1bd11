"""A file's stamp: what the caches (loomlint's result cache, the daemon's warm build, the
evidence read from imported modules) take a file to be unchanged by, without reading it."""

from __future__ import annotations

import os
from collections.abc import Iterable

# What a file is taken to be unchanged by: (mtime_ns, ctime_ns, size). The status-change
# time is the kernel's: an edit that keeps the size and sets the modification time back
# (``touch -d``, a restore) still moves it. See docs/performance.md, "What a cached result is
# keyed on".
FileStamp = tuple[int, int, int]
_MISSING: FileStamp = (-1, -1, -1)


def stat_files(paths: Iterable[str]) -> dict[str, FileStamp]:
    """The stamp of each path; a missing file is recorded as (-1, -1, -1)."""
    stats: dict[str, FileStamp] = {}
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            stats[path] = _MISSING
        else:
            stats[path] = (status.st_mtime_ns, status.st_ctime_ns, status.st_size)
    return stats
