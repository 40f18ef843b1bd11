"""Run real mypy with loomlint's plugin (in-process, through ``mypy.api``) and read its errors.

Fixture files mark the errors they expect at the end of a line: ``# expect: code[, code]``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mypy import api

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures" / "mypy_plugin"
PLUGIN = "loomlint.mypy_plugin"
# The mypy options ``write_project`` writes unless told otherwise.
PLUGIN_STRICT = f'plugins = ["{PLUGIN}"]\nstrict = true\n'

# (file name, line, error code)
ErrorKey = tuple[str, int, str]

# ``path:line: error: message  [code]``, with ``:column`` after the line when mypy shows columns.
_ERROR = re.compile(
    r"^(?P<path>.+?):(?P<line>\d+)(?::(?P<column>\d+))?: error: (?P<message>.*?)"
    r"(?:  \[(?P<code>[\w-]+)\])?$"
)
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>[\w-]+(?:\s*,\s*[\w-]+)*)\s*$")
# A module with two findings, one of which an accessor setting silences
# (``accessors = ["helpers.loose_text"]``): for the tests of the plugin's configuration.
LOOSE_TEXT_HELPERS = """\
from loomlint.content import LlmMessage
from typing import Any

def loose_text(value: Any) -> str:
    return str(value.strip())


def show(m: LlmMessage) -> str:
    print(m.content)
    return loose_text(m.content)
"""
OUTPUT_FLAGS = (
    "--show-absolute-path",
    "--no-error-summary",
    "--no-pretty",
    "--show-error-codes",
    "--no-color-output",
    "--hide-error-context",
)


@dataclass(frozen=True, slots=True)
class Reported:
    path: Path
    line: int
    code: str
    message: str
    # With --show-column-numbers: the 1-based column mypy printed.
    column: int | None = None

    @property
    def key(self) -> ErrorKey:
        return (self.path.name, self.line, self.code)


@dataclass(frozen=True, slots=True)
class MypyRun:
    stdout: str
    stderr: str
    exit_status: int
    errors: tuple[Reported, ...]

    def keys(self, *, in_file: str | None = None, loomlint_only: bool = False) -> set[ErrorKey]:
        return {
            e.key
            for e in self.errors
            if (in_file is None or e.path.name == in_file)
            and (not loomlint_only or e.code.startswith("loom-"))
        }

    def messages(self, in_file: str, line: int) -> list[str]:
        return [e.message for e in self.errors if e.path.name == in_file and e.line == line]


def run_mypy(args: Sequence[str], *, cwd: Path) -> MypyRun:
    """``mypy ARGS`` as if run in ``cwd``, with output flags that make it parseable."""
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        stdout, stderr, status = api.run([*OUTPUT_FLAGS, *args])
    finally:
        os.chdir(previous)
    return MypyRun(stdout, stderr, status, parse_errors(stdout))


def run_project(config: Path, cache: Path, *paths: str, cwd: Path) -> MypyRun:
    """mypy over ``paths`` with the configuration ``write_project`` wrote and a cache of the
    test's own, showing columns (to compare them with ``loomlint check``'s)."""
    args = ["--show-column-numbers", "--config-file", str(config), "--cache-dir", str(cache)]
    return run_mypy([*args, *paths], cwd=cwd)


def parse_errors(stdout: str) -> tuple[Reported, ...]:
    """The error lines of mypy's (or dmypy's) report."""
    errors: list[Reported] = []
    for line in stdout.splitlines():
        match = _ERROR.match(line)
        if match is not None:
            errors.append(
                Reported(
                    path=Path(match["path"]),
                    line=int(match["line"]),
                    code=match["code"] or "misc",
                    message=match["message"],
                    column=int(match["column"]) if match["column"] else None,
                )
            )
    return tuple(errors)


def expected_errors(paths: Iterable[Path]) -> set[ErrorKey]:
    """The ``# expect:`` markers of ``paths``."""
    expected: set[ErrorKey] = set()
    for path in paths:
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = _EXPECT.search(text)
            if match is not None:
                for code in match["codes"].split(","):
                    expected.add((path.name, number, code.strip()))
    return expected


def write_project(
    root: Path,
    *,
    mypy: str = PLUGIN_STRICT,
    loomlint: str = "",
    files: Mapping[str, str] | None = None,
) -> Path:
    """A project in ``root``: ``pyproject.toml`` with ``[tool.mypy]`` and ``[tool.loomlint]``
    (always present, so no configuration above ``root`` is picked up), and ``files``."""
    root.mkdir(parents=True, exist_ok=True)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(f"[tool.mypy]\n{mypy}\n[tool.loomlint]\n{loomlint}\n", encoding="utf-8")
    for name, text in (files or {}).items():
        (root / name).write_text(text, encoding="utf-8")
    return pyproject
