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
    [(True, False), (True, True), (False, True)],
    ids=["types", "types-with-guesses", "no-types-with-guesses"],
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
    if not types:
        return  # its guesses: test_without_types_only_grounded_findings_are_reported
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


def _no_types_run(*extra: str) -> tuple[list[tuple[str, int, int, str, str]], str]:
    result = CliRunner().invoke(
        main,
        [
            "check",
            "--no-types",
            "--format",
            "json",
            "--extend-select",
            "LML004,LML005,LML006",
            *extra,
            "fixtures/analysis",
        ],
    )
    assert result.exit_code == 1, result.output + result.stderr
    findings = sorted(
        (d["path"], d["line"], d["column"], d["code"], d["message"])
        for d in json.loads(result.stdout)
    )
    return findings, result.stderr


def test_without_types_only_grounded_findings_are_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without types a finding that no preset's data and no declared content type grounds is
    a guess (``Guess.NO_TYPES``): marked as one with --report-guesses, and otherwise left out
    and counted in a warning. The findings of the fixtures with guesses are exactly their
    annotations (``test_fixture_findings_are_exactly_the_annotated_ones``); here, which of them
    are guesses, and that the default run reports exactly the others."""
    monkeypatch.chdir(REPO)
    with_guesses, _ = _no_types_run("--report-guesses")
    default, stderr = _no_types_run()
    note = GUESS_NOTES[Guess.NO_TYPES]
    guesses = [f[:4] for f in with_guesses if f[4].endswith(note)]
    grounded = [f for f in with_guesses if not f[4].endswith(note)]
    # The fixtures' reads of the `loom` SPI's annotated messages are grounded; their dicts,
    # `Any` receivers and unannotated messages are not.
    assert (len(guesses), len(grounded)) == (87, 232)
    assert default == grounded
    files = len({g[0] for g in guesses})
    assert (
        f"warning: {len(guesses)} findings in {files} files are in code checked without types, "
        "judged by syntax alone, and no preset knows those reads nor does a declared type say "
        "they are content: they were not reported"
    ) in stderr, stderr
    # No other kind of guess without types.
    assert not any(
        f[4].endswith(other)
        for f in with_guesses
        for kind, other in GUESS_NOTES.items()
        if kind is not Guess.NO_TYPES
    )
