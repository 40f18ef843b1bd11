"""A file's stamp: what the caches (loomlint's result cache, the daemon's warm build, the
evidence read from imported modules) take a file to be unchanged by, without reading it."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable

# What a file is taken to be unchanged by: (mtime_ns, ctime_ns, size). The status-change
# time is the kernel's: an edit that keeps the size and sets the modification time back
# (``touch -d``, a restore) still moves it. See docs/performance.md, "What a cached result is
# keyed on".
FileStamp = tuple[int, int, int]
_MISSING: FileStamp = (-1, -1, -1)
# The first field of a folder's stamp, which no file's modification time is.
_FOLDER = -2


def stat_files(paths: Iterable[str]) -> dict[str, FileStamp]:
    """The stamp of each path; a missing file is recorded as (-1, -1, -1).

    A folder (one where mypy looks for packages, which the build records read) is stamped by
    the names in it an import could find: an entry made or removed there may be a package
    installed or removed, but a name that begins with a dot can never be imported, so a
    tool's cache or a virtualenv made in an editable install's root (``.ruff_cache``,
    ``.venv``) leaves the stamp as it was, where the folder's modification time moves."""
    stats: dict[str, FileStamp] = {}
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            stats[path] = _MISSING
        else:
            if stat.S_ISDIR(status.st_mode):
                stats[path] = _folder_stamp(path)
            else:
                stats[path] = (status.st_mtime_ns, status.st_ctime_ns, status.st_size)
    return stats


def _folder_stamp(path: str) -> FileStamp:
    try:
        names = sorted(name for name in os.listdir(path) if not name.startswith("."))
    except OSError:
        return _MISSING
    digest = hashlib.blake2b(
        "\0".join(names).encode("utf-8", "surrogateescape"), digest_size=7
    ).digest()
    return (_FOLDER, int.from_bytes(digest, "big"), len(names))
