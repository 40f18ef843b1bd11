"""Replace a file in one rename: a reader (or a run stopped midway) never sees half of it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from loomlint.files.safe import open_folder, replace_file


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``
    (``safefiles.replace_file``).

    Only a regular file is replaced so. A link to one is followed: the file it names is
    replaced and the link stays. Anything else that exists at ``path`` (a device such as
    ``/dev/null`` or ``/dev/stdout``, a FIFO) is written in place: a rename would put a
    regular file where the device was, for every program after this one.

    Raises ``OSError``; the temporary file is removed on any failure. An existing file keeps
    its permission bits; a new one is private to its owner (0600).
    """
    try:
        found = os.stat(path)
    except FileNotFoundError:
        found = None
    if found is not None and not stat.S_ISREG(found.st_mode):
        _write_in_place(path, data)
        return
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    folder = open_folder(path.parent if str(path.parent) else ".")
    try:
        mode = stat.S_IMODE(found.st_mode) if found is not None else 0o600
        replace_file(folder, path.name, data, mode=mode)
    finally:
        os.close(folder)


def _write_in_place(path: Path, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
    finally:
        os.close(descriptor)
