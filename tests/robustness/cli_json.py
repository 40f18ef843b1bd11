"""`loomlint check --format json`, in process, reduced to what the robustness tests compare."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from loomlint.cli import main


def check_json(*args: str) -> tuple[int, list[tuple[str, int, int, str, str]]]:
    """Exit code, and the findings as sorted (file name, line, column, code, message)."""
    result = CliRunner().invoke(main, ["check", "--format", "json", *args])
    found = sorted(
        (Path(d["path"]).name, d["line"], d["column"], d["code"], d["message"])
        for d in json.loads(result.stdout)
    )
    return result.exit_code, found
