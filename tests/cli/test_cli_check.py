"""`loomlint check` against a fake runner: settings, discovery, output, exit codes, errors."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_runner import FakeRunner

from loomlint.cli import main
from loomlint.engine.diagnostics import Diagnostic, Edit, Fix

Project = Callable[..., Path]

COERCION = Diagnostic(
    "app.py",
    3,
    11,
    3,
    20,
    "LML003",
    "content-coercion",
    "content of `m` (read at line 3) is coerced to str by str(); use text_of(...)",
    Fix(
        "Wrap in text_of(...)",
        (Edit(3, 7, 3, 21, "text_of(m.content)"),),
        ("loomlint.content.text_of",),
    ),
)
USE = Diagnostic(
    "pkg/mod.py",
    7,
    5,
    7,
    14,
    "LML001",
    "unsafe-content-use",
    "content of `m` (read at line 6) is sliced; use text_of(...)",
)


def check(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.stdout, result.stderr


def test_clean_project(project: Project, fake_runner: FakeRunner) -> None:
    project("app.py", "pkg/mod.py", "README.md")
    assert check() == (0, "All checks passed.\n", "")
    assert fake_runner.files == ["app.py", "pkg/mod.py"]
    assert fake_runner.settings.types == "mypy"


def test_findings_exit_1(project: Project, fake_runner: FakeRunner) -> None:
    project("app.py", "pkg/mod.py")
    fake_runner.findings = [USE, COERCION]
    assert check() == (
        1,
        "app.py:3:11: LML003 [*] content of `m` (read at line 3) is coerced to str by str(); "
        "use text_of(...)\n"
        "pkg/mod.py:7:5: LML001 content of `m` (read at line 6) is sliced; use text_of(...)\n"
        "Found 2 findings (1 fixable with `loomlint fix`).\n",
        "",
    )


@pytest.mark.parametrize(
    ("code", "status"), [("LML901", 2), ("LML902", 2), ("LML903", 2), ("LML904", 1), ("LML905", 2)]
)
def test_analysis_failures_exit_2(
    project: Project, fake_runner: FakeRunner, code: str, status: int
) -> None:
    project("app.py")
    fake_runner.findings = [Diagnostic("app.py", 1, 1, 1, 2, code, "x", "could not analyse")]
    exit_code, stdout, _ = check()
    assert exit_code == status
    assert stdout == f"app.py:1:1: {code} could not analyse\nFound 1 finding.\n"


def test_named_paths_and_exclude(project: Project, fake_runner: FakeRunner) -> None:
    project(
        'pyproject.toml=[tool.loomlint]\nextend-exclude = ["gen_*.py"]\n',
        "a.py",
        "gen_b.py",
        "src/c.py",
        "src/d.py",
    )
    assert check("src/d.py", "gen_b.py", "a.py")[0] == 0
    assert fake_runner.files == ["a.py", "src/d.py"]


def test_missing_path_is_a_usage_error(project: Project, fake_runner: FakeRunner) -> None:
    project("a.py")
    assert check("a.py", "nope.py") == (2, "", "error: path 'nope.py' does not exist\n")
    assert fake_runner.calls == []


def test_no_python_files_warns(project: Project, fake_runner: FakeRunner) -> None:
    project("notes.txt")
    assert check() == (
        0,
        "All checks passed.\n",
        "warning: no Python files found under the given paths\n",
    )


def test_named_files_that_are_not_python_are_skipped_with_a_note(
    project: Project, fake_runner: FakeRunner
) -> None:
    root = project(
        "pyproject.toml=[project]\nname = 'x'\n",
        "app.py",
        "stubs.pyi",
        "bin/tool=#!/usr/bin/env python3\nprint(1)\n",
        "bin/run=#!/bin/sh\necho 1\n",
        "README=hello\n",
    )
    skipped = (
        "note: skipped '{}': not a Python file (loomlint checks .py and .pyi files, and files "
        "without a suffix whose first line is a python shebang)\n"
    )
    assert check("pyproject.toml", "app.py", "stubs.pyi", "bin/tool", "bin/run", "README") == (
        0,
        "All checks passed.\n",
        "".join(skipped.format(name) for name in ("pyproject.toml", "bin/run", "README")),
    )
    assert fake_runner.files == ["app.py", "bin/tool", "stubs.pyi"]
    assert check("pyproject.toml") == (
        0,
        "All checks passed.\n",
        skipped.format("pyproject.toml") + "warning: no Python files found under the given paths\n",
    )
    assert (root / "pyproject.toml").read_text(encoding="utf-8") == "[project]\nname = 'x'\n"


def test_notes_go_to_stderr_once_each(project: Project, fake_runner: FakeRunner) -> None:
    project("a.py")
    fake_runner.notes = [
        "types unavailable; precision reduced",
        "x",
        "types unavailable; precision reduced",
    ]
    assert check() == (
        0,
        "All checks passed.\n",
        "note: types unavailable; precision reduced\nnote: x\n",
    )


UNRESOLVED = "mypy could not find langchain_core.messages, ...; install it where loomlint runs"


def test_run_warnings_are_said_even_under_quiet_and_carried_by_reports(
    project: Project, fake_runner: FakeRunner
) -> None:
    project("app.py")
    fake_runner.warnings = [UNRESOLVED]
    fake_runner.findings = [COERCION]
    code, out, err = check("-q")
    assert (code, err) == (1, f"warning: {UNRESOLVED}\n")
    assert out.startswith("app.py:3:11: LML003 [*] ")
    code, out, err = check("--format", "github")
    assert (code, err) == (1, f"warning: {UNRESOLVED}\n")
    assert out.splitlines()[0] == f"::warning title=loomlint::{UNRESOLVED}"
    assert out.splitlines()[1].startswith("::error file=app.py,line=3,col=11,")
    code, out, _ = check("--format", "sarif")
    assert json.loads(out)["runs"][0]["invocations"] == [
        {
            "executionSuccessful": True,
            "toolExecutionNotifications": [{"level": "warning", "message": {"text": UNRESOLVED}}],
        }
    ]
    # JSON stays an array of findings: the warning is on stderr only.
    code, out, err = check("--format", "json")
    assert [d["code"] for d in json.loads(out)] == ["LML003"]
    assert err == f"warning: {UNRESOLVED}\n"


def test_quiet(project: Project, fake_runner: FakeRunner) -> None:
    project("app.py", "notes.txt")
    fake_runner.notes = ["types unavailable; precision reduced"]
    assert check("-q") == (0, "", "")
    fake_runner.findings = [COERCION]
    exit_code, stdout, stderr = check("--quiet")
    assert (exit_code, stderr) == (1, "")
    assert stdout.count("\n") == 1 and stdout.startswith("app.py:3:11: LML003 [*] ")


def test_statistics(project: Project, fake_runner: FakeRunner) -> None:
    project("app.py", "pkg/mod.py")
    fake_runner.findings = [USE, COERCION, COERCION]
    assert check("--statistics") == (
        1,
        "2  LML003  [*] content-coercion\n"
        "1  LML001  [ ] unsafe-content-use\n"
        "Found 3 findings (2 fixable with `loomlint fix`).\n",
        "",
    )
    _, stdout, _ = check("--statistics", "--format", "json")
    assert json.loads(stdout)[0] == {
        "code": "LML003",
        "name": "content-coercion",
        "count": 2,
        "fixable": 2,
    }
    # A machine format stays whole on stdout; the counts go to stderr.
    for output_format in ("sarif", "github"):
        exit_code, stdout, stderr = check("--statistics", "--format", output_format)
        assert (exit_code, stdout) == check("--format", output_format)[:2]
        assert stderr == (
            "2  LML003  [*] content-coercion\n"
            "1  LML001  [ ] unsafe-content-use\n"
            "Found 3 findings (2 fixable with `loomlint fix`).\n"
        )
    assert check("--statistics", "--format", "github", "--quiet")[2] == (
        "2  LML003  [*] content-coercion\n1  LML001  [ ] unsafe-content-use\n"
    )


def test_formats(project: Project, fake_runner: FakeRunner) -> None:
    root = project("app.py=import x\nx\nprint(str(m.content))\n", "pkg/mod.py")
    fake_runner.findings = [COERCION, USE]
    exit_code, stdout, _ = check("--format", "json")
    assert exit_code == 1
    assert [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(stdout)] == [
        ("app.py", 3, 11, "LML003"),
        ("pkg/mod.py", 7, 5, "LML001"),
    ]
    exit_code, stdout, _ = check("--format", "sarif")
    run = json.loads(stdout)["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == root.as_uri() + "/"
    assert [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    ] == [
        "app.py",
        "pkg/mod.py",
    ]
    exit_code, stdout, _ = check("--format", "github")
    assert stdout.splitlines()[1] == (
        "::error file=pkg/mod.py,line=7,col=5,endLine=7,endColumn=14,"
        "title=LML001 unsafe-content-use"
        "::content of `m` (read at line 6) is sliced; use text_of(...)"
    )


def test_sarif_uris_are_relative_to_the_project_root(
    project: Project, fake_runner: FakeRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project("pyproject.toml=[tool.loomlint]\n", "pkg/mod.py")
    monkeypatch.chdir(root / "pkg")
    fake_runner.findings = [Diagnostic("mod.py", 1, 1, 1, 2, "LML001", "unsafe-content-use", "m")]
    exit_code, stdout, _ = check("--format", "sarif")
    assert exit_code == 1
    location = json.loads(stdout)["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "pkg/mod.py"


def test_output_file(project: Project, fake_runner: FakeRunner, tmp_path: Path) -> None:
    project("app.py")
    fake_runner.findings = [COERCION]
    exit_code, stdout, stderr = check("--format", "json", "--output-file", "out/report.json")
    assert (exit_code, stdout, stderr) == (
        2,
        "",
        "error: cannot write 'out/report.json': No such file or directory\n",
    )
    exit_code, stdout, stderr = check("--format", "json", "-o", "report.json")
    assert (exit_code, stdout, stderr) == (1, "", "")
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))[0]["code"] == "LML003"


def test_an_output_file_that_is_a_fifo_stays_one_and_gets_the_report(
    project: Project, fake_runner: FakeRunner, tmp_path: Path
) -> None:
    # As /dev/null or /dev/stdout would: a rename over it would leave a regular file there.
    project("app.py")
    fake_runner.findings = [COERCION]
    fifo = tmp_path / "report.pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        exit_code, stdout, stderr = check("--format", "json", "--output-file", str(fifo))
        received = b""
        while chunk := os.read(reader, 65536):
            received += chunk
    finally:
        os.close(reader)
    assert (exit_code, stdout, stderr) == (1, "", "")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(received)[0]["code"] == "LML003"


def test_an_output_file_named_by_a_link_is_written_where_the_link_points(
    project: Project, fake_runner: FakeRunner, tmp_path: Path
) -> None:
    project("app.py")
    fake_runner.findings = [COERCION]
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "last.json").write_text("[]", encoding="utf-8")
    (tmp_path / "report.json").symlink_to("reports/last.json")
    exit_code, stdout, stderr = check("--format", "json", "--output-file", "report.json")
    assert (exit_code, stdout, stderr) == (1, "", "")
    assert os.readlink(tmp_path / "report.json") == "reports/last.json"
    written = (tmp_path / "reports" / "last.json").read_text(encoding="utf-8")
    assert json.loads(written)[0]["code"] == "LML003"


def test_select_ignore_preset_types_overrides(project: Project, fake_runner: FakeRunner) -> None:
    project('pyproject.toml=[tool.loomlint]\nselect = ["LML001"]\n', "a.py")
    assert (
        check("--select", "LML003,lml004", "--select", "LML002", "--ignore", "LML004 , LML9")[0]
        == 0
    )
    settings = fake_runner.settings
    assert settings.select == frozenset({"LML003", "LML004", "LML002"})
    assert settings.enabled_codes == {"LML002", "LML003"}
    assert check("--no-types", "--preset", "loom", "--report-unused-suppressions")[0] == 0
    settings = fake_runner.settings
    assert (settings.types, settings.report_unused_suppressions) == ("none", True)
    assert settings.enabled_codes == {
        "LML001",
        "LML100",
        "LML901",
        "LML902",
        "LML903",
        "LML904",
        "LML905",
    }
    check()
    assert fake_runner.settings.report_unused_suppressions is False


def test_config_option(project: Project, fake_runner: FakeRunner) -> None:
    project("ci/loomlint.toml=types = 'none'\n", "a.py")
    assert check("--config", "ci/loomlint.toml", ".")[0] == 0
    assert fake_runner.settings.types == "none"


@pytest.mark.parametrize(
    ("args", "files", "stderr"),
    [
        (
            ["--select", "LML999"],
            [],
            "error: --select: unknown rule code 'LML999' (known: LML001, "
            "LML002, LML003, LML004, LML005, LML006, LML100, LML901, LML902, LML903, LML904, "
            "LML905)\n",
        ),
        (
            ["--preset", "langchan"],
            [],
            "error: --preset: unknown preset 'langchan' "
            "(available: anthropic, bedrock, cohere, langchain, loom, mcp, openai, pydantic-ai, "
            "semantic-kernel)\n",
        ),
        (
            [],
            ["pyproject.toml=[tool.loomlint]\nselcet = []\n"],
            "error: pyproject.toml: [tool.loomlint] unknown key 'selcet' "
            "(did you mean 'select'?)\n",
        ),
        (
            [],
            ["pyproject.toml=[tool.loomlint\n"],
            "error: pyproject.toml: invalid TOML: Expected ']' at the end of a table declaration "
            "(at line 1, column 15)\n",
        ),
        (
            ["--config", "missing.toml"],
            [],
            "error: missing.toml: cannot read the file: No such file or directory\n",
        ),
    ],
)
def test_configuration_errors_exit_2(
    project: Project, fake_runner: FakeRunner, args: list[str], files: list[str], stderr: str
) -> None:
    project("a.py", *files)
    assert check(*args) == (2, "", stderr)
    assert fake_runner.calls == []


def test_usage_errors_exit_2(project: Project, fake_runner: FakeRunner) -> None:
    project("a.py")
    exit_code, _, stderr = check("--format", "xml")
    assert exit_code == 2
    assert "Invalid value for '--format'" in stderr


def test_internal_error_without_traceback(project: Project, fake_runner: FakeRunner) -> None:
    project("a.py")
    fake_runner.error = RuntimeError("boom")
    assert check() == (
        2,
        "",
        "error: internal error: RuntimeError: boom (run with --debug for the traceback)\n",
    )


def test_internal_error_with_debug_shows_the_traceback(
    project: Project, fake_runner: FakeRunner
) -> None:
    project("a.py")
    fake_runner.error = RuntimeError("boom")
    exit_code, stdout, stderr = check("--debug")
    assert (exit_code, stdout) == (2, "")
    assert stderr.startswith("Traceback (most recent call last):\n")
    assert stderr.endswith("RuntimeError: boom\nerror: internal error: RuntimeError: boom\n")


def test_missing_runner_is_an_internal_error(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    project("a.py")
    monkeypatch.setitem(sys.modules, "loomlint.run.runner", None)
    exit_code, stdout, stderr = check()
    assert (exit_code, stdout) == (2, "")
    assert stderr.startswith("error: internal error: ModuleNotFoundError: ")
