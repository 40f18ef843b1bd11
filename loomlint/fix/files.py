"""Rewrite one file on disk, or say why not: the step between a writer (``apply_fixes`` for
``fix``, ``add_noqa`` for ``--add-noqa``) and the user's tree.

A file is rewritten only when
- its real location is inside the project, or no link was followed to reach it: a link in the
  tree that leads out of the project is never written through;
- its bytes are still the bytes that were analysed (their digest), both before the new text
  is computed and again just before it is written (computing it can take seconds, while an
  editor saves): a file changed since is handed back, never patched at positions found in
  other text;
- the new text keeps what the code means (``loomlint.fix.meaning``): otherwise it is a bug of
  loomlint's, reported as such, and the file is left as it was;
- it is a regular file that can be read and written.
The checks and the write happen under a lock on the file's folder, so concurrent runs take
turns, and the new text replaces the old atomically (``loomlint.files.safe``).
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

from loomlint.engine.diagnostics import FileResult
from loomlint.files.safe import is_within, locked, open_real_folder, read_regular, replace_file
from loomlint.fix.edits import FixOutcome, apply_fixes
from loomlint.fix.meaning import literals_kept
from loomlint.run.cache import source_digest


@dataclass(frozen=True, slots=True)
class Task:
    """What a rewrite is for, as its messages say it."""

    verb: str  # "cannot read 'x' to {verb} it", "cannot {verb} 'x'"
    left_alone: str  # "'x' is read-only; {left_alone}"


FIXING = Task("fix", "it was not fixed")

# A writer: the new text of a file and the findings it resolves, from the file's text.
Rewrite = Callable[[str], FixOutcome]
# Whether a rewrite kept the code's meaning: (old text, new text) -> bool.
MeaningCheck = Callable[[str, str], bool]

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

    def fixes(text: str) -> FixOutcome:
        return apply_fixes(
            text,
            result.diagnostics,
            is_first_party=lambda top: _is_project_package(project_root, top),
        )

    return rewrite_file(
        result.path,
        analysed_digest,
        project_root,
        fixes,
        task=FIXING,
        keeps_meaning=literals_kept,
        write=write,
    )


def rewrite_file(
    path: str,
    analysed_digest: str | None,
    project_root: Path,
    rewrite: Rewrite,
    *,
    task: Task,
    keeps_meaning: MeaningCheck,
    write: bool,
) -> FileFix:
    """Rewrite the file at ``path`` (as reported) with ``rewrite``, if its bytes are those
    analysed; with ``write`` False, only compute the text."""
    real = os.path.realpath(path)
    if real != os.path.abspath(path) and not is_within(real, os.path.realpath(project_root)):
        return FileFix(
            problem=f"'{path}' is a link to '{real}', outside the project; {task.left_alone}"
        )
    try:
        folder = open_real_folder(os.path.dirname(real))
    except OSError as exc:
        return FileFix(problem=f"cannot read '{path}' to {task.verb} it: {exc.strerror or exc}")
    turn: AbstractContextManager[None] = locked(folder) if write else nullcontext()
    try:
        with turn:
            return _rewrite_in(
                folder,
                os.path.basename(real),
                path,
                analysed_digest,
                rewrite,
                task=task,
                keeps_meaning=keeps_meaning,
                write=write,
            )
    finally:
        os.close(folder)


def _rewrite_in(
    folder: int,
    name: str,
    path: str,
    analysed_digest: str | None,
    rewrite: Rewrite,
    *,
    task: Task,
    keeps_meaning: MeaningCheck,
    write: bool,
) -> FileFix:
    try:
        raw, status = read_regular(folder, name)
    except OSError as exc:
        return FileFix(problem=f"cannot read '{path}' to {task.verb} it: {exc.strerror or exc}")
    if source_digest(raw) != analysed_digest:
        return FileFix(changed=True)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        text = raw.decode(encoding)
        outcome = rewrite(text)
        fixed = outcome.text.encode(encoding)
    except (SyntaxError, UnicodeError, ValueError) as exc:
        return FileFix(problem=f"cannot {task.verb} '{path}': {exc}")
    if not outcome.fixed:
        return FileFix(outcome, text)
    if not keeps_meaning(text, outcome.text):
        return FileFix(
            problem=f"loomlint's rewrite of '{path}' would change what its code means; "
            f"{task.left_alone} (a bug of loomlint's: please report it with the file)"
        )
    if not write:
        return FileFix(outcome, text)
    if not os.access(name, os.W_OK, dir_fd=folder):
        return FileFix(problem=f"'{path}' is read-only; {task.left_alone}")
    try:
        # Computing the new text can take seconds, and an editor does not take our lock.
        if source_digest(read_regular(folder, name)[0]) != analysed_digest:
            return FileFix(changed=True)
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
