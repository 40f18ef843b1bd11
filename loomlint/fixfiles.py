"""Fix one file on disk, or say why not: the step between ``apply_fixes`` and the user's tree.

A file is rewritten only when
- its real location is inside the project, or no link was followed to reach it: a link in the
  tree that leads out of the project is never written through;
- its bytes are still the bytes that were analysed (their digest): a file changed since is
  handed back to be analysed again, never patched at positions found in other text;
- it is a regular file that can be read and written.
The check and the write happen under a lock on the file's folder, so concurrent ``fix`` runs
take turns, and the new text replaces the old atomically (``loomlint.safefiles``).
"""

from __future__ import annotations

import io
import os
import stat
import tokenize
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from loomlint.cache import source_digest
from loomlint.diagnostics import FileResult
from loomlint.fix import FixOutcome, apply_fixes
from loomlint.safefiles import is_within, locked, open_real_folder, read_regular, replace_file

_NOTHING = FixOutcome("", (), ())


@dataclass(frozen=True, slots=True)
class FileFix:
    outcome: FixOutcome = _NOTHING
    # The text the fixes were applied to (what --diff compares against).
    original: str = ""
    # The file's bytes differ from the ones analysed: analyse it again before fixing it.
    changed: bool = False
    # Why the file could not be fixed; its findings remain.
    problem: str | None = None


def fix_file(
    result: FileResult, analysed_digest: str | None, project_root: Path, *, write: bool
) -> FileFix:
    """Fix ``result``'s file from its findings; with ``write`` False, only compute the text."""
    if not any(d.fix is not None for d in result.diagnostics):
        return FileFix()
    path = result.path
    real = os.path.realpath(path)
    if real != os.path.abspath(path) and not is_within(real, os.path.realpath(project_root)):
        return FileFix(
            problem=f"'{path}' is a link to '{real}', outside the project; it was not fixed"
        )
    try:
        folder = open_real_folder(os.path.dirname(real))
    except OSError as exc:
        return FileFix(problem=f"cannot read '{path}' to fix it: {exc.strerror or exc}")
    turn: AbstractContextManager[None] = locked(folder) if write else nullcontext()
    try:
        with turn:
            return _fix_in(
                folder,
                os.path.basename(real),
                result,
                analysed_digest,
                write=write,
                is_first_party=lambda top: _is_project_package(project_root, top),
            )
    finally:
        os.close(folder)


def _fix_in(
    folder: int,
    name: str,
    result: FileResult,
    analysed_digest: str | None,
    *,
    write: bool,
    is_first_party: Callable[[str], bool],
) -> FileFix:
    path = result.path
    try:
        raw, status = read_regular(folder, name)
    except OSError as exc:
        return FileFix(problem=f"cannot read '{path}' to fix it: {exc.strerror or exc}")
    if source_digest(raw) != analysed_digest:
        return FileFix(changed=True)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        text = raw.decode(encoding)
        outcome = apply_fixes(text, result.diagnostics, is_first_party=is_first_party)
        fixed = outcome.text.encode(encoding)
    except (SyntaxError, UnicodeError, ValueError) as exc:
        return FileFix(problem=f"cannot fix '{path}': {exc}")
    if not write or not outcome.fixed:
        return FileFix(outcome, text)
    if not os.access(name, os.W_OK, dir_fd=folder):
        return FileFix(problem=f"'{path}' is read-only; it was not fixed")
    try:
        replace_file(
            folder,
            name,
            fixed,
            mode=stat.S_IMODE(status.st_mode),
            owner=(status.st_uid, status.st_gid),
        )
    except OSError as exc:
        return FileFix(problem=f"cannot write '{path}': {exc.strerror or exc}; it is unchanged")
    return FileFix(outcome, text)


def _is_project_package(project_root: Path, top: str) -> bool:
    """A package of the project itself (Ruff's default ``src = [".", "src"]``): an accessor
    imported from it goes among the first-party imports."""
    return any(
        (base / top).is_dir() or (base / f"{top}.py").is_file()
        for base in (project_root, project_root / "src")
    )
