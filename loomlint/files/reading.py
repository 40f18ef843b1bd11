"""Reading a file to check: regular files only, and nothing that can block.

A named FIFO blocks whoever opens it until a writer comes, and reading a device can block
forever or never end; neither holds Python source. Such a path is refused from its ``stat``,
before it is opened. The file is then opened without blocking and checked again on the open
descriptor, so a file swapped for a FIFO in between is refused too.
"""

from __future__ import annotations

import os
import stat


class Unreadable(Exception):
    """The path cannot be read as a source file; the message says why, for LML902."""


_KINDS = {
    stat.S_IFIFO: "a named pipe (FIFO)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}


# Not blocking on a FIFO swapped in after the stat; no controlling terminal from a tty.
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def read_source(path: str) -> bytes:
    """The bytes of the regular file at ``path``; ``Unreadable`` for anything else."""
    try:
        _refuse_irregular(path, os.stat(path).st_mode)
        descriptor = os.open(path, _FLAGS)
    except OSError as exc:
        raise Unreadable(
            f"the file cannot be read ({exc.strerror or exc}); it was not checked"
        ) from None
    try:
        _refuse_irregular(path, os.fstat(descriptor).st_mode)
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            return stream.read()
    except OSError as exc:
        raise Unreadable(
            f"the file cannot be read ({exc.strerror or exc}); it was not checked"
        ) from None
    finally:
        os.close(descriptor)


def _refuse_irregular(path: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        try:
            with os.scandir(path):
                pass
        except OSError as exc:
            raise Unreadable(
                f"the folder cannot be read ({exc.strerror or exc}); the files in it were "
                "not checked"
            ) from None
        raise Unreadable("this is a folder, not a file; it was not checked")
    kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
    raise Unreadable(f"this is {kind}, not a regular file; it was not read")
