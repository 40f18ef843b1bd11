"""mypy with the plugin leaves out a guess on a message mypy typed `Any`, as ``loomlint check``
does, and reports it, marked, where ``[tool.loomlint]`` asks for guesses (one engine decides:
``engine.guesses``). The findings are exactly the fixture's ``expect`` comments."""

from __future__ import annotations

from pathlib import Path

import pytest
from expectations import expected_findings
from mypy_runs import REPO, run_mypy, write_project

from loomlint.engine.diagnostics import Guess
from loomlint.engine.guesses import GUESS_NOTES

FIXTURE = REPO / "fixtures" / "analysis" / "typed_any_guesses.py"


@pytest.mark.slow
@pytest.mark.parametrize("guesses", [False, True], ids=["default", "report-guesses"])
def test_the_plugin_reports_a_typed_any_guess_only_when_asked_for(
    tmp_path: Path, sdk_mypy_cache: Path, guesses: bool
) -> None:
    # The bedrock preset knows one of the fixture's reads through `Any`: no guess.
    presets = 'preset = ["loom", "bedrock"]\n'
    config = write_project(
        tmp_path, loomlint=presets + ("report-guesses = true\n" if guesses else "")
    )
    run = run_mypy(
        [
            "--show-column-numbers",
            "--config-file",
            str(config),
            "--cache-dir",
            str(sdk_mypy_cache),
            str(FIXTURE),
        ],
        cwd=REPO,
    )
    reported = sorted(
        (e.line, e.column, e.message.endswith(GUESS_NOTES[Guess.TYPED_ANY]))
        for e in run.errors
        if e.code.startswith("loom-")
    )
    everything = expected_findings([FIXTURE], REPO, types=True, guesses=True)
    typed = expected_findings([FIXTURE], REPO, types=True)
    expected = sorted(
        (line, column, finding not in typed)
        for finding in (everything if guesses else typed)
        for _, line, column, _ in [finding]
    )
    assert reported == expected, run.stdout + run.stderr
    assert any(guess for _, _, guess in expected) is guesses
