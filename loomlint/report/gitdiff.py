"""``--diff REV``: which lines of which files changed since a git revision.

The working tree (staged or not) is compared with REV by ``git diff --unified=0``; every line
a hunk adds or changes on the new side is *changed*. A file git does not track (not in the
index) is new, so all of its lines are changed. A tracked file the diff does not mention has no
changed line. Git's own configuration cannot change what is parsed: external diff drivers,
textconv, colour and custom prefixes are switched off on the command line.

Every problem is a `GitDiffError` whose message says what is wrong (no git, not a repository,
an unknown revision, a file outside the repository); the CLI turns it into exit code 2.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from loomlint.engine.diagnostics import Diagnostic

# Analysis codes (LML9xx) describe a whole file (it could not be checked, or was checked
# without types): they are kept for every file that has a changed line, wherever they point.
_FILE_LEVEL_PREFIX = "LML9"

_HUNK = re.compile(rb"^@@ -\d+(?:,(?P<old>\d+))? \+(?P<start>\d+)(?:,(?P<new>\d+))? @@")
_C_ESCAPES = {
    "a": 0x07,
    "b": 0x08,
    "t": 0x09,
    "n": 0x0A,
    "v": 0x0B,
    "f": 0x0C,
    "r": 0x0D,
    '"': 0x22,
    "\\": 0x5C,
}


class GitDiffError(Exception):
    """``--diff`` cannot be honoured. The message is for the user, without a traceback."""


@dataclass(frozen=True, slots=True)
class ChangedLines:
    """The lines changed since ``revision``, per file of the repository at ``root``.

    ``files`` maps a repository-relative posix path to its changed line numbers (1-based), or
    to ``None`` when the whole file is new (untracked). A path that is not a key is unchanged.
    """

    root: Path
    revision: str
    files: Mapping[str, frozenset[int] | None]

    def lines_of(self, relative_path: str) -> frozenset[int] | None:
        """The changed lines of a file; ``None`` means every line."""
        return self.files.get(relative_path, frozenset())

    def keeps(self, diagnostic: Diagnostic, relative_path: str) -> bool:
        lines = self.lines_of(relative_path)
        if lines is None:
            return True
        if diagnostic.code.upper().startswith(_FILE_LEVEL_PREFIX):
            return bool(lines)
        return diagnostic.line in lines


def changed_lines(revision: str, cwd: Path, files: Sequence[str]) -> ChangedLines:
    """What changed since ``revision`` in the git repository that holds ``cwd``.

    ``files`` (relative to ``cwd``, or absolute) are the files that will be checked: each must
    lie in that repository, so the question "what changed in this file" has an answer.
    """
    if not revision.strip() or revision.startswith("-") or "\0" in revision:
        raise GitDiffError(f"--diff: '{revision}' is not a git revision")
    root = Path(_git(cwd, "rev-parse", "--show-toplevel", what="find the git repository").strip())
    commit = _resolve(root, revision)
    wanted = {path: relative_to_repository(root, cwd, path) for path in files}
    outside = sorted(path for path, relative in wanted.items() if relative is None)
    if outside:
        more = f" (and {len(outside) - 1} more)" if len(outside) > 1 else ""
        raise GitDiffError(
            f"--diff: '{outside[0]}'{more} is outside the git repository at {root.as_posix()}"
        )
    tracked = set(_split_z(_git_bytes(root, "ls-files", "-z", "--full-name", what="list files")))
    diff = _git_bytes(
        root,
        "-c",
        "core.quotePath=false",
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--unified=0",
        "--find-renames",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        commit,
        "--",
        what=f"diff against '{revision}'",
    )
    changed: dict[str, frozenset[int] | None] = {
        path: frozenset(lines) for path, lines in parse_unified_diff(diff).items()
    }
    for relative in wanted.values():
        if relative is not None and relative not in tracked:
            changed[relative] = None
    return ChangedLines(root=root, revision=revision, files=changed)


def relative_to_repository(root: Path, cwd: Path, path: str) -> str | None:
    """``path`` relative to the repository ``root`` (posix), or ``None`` outside it.

    The folder is resolved (git reports the real top level), the file name is not: git tracks
    a symlink as itself.
    """
    absolute = os.path.normpath(os.path.join(cwd, path))
    folder, name = os.path.split(absolute)
    real = os.path.join(os.path.realpath(folder), name)
    try:
        relative = Path(real).relative_to(os.path.realpath(root))
    except ValueError:
        return None
    return relative.as_posix() if relative.parts else None


def keep_changed(
    diagnostics: Iterable[Diagnostic], changed: ChangedLines, cwd: Path
) -> list[Diagnostic]:
    """The diagnostics on changed lines (LML9xx: in files with any changed line)."""
    kept: list[Diagnostic] = []
    for diagnostic in diagnostics:
        relative = relative_to_repository(changed.root, cwd, diagnostic.path)
        if relative is not None and changed.keeps(diagnostic, relative):
            kept.append(diagnostic)
    return kept


# --- parsing ---------------------------------------------------------------------------------


def parse_unified_diff(diff: bytes) -> dict[str, set[int]]:
    """Changed lines on the new side of a ``git diff --unified=0`` patch, per new path.

    Hunk bodies are skipped by their line counts, so an added line that reads ``+++ x`` is
    never taken for a file header. Deleted files have no new side and do not appear.
    """
    changed: dict[str, set[int]] = {}
    current: str | None = None
    lines = diff.split(b"\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if line.startswith(b"diff "):
            current = None
        elif line.startswith(b"+++ "):
            current = _new_path(line[4:])
        elif (hunk := _HUNK.match(line)) is not None:
            old = _count(hunk.group("old"))
            new = _count(hunk.group("new"))
            start = int(hunk.group("start"))
            if current is not None and new:
                changed.setdefault(current, set()).update(range(start, start + new))
            index = _skip_hunk_body(lines, index, old + new)
    return changed


def _count(group: bytes | None) -> int:
    return 1 if group is None else int(group)


def _skip_hunk_body(lines: list[bytes], index: int, body_lines: int) -> int:
    while body_lines > 0 and index < len(lines):
        if not lines[index].startswith(b"\\"):  # "\ No newline at end of file" is not counted
            body_lines -= 1
        index += 1
    while index < len(lines) and lines[index].startswith(b"\\"):
        index += 1
    return index


def _new_path(raw: bytes) -> str | None:
    # A quoted name is C-escaped; git ends a plain name that holds a space with a tab.
    name = _unquote(raw) if raw.startswith(b'"') else raw.removesuffix(b"\t")
    if name is None or not name.startswith(b"b/"):
        return None  # /dev/null: the file was deleted
    return os.fsdecode(name[2:])


def _unquote(raw: bytes) -> bytes | None:
    """git's C-style quoted path (``"b/tab\\tx.py"``), or ``None`` when it is malformed."""
    text = raw.decode("utf-8", "surrogateescape")
    if len(text) < 2 or not text.endswith('"'):
        return None
    body = text[1:-1]
    out = bytearray()
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out += char.encode("utf-8", "surrogateescape")
            index += 1
            continue
        escape = body[index + 1 : index + 2]
        if escape in _C_ESCAPES:
            out.append(_C_ESCAPES[escape])
            index += 2
        elif re.fullmatch(r"[0-7]{3}", body[index + 1 : index + 4]):
            out.append(int(body[index + 1 : index + 4], 8) & 0xFF)
            index += 4
        else:
            return None
    return bytes(out)


