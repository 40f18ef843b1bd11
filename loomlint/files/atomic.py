"""Replace a file in one rename: a reader (or a run stopped midway) never sees half of it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from loomlint.files.safe import open_folder, replace_file


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``
    (``safefiles.replace_file``).

    Raises ``OSError``; the temporary file is removed on any failure. An existing file keeps
    its permission bits; a new one is private to its owner (0600).
    """
    folder = open_folder(path.parent if str(path.parent) else ".")
    try:
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = 0o600
        replace_file(folder, path.name, data, mode=mode)
    finally:
        os.close(folder)
