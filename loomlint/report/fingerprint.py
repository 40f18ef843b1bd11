"""Fingerprints of findings that survive line shifts, shared by SARIF and the baseline.

A finding is identified by its file, its code and the text of the line it starts on (with
whitespace collapsed, so re-indenting keeps it), never by its line number. Two findings on
identical lines share a fingerprint; the formats that need one identity per finding add an
occurrence number (SARIF) or a count (the baseline).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

from loomlint.files.lines import line_texts

# Reads a file's lines given its (cwd-relative or absolute) path; empty when it cannot.
LineReader = Callable[[str], Sequence[str]]


def finding_fingerprint(path: str, code: str, line_text: str) -> str:
    """A hash of the file, the code and the flagged line's text, not of the line number, so it
    is stable when lines shift. ``path`` names the file relative to a root the caller keeps
    fixed (SARIF: the file's URI relative to the source root; the baseline: the path relative
    to the project root), so running from another folder keeps fingerprints.

    Whitespace is collapsed, so re-indenting a block keeps its fingerprints.
    """
    normalized = " ".join(line_text.split())
    digest = hashlib.sha256(f"{path}\0{code}\0{normalized}".encode())
    return digest.hexdigest()[:32]


def line_at(lines: Sequence[str], line: int) -> str:
    """The text of 1-based ``line``; empty when the file has no such line."""
    return lines[line - 1] if 0 < line <= len(lines) else ""


class SourceLines:
    """Reads each file's lines once (paths relative to ``cwd``); unreadable files have none.

    Bytes that are not UTF-8 are replaced, so a fingerprint never fails on odd input.
    """

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.read = functools.lru_cache(maxsize=256)(self._read)

    def __call__(self, path: str) -> Sequence[str]:
        return self.read(path)

    def _read(self, path: str) -> tuple[str, ...]:
        try:
            data = (self.cwd / path).read_bytes()
        except OSError:
            return ()
        text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
        return tuple(line_texts(text))
