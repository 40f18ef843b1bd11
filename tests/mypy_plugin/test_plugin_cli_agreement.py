"""One judge: on every fixture, mypy with the plugin reports exactly the typed findings of
``loomlint check`` (same file, line, column and message; the rule's mypy code), with every
preset active at once. The same under mypy's daemon (``dmypy run``).

Both run for real over the same files and the same ``[tool.loomlint]``: mypy (with
``plugins = ["loomlint.mypy_plugin"]``, parsing in its second process; under ``dmypy``, in
its own) and ``loomlint check`` (in-process, with types). A
finding either front end lacks fails the test, named. The one difference is mypy's own rule:
a bare ``# type: ignore`` silences every mypy error on its line, the plugin's included, while
``loomlint check`` does not take it as a loomlint suppression (docs/index.md says why); those
lines are listed here, and checked to be exactly the bare ignores of the fixtures.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from mypy_caches import only_its_configuration
from mypy_runs import OUTPUT_FLAGS, REPO, Reported, parse_errors, write_project

from loomlint.catalog.rules import load_catalog
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
# Every preset, the reference SPI first: the advice must still be each receiver's own. The
# opt-in LML004 is selected, so that both front ends are compared on casts too.
PRESETS = (
    'preset = ["loom", "langchain", "openai", "anthropic", "pydantic-ai"]\n'
    'extend-select = ["LML004", "LML006"]\n'
)
# Lines of the fixtures with a bare `# type: ignore` on a finding: mypy silences them.
MYPY_SILENCES = {("fixtures/mypy_plugin/plugin_suppressed.py", 14)}
# A module whose errors mypy ignores (`# mypy: ignore-errors`): mypy prints none of them, the
# plugin's findings included, where loomlint check reports what the module's code holds.
MYPY_IGNORES = {"fixtures/analysis/ignored_errors_guesses.py"}
_BARE_IGNORE = re.compile(r"#\s*type:\s*ignore\s*(?:#.*)?$")

# (path relative to the repository, line, column, mypy code, message)
Finding = tuple[str, int, int, str, str]


def _mypy_codes() -> dict[str, str]:
    return {
        rule.code: rule.mypy_code
        for rule in load_catalog().rules.values()
        if rule.mypy_code is not None
    }


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("agreement")
    return write_project(root, loomlint=PRESETS)


@pytest.fixture(scope="module")
def cli_findings(project: Path, repo_mypy_cache: Path) -> Counter[Finding]:
    # Run from the repository, `loomlint check` builds with the repository's own [tool.mypy]
    # (`--config` names only loomlint's table): the worker's cache of that configuration
    # (``repo_mypy_cache``) is the one whose SDKs it finds built. The project's (the plugin's)
    # would be stale for all of them: a cold build of the SDKs, some 35 CPU-seconds.
    with only_its_configuration(repo_mypy_cache) as patch:
        patch.chdir(REPO)
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
    assert result.exit_code == 1, result.output + result.stderr
    assert "precision is reduced" not in result.stderr
    mypy_codes = _mypy_codes()
    return Counter(
        (str(d["path"]), int(d["line"]), int(d["column"]), mypy_codes[d["code"]], d["message"])
        for d in json.loads(result.stdout)
        if d["code"] in mypy_codes
    )


def _plugin_findings(errors: tuple[Reported, ...]) -> Counter[Finding]:
    loom_codes = set(_mypy_codes().values())
    found: Counter[Finding] = Counter()
    for error in errors:
        if error.code in loom_codes:
            assert error.column is not None, error
            path = error.path.resolve().relative_to(REPO).as_posix()
            found[(path, error.line, error.column, error.code, error.message)] += 1
    return found


def _differences(plugin: Counter[Finding], cli: Counter[Finding]) -> list[str]:
    expected = Counter(
        {
            f: n
            for f, n in cli.items()
            if (f[0], f[1]) not in MYPY_SILENCES and f[0] not in MYPY_IGNORES
        }
    )
    only_plugin = plugin - expected
    only_cli = expected - plugin
    return [
        *(f"{p}:{line}:{col}: only the plugin reports [{code}] {msg}" for p, line, col, code, msg
          in sorted(only_plugin)),
        *(f"{p}:{line}:{col}: only loomlint check reports [{code}] {msg}" for p, line, col, code,
          msg in sorted(only_cli)),
    ]  # fmt: skip


def test_the_lines_mypy_silences_are_the_fixtures_bare_ignores() -> None:
    # A comment line of its own before a module's first statement (skipped_file_guesses.py's)
    # is no finding's line: it makes mypy skip the whole file, which the fixture is about.
    bare = {
        (path.relative_to(REPO).as_posix(), number)
        for path in FILES
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if _BARE_IGNORE.search(text) and not (number == 1 and text.startswith("#"))
    }
    assert bare == MYPY_SILENCES


# mypy's own entry point, with the plugin parsing and judging in its second process however
# small the run (``worker.START_BYTES``; dmypy, below, judges in its own process: the fixtures
# are below the worker's threshold).
_MYPY_PARSING_IN_THE_WORKER = """\
from loomlint.mypy_plugin import worker

worker.START_BYTES = 0

from mypy.__main__ import console_entry

console_entry()
"""


def _mypy_args(project: Path, cache: Path) -> list[str]:
    return [
        "--show-column-numbers",
        "--config-file",
        str(project),
        "--cache-dir",
        str(cache),
        *(path.relative_to(REPO).as_posix() for path in FILES),
    ]


@pytest.mark.slow
def test_mypy_with_the_plugin_reports_exactly_loomlint_checks_findings(
    project: Path, sdk_mypy_cache: Path, cli_findings: Counter[Finding]
) -> None:
    # mypy in a process of its own, as a user runs it: it ends without collecting the SDKs'
    # symbol tables it loaded (in this process, their collection cost ten CPU-seconds).
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            _MYPY_PARSING_IN_THE_WORKER,
            *OUTPUT_FLAGS,
            *_mypy_args(project, sdk_mypy_cache),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert "INTERNAL ERROR" not in run.stdout + run.stderr, run.stdout + run.stderr
    assert run.returncode == 1, run.stdout + run.stderr
    plugin = _plugin_findings(parse_errors(run.stdout))
    # The fixtures hold findings of every content rule's code, and lines mypy silences: the
    # test has teeth.
    assert {code for _, _, _, code, _ in cli_findings} >= {
        "loom-content-use",
        "loom-content-coercion",
        "loom-content-cast",
    }
    assert {(f[0], f[1]) for f in cli_findings} >= MYPY_SILENCES
    assert {f[0] for f in cli_findings} >= MYPY_IGNORES
    assert not [f for f in plugin if f[0] in MYPY_IGNORES]
    assert _differences(plugin, cli_findings) == []


@pytest.mark.slow
def test_dmypy_run_with_the_plugin_reports_exactly_loomlint_checks_findings(
    project: Path, tmp_path: Path, cli_findings: Counter[Finding]
) -> None:
    dmypy = [sys.executable, "-m", "mypy.dmypy", "--status-file", str(tmp_path / "dmypy.json")]
    run = [*dmypy, "run", "--timeout", "300", "--", *OUTPUT_FLAGS]
    try:
        done = subprocess.run(
            [*run, *_mypy_args(project, tmp_path / "cache")],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 1, done.stdout + done.stderr
        assert _differences(_plugin_findings(parse_errors(done.stdout)), cli_findings) == []
    finally:
        subprocess.run([*dmypy, "stop"], cwd=REPO, capture_output=True, timeout=120, check=False)
