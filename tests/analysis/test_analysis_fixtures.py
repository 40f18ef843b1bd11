"""`loomlint check` over fixtures/analysis: every finding, exactly, with and without types.

The opt-in LML004 (casts), LML005 (content whose type is lost) and LML006 (content used as only a
list allows) are selected here, so their findings are written in the fixtures like any other;
that they are off by default is tested in test_precision_shapes, test_copies_and_casts and
test_list_only_uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from expectations import REPO, expected_findings

from loomlint.cli import main
from loomlint.engine.diagnostics import Guess
from loomlint.engine.guesses import GUESS_NOTES

FIXTURES = REPO / "fixtures" / "analysis"
# The fixture whose functions mypy does not check (its inline configuration says so).
UNCHECKED = "fixtures/analysis/unchecked_guesses.py"
# The fixtures with code mypy skips: a file whose first line is `# type: ignore`, and a branch
# mypy deems unreachable.
SKIPPED = (
    "fixtures/analysis/skipped_file_guesses.py",
    "fixtures/analysis/skipped_branch_guesses.py",
    "fixtures/analysis/ignored_errors_guesses.py",
)


@pytest.mark.parametrize(
    ("types", "guesses"),
    [(True, False), (True, True), (False, False)],
    ids=["types", "types-with-guesses", "no-types"],
)
def test_fixture_findings_are_exactly_the_annotated_ones(
    types: bool, guesses: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    args = [
        "check",
        "--format",
        "json",
        "--extend-select",
        "LML004,LML005,LML006",
        "fixtures/analysis",
    ]
    if not types:
        args.append("--no-types")
    if guesses:
        args.append("--report-guesses")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output + result.stderr
    reported = sorted(
        (d["path"], d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)
    )
    files = sorted(FIXTURES.glob("*.py"))
    expected = expected_findings(files, REPO, types=types, guesses=guesses)
    assert reported == expected
    if types:
        assert "precision is reduced" not in result.stderr
    else:
        assert "precision is reduced" in result.stderr
    # A guess says it is one, and why: the findings marked so are exactly the `expect[guess]`
    # ones, those in the file whose functions mypy does not check marked as such.
    marked = sorted(
        (d["path"], d["line"], d["column"], d["code"], kind)
        for d in json.loads(result.stdout)
        for kind, note in GUESS_NOTES.items()
        if d["message"].endswith(note)
    )
    only_guesses = sorted(
        set(expected_findings(files, REPO, types=True, guesses=True))
        - set(expected_findings(files, REPO, types=True))
    )
    unchecked = [g for g in only_guesses if g[0] == UNCHECKED]
    skipped = [g for g in only_guesses if g[0] in SKIPPED]
    typed_any = [g for g in only_guesses if g[0] != UNCHECKED and g[0] not in SKIPPED]
    assert unchecked and skipped and typed_any, "guesses of every kind: the test has teeth"
    assert {g[0] for g in skipped} == set(SKIPPED)
    guessed = (
        [(*g, Guess.TYPED_ANY) for g in typed_any]
        + [(*g, Guess.UNCHECKED) for g in unchecked]
        + [(*g, Guess.SKIPPED) for g in skipped]
    )
    assert marked == (sorted(guessed) if guesses else [])
    counted = [
        f"warning: {len(typed_any)} findings in 2 files rest on messages mypy types `Any`",
        f"warning: {len(unchecked)} findings in 1 file are in functions mypy does not check",
        f"warning: {len(skipped)} findings in 3 files are in code mypy skips",
    ]
    assert [warning in result.stderr for warning in counted] == [types] * 3, result.stderr
