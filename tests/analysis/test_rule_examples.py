"""Each rule's examples are its tests: the ``VALID`` and ``INVALID`` examples written beside
its class in loomlint/engine/checks (and shown by ``loomlint explain``) are checked by
``loomlint check`` with types, as a user's files would be. A valid example has no finding; an
invalid one has exactly its ``expected`` findings (code, line, column)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main
from loomlint.engine.checks import ALL_RULES
from loomlint.engine.checks.base import Example

EXAMPLES: dict[str, Example] = {
    f"{type(rule).__name__}_{kind}_{number}.py": example
    for rule in ALL_RULES
    for kind in ("VALID", "INVALID")
    for number, example in enumerate(getattr(rule, kind), start=1)
}


@pytest.fixture(scope="module")
def reported(tmp_path_factory: pytest.TempPathFactory, default_mypy_cache: Path) -> dict[str, list]:
    """Every example checked in one run (one mypy build), findings grouped by file."""
    project = tmp_path_factory.mktemp("rule-examples")
    # LML004 and LML005 are opt-in: their examples need them selected.
    (project / "pyproject.toml").write_text(
        '[tool.loomlint]\nextend-select = ["LML004", "LML005", "LML006"]\n'
    )
    for name, example in EXAMPLES.items():
        (project / name).write_text(example.source)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project)
        # The project names no [tool.mypy]: mypy's defaults.
        patch.setenv("MYPY_CACHE_DIR", str(default_mypy_cache))
        result = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", "."])
    assert result.exit_code == 1, result.output + result.stderr
    found: dict[str, list] = {name: [] for name in EXAMPLES}
    for finding in json.loads(result.stdout):
        found[finding["path"]].append((finding["code"], finding["line"], finding["column"]))
    return found


def test_every_rule_has_valid_and_invalid_examples() -> None:
    for rule in ALL_RULES:
        assert rule.VALID and rule.INVALID, type(rule).__name__
        assert all(example.expected for example in rule.INVALID), type(rule).__name__
        assert all(example.expected == () for example in rule.VALID), type(rule).__name__


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_an_example_gets_exactly_its_findings(name: str, reported: dict[str, list]) -> None:
    assert reported[name] == list(EXAMPLES[name].expected)
