"""Ruff's conventions on `loomlint check`, against a fake runner: --exit-zero, --extend-select /
--extend-ignore, --shard, and the gitlab and junit formats."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_runner import FakeRunner

from loomlint.cli import main
from loomlint.engine.diagnostics import Diagnostic

Project = Callable[..., Path]

COERCION = Diagnostic(
    "app.py", 2, 7, 2, 21, "LML003", "content-coercion", "content of `m` is coerced by str()"
)


def check(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.stdout, result.stderr


def test_exit_zero_turns_findings_into_0_but_not_errors(
    project: Project, fake_runner: FakeRunner
) -> None:
    project("app.py=x = 1\nprint(str(m.content))\n")
    fake_runner.findings = [COERCION]
    report = "app.py:2:7: LML003 content of `m` is coerced by str()\nFound 1 finding.\n"
    assert check("--exit-zero") == (0, report, "")
    assert check() == (1, report, "")
    syntax = Diagnostic("app.py", 1, 1, 1, 2, "LML901", "syntax-error", "cannot parse")
    fake_runner.findings = [syntax]
    assert check("--exit-zero")[0] == 2
    assert check("--exit-zero", "--select", "LML0x") == (
        2,
        "",
        "error: --select: unknown rule code 'LML0x' (known: LML001, LML002, LML003, LML004, "
        "LML005, LML006, LML100, LML901, LML902, LML903, LML904, LML905)\n",
    )


def test_extend_select_and_extend_ignore_on_the_command_line(
    project: Project, fake_runner: FakeRunner
) -> None:
    project('pyproject.toml=[tool.loomlint]\nselect = ["LML001"]\n', "app.py")
    assert check("--extend-select", "LML003,LML004")[0] == 0
    assert fake_runner.settings.enabled_codes >= {"LML001", "LML003", "LML004"}
    assert "LML002" not in fake_runner.settings.enabled_codes
    assert check("--extend-select", "LML003", "--extend-ignore", "LML001")[0] == 0
    assert {"LML001", "LML002"}.isdisjoint(fake_runner.settings.enabled_codes)
    assert "LML003" in fake_runner.settings.enabled_codes
    assert check("--extend-ignore", "LML9")[0] == 0
    assert fake_runner.settings.enabled_codes == {"LML001"}


def test_shards_split_the_files_stably(project: Project, fake_runner: FakeRunner) -> None:
    names = [f"pkg/m{n:02}.py" for n in range(20)]
    project(*names)
    parts: list[list[str]] = []
    for index in (1, 2, 3):
        code, stdout, stderr = check("--shard", f"{index}/3")
        assert (code, stdout) == (0, "All checks passed.\n")
        parts.append(fake_runner.files)
        assert stderr == f"note: shard {index}/3: checking {len(parts[-1])} files of 20\n"
    assert sorted(f for part in parts for f in part) == names
    assert all(part for part in parts)
    # Adding files moves none of the others, and the same shard from another folder is the same.
    project("pkg/new_a.py", "pkg/new_b.py", "zzz.py")
    check("--shard", "2/3")
    assert [f for f in fake_runner.files if f in names] == parts[1]
    check("--shard", "2/3", "pkg")
    assert [f for f in fake_runner.files if f in names] == parts[1]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0/3", "--shard: K must be between 1 and N, got '0/3'"),
        ("4/3", "--shard: K must be between 1 and N, got '4/3'"),
        ("2", "--shard: expected K/N (e.g. 2/4), got '2'"),
        ("a/b", "--shard: expected K/N (e.g. 2/4), got 'a/b'"),
    ],
)
def test_bad_shards_are_usage_errors(
    project: Project, fake_runner: FakeRunner, value: str, message: str
) -> None:
    project("app.py")
    assert check("--shard", value) == (2, "", f"error: {message}\n")
    assert fake_runner.calls == []


def test_gitlab_and_junit_formats(project: Project, fake_runner: FakeRunner) -> None:
    root = project("app.py=x = 1\nprint(str(m.content))\n")
    fake_runner.findings = [COERCION]
    code, stdout, _ = check("--format", "gitlab", "--output-file", "gl-code-quality.json")
    assert (code, stdout) == (1, "")
    report = json.loads((root / "gl-code-quality.json").read_text(encoding="utf-8"))
    assert [(i["check_name"], i["location"]) for i in report] == [
        ("LML003", {"path": "app.py", "lines": {"begin": 2, "end": 2}})
    ]
    code, stdout, _ = check("--format", "junit")
    assert code == 1
    assert stdout.splitlines()[1:3] == [
        '<testsuites name="loomlint" tests="1" failures="1" errors="0">',
        '  <testsuite name="app.py" tests="1" failures="1" errors="0">',
    ]
