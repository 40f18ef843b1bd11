"""Reading and writing files in a tree loomlint does not trust (a pull request's).

Such a tree can hold symbolic links and other special files. So folders are opened one name
at a time without following links (``O_NOFOLLOW``), and files are read and written relative to
a folder descriptor: a folder swapped for a link after it was checked makes the operation fail
instead of redirecting it. A file is never written in place: the new bytes go to a temporary
file in the same folder, which is synced and then renamed over the old name, so a reader, a
kill or a full disk sees the old bytes or the new ones, never a part.

POSIX only (``dir_fd``, ``O_NOFOLLOW``, ``flock``).
"""

from __future__ import annotations

import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Generator, Sequence
from contextlib import contextmanager, suppress

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_NO_LINK = os.O_NOFOLLOW


def open_folder(path: str | os.PathLike[str]) -> int:
    """A descriptor of a folder the user named (links in its path are followed)."""
    return os.open(path, _FOLDER)


def open_beneath(folder: int, names: Sequence[str], *, create: bool = False) -> int:
    """A descriptor of the folder reached from ``folder`` through ``names``, none a link.

    With ``create``, missing folders are made (mode 0777 less the umask). The caller closes it.
    """
    current = os.dup(folder)
    try:
        for name in names:
            if create:
                with suppress(FileExistsError):
                    os.mkdir(name, dir_fd=current)
            following = os.open(name, _FOLDER | _NO_LINK, dir_fd=current)
            os.close(current)
            current = following
    except BaseException:
        os.close(current)
        raise
    return current


def open_real_folder(real: str) -> int:
    """A descriptor of the folder at ``real``, an absolute path already resolved: every part
    is opened without following links, so it is the folder that was checked, or an error."""
    root = os.open(os.sep, _FOLDER)
    try:
        return open_beneath(root, [part for part in real.split(os.sep) if part])
    finally:
        os.close(root)


def read_regular(
    folder: int, name: str, *, limit: int | None = None
) -> tuple[bytes, os.stat_result]:
    """The bytes and status of a regular file; a link, FIFO or device is refused unopened
    (``O_NONBLOCK`` keeps a FIFO from blocking the open), as is a file over ``limit`` bytes."""
    descriptor = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | _NO_LINK, dir_fd=folder)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if limit is not None and status.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit} bytes")
        chunks: list[bytes] = []
        while chunk := os.read(descriptor, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks), status
    finally:
        os.close(descriptor)


def replace_file(
    folder: int,
    name: str,
    data: bytes,
    *,
    mode: int,
    owner: tuple[int, int] | None = None,
    durable: bool = True,
) -> None:
    """Atomically give ``name`` in ``folder`` the bytes ``data`` and permission bits ``mode``
    (and ``owner``, uid and gid, where allowed). A link at ``name`` is replaced, not followed.
    ``durable`` syncs the data and the rename to disk before returning.

    On any failure the old file is untouched and the temporary file is removed.
    """
    temporary = _write_aside(folder, name, data, mode=mode, owner=owner, durable=durable)
    try:
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise
    if durable:
        with suppress(OSError):
            os.fsync(folder)  # makes the rename itself survive a power cut


def create_file(folder: int, name: str, data: bytes, *, mode: int) -> bool:
    """Create ``name`` with ``data`` unless something (even a link) already has that name.

    The file appears whole or not at all (written aside, then hard-linked into place); True
    when this call created it.
    """
    temporary = _write_aside(folder, name, data, mode=mode, owner=None, durable=True)
    try:
        os.link(temporary, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        return False
    finally:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
    return True


def _write_aside(
    folder: int,
    name: str,
    data: bytes,
    *,
    mode: int,
    owner: tuple[int, int] | None,
    durable: bool,
) -> str:
    """A new, synced file in ``folder`` holding ``data``: its name, hidden and unique."""
    temporary = f".{name}.{secrets.token_hex(6)}.loomlint-tmp"
    descriptor = os.open(
        temporary,
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | _NO_LINK,
        0o600,
        dir_fd=folder,
    )
    try:
        try:
            if owner is not None:
                with suppress(OSError):  # only root may give a file away
                    os.fchown(descriptor, *owner)
            os.fchmod(descriptor, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
            if durable:
                os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise
    return temporary


@contextmanager
def locked(folder: int) -> Generator[None]:
    """Hold an exclusive advisory lock on a folder: two loomlint processes that lock the same
    folder take turns (other programs do not take it)."""
    fcntl.flock(folder, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(folder, fcntl.LOCK_UN)


def is_within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies under it (both absolute and resolved)."""
    return os.path.commonpath([path, folder]) == folder
