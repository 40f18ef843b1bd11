"""`loomlint check` over fixtures/analysis: every finding, exactly, with and without types.

The opt-in LML004 (casts) and LML005 (content whose type is lost) are selected here, so their
findings are written in the fixtures like any other; that they are off by default is tested in
test_precision_shapes and test_copies_and_casts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from expectations import REPO, expected_findings

from loomlint.cli import main

FIXTURES = REPO / "fixtures" / "analysis"


@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
def test_fixture_findings_are_exactly_the_annotated_ones(
    types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    args = ["check", "--format", "json", "--extend-select", "LML004,LML005", "fixtures/analysis"]
    if not types:
        args.append("--no-types")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output + result.stderr
    reported = sorted(
        (d["path"], d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)
    )
    expected = expected_findings(sorted(FIXTURES.glob("*.py")), REPO, types=types)
    assert reported == expected
    if types:
        assert "precision is reduced" not in result.stderr
    else:
        assert "precision is reduced" in result.stderr
