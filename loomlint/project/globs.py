"""Gitignore-style path patterns: compiled once, matched against posix paths.

Configuration (``exclude``, ``extend-exclude``, ``per-file-ignores``) and file discovery
(``.gitignore`` files) all speak gitignore's pattern language, through ``pathspec``. Specs are
compiled from tuples of pattern lines and cached here, so ``Settings`` can hold plain strings
and stay picklable.

Patterns come from files a pull request can edit. ``pathspec``'s default matcher is Python's
``re``, which backtracks: ``*a*a*a...*b`` (40 stars) against a 200-character path runs for
minutes while holding the interpreter lock, so not even SIGTERM is answered. So patterns are
matched by RE2 (``pathspec``'s ``re2`` backend, google-re2), in time linear in the path, and
a pattern must stay within a size (``pattern_problem``) that keeps that time small: RE2's time
also grows with the pattern.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterable, Sequence

from pathspec import GitIgnoreSpec

_GLOB_SPECIAL = re.compile(r"[][*?\\!#]")
# A pattern's size beyond which matching costs too much per path (RE2 is linear in the path
# and in the pattern): far beyond what people write (``**/migrations/*.py``: 3 wildcards).
MAX_PATTERN_LENGTH = 1024
MAX_WILDCARDS = 32
_WILDCARD = re.compile(r"\*+|\?|\[")


class PatternError(ValueError):
    """A pattern that gitignore's language cannot express (``pathspec`` refused it)."""


class MatcherMissing(Exception):
    """google-re2, which matches every pattern, cannot be imported: no pattern can be used.
    (A dependency of loomlint's, through ``pathspec[re2]``; an environment can still lack it.)
    """

    def __init__(self, reason: str) -> None:
        super().__init__(
            "loomlint matches path patterns (exclude, per-file-ignores, .gitignore) with "
            f"google-re2, which this Python cannot import ({reason}); install it: "
            f"{sys.executable} -m pip install google-re2"
        )


def pattern_problem(pattern: str) -> str | None:
    """Why ``pattern`` is refused (too big to match cheaply), or None."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"it is longer than {MAX_PATTERN_LENGTH} characters"
    wildcards = len(_WILDCARD.findall(pattern))
    if wildcards > MAX_WILDCARDS:
        return (
            f"it has {wildcards} wildcards (at most {MAX_WILDCARDS}), which could make "
            "matching every path slow"
        )
    return None


@functools.lru_cache(maxsize=512)
def compile_patterns(patterns: tuple[str, ...]) -> GitIgnoreSpec:
    """The spec for ``patterns`` (gitignore lines, later lines win). Raises ``PatternError``,
    or ``MatcherMissing`` whatever the patterns."""
    for pattern in patterns:
        problem = pattern_problem(pattern)
        if problem is not None:
            raise PatternError(problem)
    try:
        return GitIgnoreSpec.from_lines(patterns, backend="re2")
    except ImportError as exc:  # pathspec raises re2's import error when it is used
        raise MatcherMissing(str(exc) or type(exc).__name__) from exc
    except Exception as exc:  # pathspec and RE2 raise several error types for a bad pattern
        raise PatternError(str(exc) or type(exc).__name__) from exc


def check_patterns(patterns: Sequence[str]) -> tuple[str, str | None] | None:
    """The first pattern of ``patterns`` that is refused, and why (None: it is not a valid
    pattern); None when all compile, alone and together. Raises ``MatcherMissing``, even
    for no pattern (the default exclusions need the matcher too)."""
    for pattern in patterns:
        problem = pattern_problem(pattern)
        if problem is not None:
            return pattern, problem
        try:
            compile_patterns((pattern,))
        except PatternError:
            return pattern, None
    try:
        compile_patterns(tuple(patterns))
    except PatternError:
        return ", ".join(patterns), "together the patterns are too many to match at once"
    return None


def matches(patterns: tuple[str, ...], path: str, *, is_dir: bool = False) -> bool:
    """Whether ``path`` (posix, relative to the patterns' base) is matched by ``patterns``.

    Directories are tested with a trailing slash, so that ``build/`` matches only directories,
    as in git.
    """
    if not patterns or not path:
        return False
    candidate = path.rstrip("/") + "/" if is_dir else path
    return match_file(compile_patterns(patterns), candidate)


def match_file(spec: GitIgnoreSpec, path: str) -> bool:
    """Whether ``spec`` matches ``path``. RE2 reads UTF-8: the bytes of a file name that are
    not UTF-8 (surrogates here) are read as U+FFFD, as ``.gitignore`` lines read them."""
    if not path.isascii():
        path = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return spec.match_file(path)


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
