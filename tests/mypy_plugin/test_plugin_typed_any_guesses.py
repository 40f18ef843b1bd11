"""mypy with the plugin leaves out a guess on a message mypy typed `Any`, in a function mypy
does not check, or in a branch mypy skips, as ``loomlint check`` does, and reports it, marked
with why, where ``[tool.loomlint]`` asks for guesses (one engine decides: ``engine.guesses``).
The findings are exactly the fixtures' ``expect`` comments."""

from __future__ import annotations

from pathlib import Path

import pytest
from expectations import expected_findings
from mypy_runs import REPO, run_project, write_project

from loomlint.engine.diagnostics import Guess
from loomlint.engine.guesses import GUESS_NOTES

FIXTURES = REPO / "fixtures" / "analysis"


@pytest.mark.slow
@pytest.mark.parametrize("guesses", [False, True], ids=["default", "report-guesses"])
@pytest.mark.parametrize(
    ("fixture", "kind"),
    [
        ("typed_any_guesses.py", Guess.TYPED_ANY),
        ("unchecked_guesses.py", Guess.UNCHECKED),
        # A branch mypy deems unreachable, and a file mypy skips whole (its leading
        # `# type: ignore` silences mypy's own errors there, not the plugin's findings).
        ("skipped_branch_guesses.py", Guess.SKIPPED),
        ("skipped_file_guesses.py", Guess.SKIPPED),
    ],
    ids=["typed-any", "unchecked", "skipped-branch", "skipped-file"],
)
def test_the_plugin_reports_a_guess_only_when_asked_for(
    tmp_path: Path, sdk_mypy_cache: Path, guesses: bool, fixture: str, kind: Guess
) -> None:
    # The unchecked fixture's own inline configuration turns `check_untyped_defs` off, which
    # the project's strict configuration turns on.
    path = FIXTURES / fixture
    # The bedrock preset knows one of each fixture's reads through `Any`: no guess.
    presets = 'preset = ["loom", "bedrock"]\n'
    config = write_project(
        tmp_path, loomlint=presets + ("report-guesses = true\n" if guesses else "")
    )
    run = run_project(config, sdk_mypy_cache, str(path), cwd=REPO)
    reported = sorted(
        (e.line, e.column, e.message.endswith(GUESS_NOTES[kind]))
        for e in run.errors
        if e.code.startswith("loom-")
    )
    everything = expected_findings([path], REPO, types=True, guesses=True)
    typed = expected_findings([path], REPO, types=True)
    expected = sorted(
        (line, column, finding not in typed)
        for finding in (everything if guesses else typed)
        for _, line, column, _ in [finding]
    )
    assert reported == expected, run.stdout + run.stderr
    assert any(guess for _, _, guess in expected) is guesses
