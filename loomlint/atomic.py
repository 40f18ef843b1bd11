"""Replace a file in one rename: a reader (or a run stopped midway) never sees half of it."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``.

    Raises ``OSError``; the temporary file is removed on any failure. An existing file keeps
    its permission bits.
    """
    folder = path.parent
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{path.name}.", suffix=".tmp", dir=folder if str(folder) else "."
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        with contextlib.suppress(OSError):
            os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
