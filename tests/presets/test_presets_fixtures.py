"""`loomlint check --preset NAME` over fixtures/presets/NAME (modules importing the real SDKs)
and fixtures/presets/unrelated, with and without types: every finding, exactly.

Each fixture holds the preset's coercion bugs and uses (annotated ``# expect:``), and its
accessors, narrowings and union-preserving positions (not annotated: never reported). The
unrelated module (httpx / requests responses, files) must stay clean under every preset.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from expectations import expected_findings

from loomlint.cli import main
from loomlint.engine.diagnostics import Guess
from loomlint.engine.guesses import GUESS_NOTES

from .conftest import PRESET_FIXTURES, REPO

PRESETS = ("langchain", "openai", "anthropic", "pydantic-ai")


def _check(
    preset: str, *paths: str, types: bool, guesses: bool = False
) -> tuple[list[tuple[str, int, int, str]], str, set[tuple[str, int, int, str]]]:
    """The findings, stderr, and the findings marked as guesses without types."""
    args = ["check", "--format", "json", "--preset", preset, *paths]
    if not types:
        args.append("--no-types")
    if guesses:
        args.append("--report-guesses")
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 1), result.output + result.stderr
    findings = json.loads(result.stdout)
    reported = sorted((d["path"], d["line"], d["column"], d["code"]) for d in findings)
    marked = {
        (d["path"], d["line"], d["column"], d["code"])
        for d in findings
        if d["message"].endswith(GUESS_NOTES[Guess.NO_TYPES])
    }
    return reported, result.stderr, marked


@pytest.mark.slow
@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
@pytest.mark.parametrize("preset", PRESETS)
def test_preset_fixture_findings_are_exactly_the_annotated_ones(
    preset: str, types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    folder = PRESET_FIXTURES / preset
    unrelated = PRESET_FIXTURES / "unrelated"
    paths = (folder.relative_to(REPO).as_posix(), unrelated.relative_to(REPO).as_posix())
    # Without types, with the guesses: the reads no preset's data grounds are guesses
    # (``Guess.NO_TYPES``), and the fixtures annotate every finding.
    reported, stderr, marked = _check(preset, *paths, types=types, guesses=not types)
    files = sorted([*folder.glob("*.py"), *unrelated.glob("*.py")])
    assert reported == expected_findings(files, REPO, types=types)
    assert not [code for *_, code in reported if code.startswith("LML9")]
    assert ("precision is reduced" in stderr) is not types
    if not types:
        # By default, exactly those the presets' data grounds.
        default, _, _ = _check(preset, *paths, types=False)
        assert default == sorted(set(reported) - marked)
        assert default, "the preset's own reads are grounded: the test has teeth"


def test_every_fixture_module_name_is_unique() -> None:
    """mypy refuses two modules of one name in a build: keep fixture names distinct."""
    names = [path.name for path in (REPO / "fixtures").rglob("*.py")]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
