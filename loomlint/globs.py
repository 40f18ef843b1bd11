"""Gitignore-style path patterns: compiled once, matched against posix paths.

Configuration (``exclude``, ``per-file-ignores``) and file discovery (``.gitignore`` files) all
speak gitignore's pattern language, through ``pathspec``. Specs are compiled from tuples of
pattern lines and cached here, so ``Settings`` can hold plain strings and stay picklable.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from pathspec import GitIgnoreSpec

_GLOB_SPECIAL = re.compile(r"[][*?\\!#]")


class PatternError(ValueError):
    """A pattern that gitignore's language cannot express (``pathspec`` refused it)."""


@functools.lru_cache(maxsize=512)
def compile_patterns(patterns: tuple[str, ...]) -> GitIgnoreSpec:
    """The spec for ``patterns`` (gitignore lines, later lines win). Raises ``PatternError``."""
    try:
        return GitIgnoreSpec.from_lines(patterns)
    except Exception as exc:  # pathspec raises several error types for a bad pattern
        raise PatternError(str(exc)) from exc


def check_patterns(patterns: Sequence[str]) -> str | None:
    """The first pattern of ``patterns`` that does not compile, or None when all do."""
    for pattern in patterns:
        try:
            compile_patterns((pattern,))
        except PatternError:
            return pattern
    return None


def matches(patterns: tuple[str, ...], path: str, *, is_dir: bool = False) -> bool:
    """Whether ``path`` (posix, relative to the patterns' base) is matched by ``patterns``.

    Directories are tested with a trailing slash, so that ``build/`` matches only directories,
    as in git.
    """
    if not patterns or not path:
        return False
    candidate = path.rstrip("/") + "/" if is_dir else path
    return compile_patterns(patterns).match_file(candidate)


def rebase_gitignore_lines(lines: Iterable[str], directory: str) -> list[str]:
    """Rewrite the lines of ``<directory>/.gitignore`` to patterns relative to the walk base.

    git reads a nested ``.gitignore`` relative to its own folder: a pattern with a slash is
    anchored there, one without matches at any depth below it. Rewriting keeps that meaning
    while letting one spec hold every level, in order, so deeper files override shallower
    ones exactly as git's last-match-wins rule says.
    """
    if not directory:
        return [line.rstrip("\r\n") for line in lines]
    # A folder named "a[1]" or "*" must match itself, not act as a pattern.
    directory = _GLOB_SPECIAL.sub(r"\\\g<0>", directory)
    rebased: list[str] = []
    for raw in lines:
        line = raw.rstrip("\r\n")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        negated = line.startswith("!")
        body = line[1:] if negated else line
        anchored = "/" in body.rstrip(" ").rstrip("/")
        rebased_body = f"{directory}/{body.lstrip('/')}" if anchored else f"{directory}/**/{body}"
        rebased.append(("!" if negated else "") + rebased_body)
    return rebased