def _split_z(data: bytes) -> Iterator[str]:
    for item in data.split(b"\0"):
        if item:
            yield os.fsdecode(item)


# --- running git -----------------------------------------------------------------------------


def _resolve(root: Path, revision: str) -> str:
    try:
        completed = _run(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except OSError as exc:
        raise _no_git(exc) from exc
    if completed.returncode != 0:
        raise GitDiffError(
            f"--diff: unknown revision '{revision}' in the git repository at {root.as_posix()} "
            "(in a shallow clone, fetch it first, e.g. `git fetch origin main`)"
        )
    return completed.stdout.decode("ascii", "replace").strip()


def _git(cwd: Path, *args: str, what: str) -> str:
    return os.fsdecode(_git_bytes(cwd, *args, what=what))


def _git_bytes(cwd: Path, *args: str, what: str) -> bytes:
    try:
        completed = _run(cwd, *args)
    except OSError as exc:
        raise _no_git(exc) from exc
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = message[0] if message else f"git exited with status {completed.returncode}"
        if "not a git repository" in detail:
            raise GitDiffError(
                f"--diff: '{cwd.as_posix()}' is not inside a git repository "
                "(--diff compares with a git revision)"
            )
        raise GitDiffError(f"--diff: cannot {what}: {detail}")
    return completed.stdout


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    # LC_ALL=C keeps git's messages in English, so the check above can read them.
    env = {**os.environ, "LC_ALL": "C", "GIT_PAGER": "cat", "GIT_OPTIONAL_LOCKS": "0"}
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(name, None)  # the repository is the one that holds cwd, nothing else
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )


def _no_git(exc: OSError) -> GitDiffError:
    return GitDiffError(f"--diff needs git, which could not be run: {exc.strerror or exc}")
