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

from .conftest import PRESET_FIXTURES, REPO

PRESETS = ("langchain", "openai", "anthropic", "pydantic-ai")


def _check(preset: str, *paths: str, types: bool) -> tuple[list[tuple[str, int, int, str]], str]:
    args = ["check", "--format", "json", "--preset", preset, *paths]
    if not types:
        args.append("--no-types")
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 1), result.output + result.stderr
    reported = sorted(
        (d["path"], d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)
    )
    return reported, result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("types", [True, False], ids=["types", "no-types"])
@pytest.mark.parametrize("preset", PRESETS)
def test_preset_fixture_findings_are_exactly_the_annotated_ones(
    preset: str, types: bool, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    folder = PRESET_FIXTURES / preset
    unrelated = PRESET_FIXTURES / "unrelated"
    reported, stderr = _check(
        preset,
        folder.relative_to(REPO).as_posix(),
        unrelated.relative_to(REPO).as_posix(),
        types=types,
    )
    files = sorted([*folder.glob("*.py"), *unrelated.glob("*.py")])
    assert reported == expected_findings(files, REPO, types=types)
    assert not [code for *_, code in reported if code.startswith("LML9")]
    assert ("precision is reduced" in stderr) is not types


def test_every_fixture_module_name_is_unique() -> None:
    """mypy refuses two modules of one name in a build: keep fixture names distinct."""
    names = [path.name for path in (REPO / "fixtures").rglob("*.py")]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
