"""Issue 27's decisions beyond what the fixture comments say: LML004 (a cast of content to one
branch) is opt-in, as LML005 is, in `loomlint check` and in mypy with the plugin; and the
engine's copy relation needs no types (the fixtures hold the copies' exact findings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from expectations import REPO

from loomlint.cli import main

CASTS = ("fixtures/analysis/coercions_dataclass.py", "fixtures/analysis/origins_and_positions.py")


def _casts(*args: str) -> list[tuple[str, int, int]]:
    result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache", *args, *CASTS])
    assert result.exit_code == 1, result.output + result.stderr
    return sorted(
        (d["path"], d["line"], d["column"])
        for d in json.loads(result.stdout)
        if d["code"] == "LML004"
    )


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_a_cast_of_content_is_reported_only_when_lml004_is_selected(
    types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    mode = () if types else ("--no-types",)
    assert _casts(*mode) == []
    assert _casts(*mode, "--select", "LML") == []  # a prefix does not select an opt-in rule
    selected = [
        ("fixtures/analysis/coercions_dataclass.py", 55, 22),
        ("fixtures/analysis/origins_and_positions.py", 37, 26),
    ]
    assert _casts(*mode, "--extend-select", "LML004") == selected
    assert _casts(*mode, "--select", "LML004") == selected
