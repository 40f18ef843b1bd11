"""PATH arguments -> the sorted list of Python files to check.

Folders are walked in name order, honouring ``.gitignore`` files (the repository's, nested ones,
and ``.git/info/exclude``, with git's semantics) and the configured ``exclude`` patterns.
``exclude`` applies to explicitly named files too, so a pre-commit run (which names every
staged file) honours it; ``.gitignore`` does not, as in git, where naming a file overrides it.
A named file that is not Python (see ``is_python_file``) is skipped with a note.
Symlinked folders are never followed during a walk, so links cannot loop. Symlinked files are
checked once, under the first name found.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

from loomlint.project.config import Settings
from loomlint.project.globs import (
    PatternError,
    compile_patterns,
    match_file,
    pattern_problem,
    rebase_gitignore_lines,
)

PYTHON_SUFFIXES = (".py", ".pyi")


def is_python_file(path: Path) -> bool:
    """Whether a file named on the command line is Python: a ``.py`` or ``.pyi`` file, or a
    file without a suffix whose first line is a shebang naming python (``#!/usr/bin/env
    python3``), as scripts in ``bin/`` are. Anything else (``pyproject.toml``, ``README``) is
    not parsed as Python. (A walk of a folder takes only ``.py`` and ``.pyi`` files.)"""
    if path.name.endswith(PYTHON_SUFFIXES):
        return True
    if path.suffix:
        return False
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return True  # a FIFO or a device: the run refuses it (LML902) without opening it
        with path.open("rb") as handle:
            first_line = handle.readline(256)
    except OSError:
        return True  # unreadable: the run reports it (LML902) rather than hiding it
    return first_line.startswith(b"#!") and b"python" in first_line


class DiscoveryError(Exception):
    """A named path cannot be checked (it does not exist). A usage error."""


@dataclass(frozen=True, slots=True)
class Discovery:
    """The files to check (cwd-relative posix paths when inside cwd), and walk warnings.

    A folder that cannot be listed is among the files: reading it reports it (LML902)."""

    files: tuple[str, ...]
    warnings: tuple[str, ...]
    # Named files that are not Python (``pyproject.toml``): said, not checked.
    notes: tuple[str, ...] = ()


def discover_files(paths: Sequence[str | Path], settings: Settings) -> Discovery:
    """Expand ``paths`` (files or folders, relative to ``settings.cwd``) into Python files."""
    walker = _Walker(settings)
    for argument in paths:
        absolute = Path(os.path.normpath(settings.cwd / argument))
        try:
            is_dir = stat.S_ISDIR(absolute.stat().st_mode)
        except (FileNotFoundError, NotADirectoryError):
            raise DiscoveryError(f"path '{argument}' does not exist") from None
        except OSError:
            # There, but not to be looked at (a folder on its way forbids it): reading it
            # reports why (LML902), and the other paths are still checked.
            is_dir = False
        if is_dir:
            walker.walk(absolute)
        elif walker.is_excluded(absolute, is_dir=False, walk_root=None):
            continue
        elif is_python_file(absolute):
            walker.add(absolute)
        else:
            walker.notes.append(
                f"skipped '{argument}': not a Python file (loomlint checks .py and .pyi files, "
                "and files without a suffix whose first line is a python shebang)"
            )
    files = sorted(walker.found.values())
    return Discovery(files=tuple(files), warnings=tuple(walker.warnings), notes=tuple(walker.notes))


class _Walker:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.exclude: GitIgnoreSpec | None = (
            compile_patterns(settings.exclude) if settings.exclude else None
        )
        # Real path -> display path: a file reached through two names is checked once.
        self.found: dict[str, str] = {}
        self.warnings: list[str] = []
        self.notes: list[str] = []

    def add(self, path: Path) -> None:
        real = os.path.realpath(path)
        self.found.setdefault(real, self.display(path))

    def display(self, path: Path) -> str:
        try:
            return path.relative_to(self.settings.cwd).as_posix()
        except ValueError:
            return path.as_posix()

    def usable(self, patterns: Iterable[str]) -> Iterator[str]:
        """The .gitignore patterns that can be matched cheaply; a warning for the others (a
        pull request can edit a .gitignore too)."""
        for pattern in patterns:
            problem = pattern_problem(pattern)
            if problem is None:
                yield pattern
            else:
                shown = pattern if len(pattern) <= 60 else pattern[:57] + "..."
                self.warnings.append(f"a .gitignore pattern '{shown}' is not applied: {problem}")

    def is_excluded(self, path: Path, *, is_dir: bool, walk_root: Path | None) -> bool:
        if self.exclude is None:
            return False
        candidate = _exclusion_candidate(path, self.settings.project_root, walk_root)
        if not candidate:
            return False
        return match_file(self.exclude, candidate + "/" if is_dir else candidate)

    def walk(self, root: Path) -> None:
        if self.is_excluded(root, is_dir=True, walk_root=None):
            return
        base = _ignore_base(root, self.settings.project_root)
        patterns = tuple(self.usable(_inherited_ignore_lines(base, root)))
        stack: list[tuple[Path, tuple[str, ...]]] = [(root, patterns)]
        while stack:
            directory, inherited = stack.pop()
            pending: list[tuple[Path, tuple[str, ...]]] = []
            for entry, is_dir, patterns in self._entries(directory, base, inherited, root):
                if is_dir:
                    pending.append((entry, patterns))
                elif entry.name.endswith(PYTHON_SUFFIXES):
                    self.add(entry)
            # Reversed, so that the stack pops folders in name order.
            stack.extend(reversed(pending))

    def _entries(
        self, directory: Path, base: Path, inherited: tuple[str, ...], walk_root: Path
    ) -> Iterator[tuple[Path, bool, tuple[str, ...]]]:
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError:
            # Reported as the folder's own diagnostic (LML902, see ``reading``), which
            # neither ``-q`` nor a clean summary hides.
            self.add(directory)
            return
        patterns = inherited
        if any(entry.name == ".gitignore" for entry in entries):
            patterns = (*inherited, *self.usable(_gitignore_lines(directory / ".gitignore", base)))
        try:
            ignored = compile_patterns(patterns) if patterns else None
        except PatternError:
            self.warnings.append(
                f"the .gitignore patterns in force in '{self.display(directory)}' are too many "
                "to match at once; they are not applied there"
            )
            ignored = None
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                if not is_dir and not entry.is_file():
                    continue  # a link to a folder (never followed), a broken link, a socket
            except OSError:
                continue
            if is_dir and entry.name == ".git":
                continue
            if ignored is not None:
                relative = path.relative_to(base).as_posix()
                if match_file(ignored, relative + "/" if is_dir else relative):
                    continue
            if self.is_excluded(path, is_dir=is_dir, walk_root=walk_root):
                continue
            yield path, is_dir, patterns


def _exclusion_candidate(path: Path, project_root: Path, walk_root: Path | None) -> str:
    """What ``exclude`` patterns are matched against: the path relative to the project.

    Outside the project, anchored patterns have nothing to anchor to, so only the part below
    the walked folder (or a named file's own name) is matched.
    """
    try:
        return path.relative_to(project_root).as_posix()
    except ValueError:
        pass
    if walk_root is None:
        return path.name
    try:
        return path.relative_to(walk_root).as_posix()
    except ValueError:
        return path.name


def _ignore_base(root: Path, project_root: Path) -> Path:
    """Where .gitignore patterns are anchored: the repository root, else the project root."""
    for directory in (root, *root.parents):
        if (directory / ".git").exists():
            return directory
    if root == project_root or project_root in root.parents:
        return project_root
    return root


def _inherited_ignore_lines(base: Path, root: Path) -> list[str]:
    """The ignore patterns in force at ``root`` from ``base`` and the folders between."""
    lines = _gitignore_lines(base / ".git" / "info" / "exclude", base, anchor=base)
    if root == base:
        return lines
    relative = root.relative_to(base)
    directory = base
    lines.extend(_gitignore_lines(directory / ".gitignore", base))
    for part in relative.parts[:-1]:
        directory = directory / part
        lines.extend(_gitignore_lines(directory / ".gitignore", base))
    return lines


def _gitignore_lines(path: Path, base: Path, *, anchor: Path | None = None) -> list[str]:
    """The lines of an ignore file, rebased to ``base``; none if it cannot be read."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return []
    directory = (anchor if anchor is not None else path.parent).relative_to(base).as_posix()
    return rebase_gitignore_lines(text.splitlines(), "" if directory == "." else directory)
