"""The baseline: today's findings, recorded, so that a gate reports only new ones.

``loomlint check --write-baseline FILE`` records every finding; ``--baseline FILE`` then hides
the recorded ones. A finding is recorded by its file, its code and the fingerprint of the line
it starts on (`loomlint.report.fingerprint`), never by line number, so code moving up or down
keeps its findings known. Identical lines share a fingerprint, so each entry counts how many
findings have it: a third copy of a line recorded twice is new.

The file (JSON, ``"\\n"`` line endings, entries sorted, so it diffs well in review)::

    {
      "version": 1,
      "tool": "loomlint",
      "findings": [
        {"path": "src/app.py", "code": "LML003", "fingerprint": "3f1e...", "count": 2}
      ]
    }

``path`` is relative to the project root (the folder of the configuration file, else the
current folder), with ``/`` separators, so the file works from any folder and on any platform;
a file outside the project is recorded by its absolute path. Every problem reading the file is
a `BaselineError` that names the file and says what is wrong.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, cast

from loomlint.engine.diagnostics import Diagnostic
from loomlint.files.atomic import write_atomically
from loomlint.report.fingerprint import LineReader, SourceLines, finding_fingerprint, line_at

BASELINE_VERSION = 1
TOOL_NAME = "loomlint"


class BaselineError(Exception):
    """The baseline file cannot be read or written. The message names the file."""


class BaselineKey(NamedTuple):
    """What identifies a finding across edits: file, code, and the flagged line's fingerprint."""

    path: str
    code: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class Baseline:
    """How many findings of each key were recorded."""

    counts: Mapping[BaselineKey, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(slots=True)
class BaselineMatch:
    """The outcome of comparing findings with a baseline."""

    # Findings the baseline does not account for, in the order given.
    new: list[Diagnostic] = field(default_factory=list[Diagnostic])
    # How many findings the baseline accounts for (and hides).
    known: int = 0
    # Recorded findings that did not occur this time (fixed, or not checked in this run).
    unmatched: Counter[BaselineKey] = field(default_factory=Counter[BaselineKey])


class FindingKeys:
    """Computes the `BaselineKey` of diagnostics whose paths are relative to ``cwd``."""

    def __init__(self, project_root: Path, cwd: Path, read_lines: LineReader | None = None) -> None:
        self.project_root = project_root
        self.cwd = cwd
        self.read_lines = read_lines if read_lines is not None else SourceLines(cwd)

    def path_of(self, path: str) -> str:
        """``path`` (relative to ``cwd``, or absolute) as the baseline records it."""
        absolute = Path(os.path.normpath(self.cwd / path))
        try:
            return absolute.relative_to(self.project_root).as_posix()
        except ValueError:
            return absolute.as_posix()

    def __call__(self, diagnostic: Diagnostic) -> BaselineKey:
        path = self.path_of(diagnostic.path)
        line_text = line_at(self.read_lines(diagnostic.path), diagnostic.line)
        code = diagnostic.code.upper()
        return BaselineKey(path, code, finding_fingerprint(path, code, line_text))


def build_baseline(diagnostics: Iterable[Diagnostic], keys: FindingKeys) -> Baseline:
    return Baseline(counts=Counter(keys(d) for d in diagnostics))


def compare(
    diagnostics: Sequence[Diagnostic], baseline: Baseline, keys: FindingKeys
) -> BaselineMatch:
    """Split ``diagnostics`` into known (recorded) and new ones.

    Of several findings with one key, the first ones by position are the known ones.
    """
    remaining = Counter(baseline.counts)
    match = BaselineMatch()
    for diagnostic in sorted(diagnostics, key=lambda d: d.sort_key):
        key = keys(diagnostic)
        if remaining[key] > 0:
            remaining[key] -= 1
            match.known += 1
        else:
            match.new.append(diagnostic)
    match.unmatched = +remaining
    return match


# --- the file --------------------------------------------------------------------------------


def dump_baseline(baseline: Baseline) -> str:
    """The baseline file's text."""
    entries = [
        {"path": key.path, "code": key.code, "fingerprint": key.fingerprint, "count": count}
        for key, count in sorted(baseline.counts.items())
        if count > 0
    ]
    document = {"version": BASELINE_VERSION, "tool": TOOL_NAME, "findings": entries}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_baseline(path: Path, baseline: Baseline) -> None:
    """Write the file atomically: a reader never sees half a baseline."""
    text = dump_baseline(baseline)
    try:
        write_atomically(path, text.encode("utf-8"))
    except OSError as exc:
        raise BaselineError(f"baseline '{path}': cannot write the file: {_reason(exc)}") from exc


def load_baseline(path: Path) -> Baseline:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BaselineError(f"baseline '{path}': cannot read the file: {_reason(exc)}") from exc
    return parse_baseline(data, str(path))


def parse_baseline(data: bytes, name: str) -> Baseline:
    """Validate a baseline file's bytes; ``name`` is how errors refer to the file."""

    def error(problem: str) -> BaselineError:
        return BaselineError(
            f"baseline '{name}': {problem} "
            "(write a new one with `loomlint check --write-baseline FILE`)"
        )

    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start})") from exc
    try:
        document: object = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from exc
    except RecursionError as exc:
        raise error("not a loomlint baseline: nested too deeply") from exc
    except ValueError as exc:  # e.g. an integer too long to convert
        raise error(f"not valid JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise error(f"not a loomlint baseline: expected a JSON object, got {_kind(document)}")
    top = cast("dict[str, object]", document)
    if "version" not in top:
        raise error("not a loomlint baseline: no 'version' field")
    version = top["version"]
    if version != BASELINE_VERSION or isinstance(version, bool):
        raise error(
            f"unsupported version {json.dumps(version)} "
            f"(this loomlint reads version {BASELINE_VERSION})"
        )
    if "findings" not in top:
        raise error("not a loomlint baseline: no 'findings' field")
    findings = top["findings"]
    if not isinstance(findings, list):
        raise error(f"'findings' must be a list, got {_kind(findings)}")
    counts: Counter[BaselineKey] = Counter()
    for index, entry in enumerate(cast("list[object]", findings)):
        key, count = _entry(entry, f"findings[{index}]", error)
        counts[key] += count
    return Baseline(counts=counts)


def _entry(
    entry: object, where: str, error: Callable[[str], BaselineError]
) -> tuple[BaselineKey, int]:
    if not isinstance(entry, dict):
        raise error(f"{where}: expected an object, got {_kind(entry)}")
    fields = cast("dict[str, object]", entry)
    values: list[str] = []
    for key in ("path", "code", "fingerprint"):
        value = fields.get(key)
        if not isinstance(value, str) or not value:
            raise error(f"{where}: '{key}' must be a non-empty string, got {_kind(value)}")
        values.append(value)
    count = fields.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise error(f"{where}: 'count' must be a positive integer, got {_kind(count)}")
    return BaselineKey(values[0], values[1].upper(), values[2]), count


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 40 else value[:37] + "...", ensure_ascii=False)
    if isinstance(value, list):
        return "a list"
    return "an object"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
