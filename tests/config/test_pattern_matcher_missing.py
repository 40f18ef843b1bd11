"""Without google-re2 no path pattern can be matched, not even the default exclusions: loomlint
says which package is missing and how to install it, instead of refusing the patterns."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

# The environment of a venv where google-re2 is not installed: `import re2` fails.
WITHOUT_RE2 = (
    "import sys; sys.modules['re2'] = None; from loomlint.cli import console_main; console_main()"
)
MISSING = (
    "error: loomlint matches path patterns (exclude, per-file-ignores, .gitignore) with "
    "google-re2, which this Python cannot import (import of re2 halted; None in sys.modules); "
    f"install it: {sys.executable} -m pip install google-re2\n"
)

NO_TYPES = "note: checking without types (--no-types): precision is reduced\n"


def _check(project: Path, *, re2: bool) -> subprocess.CompletedProcess[str]:
    program = WITHOUT_RE2 if not re2 else WITHOUT_RE2.replace("sys.modules['re2'] = None; ", "")
    return subprocess.run(
        [sys.executable, "-c", program, "check", "--no-types", "."],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "config",
    [
        "",
        "[tool.loomlint]\n",
        '[tool.loomlint]\nexclude = ["build/"]\n',
        '[tool.loomlint.per-file-ignores]\n"tests/*" = ["LML003"]\n',
    ],
    ids=["no-configuration", "empty-table", "exclude", "per-file-ignores"],
)
def test_a_missing_matcher_is_named_with_its_install_command(tmp_path: Path, config: str) -> None:
    (tmp_path / "app.py").write_text("X = 1\n", encoding="utf-8")
    if config:
        (tmp_path / "pyproject.toml").write_text(config, encoding="utf-8")
    done = _check(tmp_path, re2=False)
    assert (done.stdout, done.stderr, done.returncode) == ("", MISSING, 2)
    # The same project, with google-re2: every pattern is fine.
    done = _check(tmp_path, re2=True)
    assert (done.stdout, done.stderr, done.returncode) == ("All checks passed.\n", NO_TYPES, 0)
