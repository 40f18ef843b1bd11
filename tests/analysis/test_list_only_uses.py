"""LML006 (content used in a way only a list allows) is opt-in, as LML004 and LML005 are:
off by default and under a prefix, on when named in full, with and without types. Its exact
findings, and LML001's for what a string has too, are the fixture's `# expect` comments
(test_analysis_fixtures), and the plugin's agree (test_plugin_cli_agreement)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from expectations import REPO

from loomlint.cli import main

FIXTURE = "fixtures/analysis/list_only_uses.py"


def _findings(*args: str) -> list[tuple[int, int, str]]:
    result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache", *args, FIXTURE])
    assert result.exit_code == 1, result.output + result.stderr
    return sorted((d["line"], d["column"], d["code"]) for d in json.loads(result.stdout))


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_a_list_only_use_of_content_is_reported_only_when_lml006_is_selected(
    types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    # Without types, line 55's read (after line 54's `+=`) rests on no preset's data: a guess,
    # asked for here.
    mode = () if types else ("--no-types", "--report-guesses")
    string_uses = [(41, 13, "LML001"), (42, 20, "LML001"), (55, 5, "LML001")]
    # Only the types say that what line 69 adds is a list: without them, a use of one branch.
    extended = (69, 5, "LML006" if types else "LML001")
    if not types:
        string_uses.append(extended)
    list_only = [
        (11, 5, "LML006"),
        (15, 5, "LML006"),
        (20, 5, "LML006"),
        (21, 5, "LML006"),
        (25, 11, "LML006"),
        (30, 5, "LML006"),
        (50, 18, "LML006"),
        (54, 5, "LML006"),
        (64, 5, "LML006"),
        *([extended] if types else []),
    ]
    assert _findings(*mode) == string_uses
    assert _findings(*mode, "--select", "LML") == string_uses  # a prefix: not the opt-in
    assert _findings(*mode, "--extend-select", "LML006") == sorted(string_uses + list_only)
    assert _findings(*mode, "--select", "LML006") == list_only
