"""One judgement: on every fixture, ``loomlint check`` with types reports everything the mypy
plugin reports (same file, same line, same rule), with every preset active at once.

Both run for real over the same files and the same ``[tool.loomlint]``: mypy (one run, with
``plugins = ["loomlint.mypy_plugin"]``) and ``loomlint check`` (in-process, with types). A
plugin finding the CLI lacks is a failure that names it. What only the CLI sees is listed, with
the reason, in docs/mypy-plugin.md ("What the plugin sees").
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from mypy_runs import REPO, MypyRun, run_mypy, write_project

from loomlint.catalog import load_catalog
from loomlint.cli import main

FIXTURES = REPO / "fixtures"
FILES = sorted(
    [
        *(FIXTURES / "analysis").glob("*.py"),
        *(FIXTURES / "mypy_plugin").glob("*.py"),
        *(FIXTURES / "presets").rglob("*.py"),
        *(FIXTURES / "example").glob("*.py"),
    ]
)
# Every preset, the reference SPI first: the advice must still be each receiver's own.
PRESETS = 'preset = ["loom", "langchain", "openai", "anthropic", "pydantic-ai"]\n'

# (absolute path, line, rule codes the finding may be reported as)
Finding = tuple[str, int, frozenset[str]]


def _rules_by_mypy_code() -> dict[str, frozenset[str]]:
    grouped: dict[str, set[str]] = {}
    for rule in load_catalog().rules.values():
        if rule.mypy_code is not None:
            grouped.setdefault(rule.mypy_code, set()).add(rule.code)
    return {code: frozenset(rules) for code, rules in grouped.items()}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("agreement")
    return write_project(root, loomlint=PRESETS)


@pytest.fixture(scope="module")
def plugin_run(project: Path, mypy_cache: Path) -> MypyRun:
    args = ["--config-file", str(project), "--cache-dir", str(mypy_cache), *map(str, FILES)]
    return run_mypy(args, cwd=project.parent)


@pytest.fixture(scope="module")
def cli_findings(project: Path, mypy_cache_dir: Path) -> list[dict[str, object]]:
    # loomlint's own build uses the session cache of the other CLI runs (the preset fixtures
    # analyse the same SDKs), not the plugin run's: a cache written with the plugin loaded
    # is one mypy re-analyses without it, and the reverse.
    previous = Path.cwd()
    os.chdir(REPO)
    try:
        result = CliRunner().invoke(
            main,
            [
                "check",
                "--format",
                "json",
                "--no-cache",
                "--config",
                str(project),
                *(path.relative_to(REPO).as_posix() for path in FILES),
            ],
        )
    finally:
        os.chdir(previous)
    assert result.exit_code == 1, result.output + result.stderr
    assert "precision is reduced" not in result.stderr
    findings: list[dict[str, object]] = json.loads(result.stdout)
    return findings


def _plugin_findings(run: MypyRun) -> list[tuple[Finding, str]]:
    rules = _rules_by_mypy_code()
    return [
        ((str(error.path.resolve()), error.line, rules[error.code]), error.message)
        for error in run.errors
        if error.code in rules
    ]


@pytest.mark.slow
def test_the_cli_reports_every_finding_of_the_plugin(
    plugin_run: MypyRun, cli_findings: list[dict[str, object]]
) -> None:
    assert "INTERNAL ERROR" not in plugin_run.stdout + plugin_run.stderr
    cli = {
        (str((REPO / str(d["path"])).resolve()), int(str(d["line"])), str(d["code"]))
        for d in cli_findings
    }
    plugin = _plugin_findings(plugin_run)
    assert plugin, plugin_run.stdout  # the fixtures hold plugin findings: the test has teeth
    missing = [
        f"{Path(path).relative_to(REPO)}:{line}: the plugin reports {sorted(rules)} "
        f"({message}), loomlint check does not"
        for (path, line, rules), message in plugin
        if not any((path, line, rule) in cli for rule in rules)
    ]
    assert not missing, "\n".join(missing)
