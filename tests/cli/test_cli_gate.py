"""`loomlint check` as a CI gate, against a fake runner: --baseline, --write-baseline, --diff,
and the progress line."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_runner import FakeRunner

from loomlint.cli import main
from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.fingerprint import finding_fingerprint
from loomlint.run import progress as progress_module

Project = Callable[..., Path]

HEADER = "from loomlint.content import LlmMessage\n\n\ndef f(m: LlmMessage) -> str:\n"
RETURN = "    return str(m.content)\n"
FSTRING = '    x = f"{m.content}"\n'


def check(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.stdout, result.stderr


def coercion(line: int, path: str = "app.py") -> Diagnostic:
    return Diagnostic(
        path, line, 12, line, 21, "LML003", "content-coercion", f"coerced (line {line})"
    )


# --- baseline ----------------------------------------------------------------------------------


def test_baseline_survives_line_shifts_and_reports_only_new_findings(
    project: Project, fake_runner: FakeRunner
) -> None:
    root = project("app.py=" + HEADER + RETURN, "other.py=x = 1\n")
    fake_runner.findings = [coercion(5)]
    assert check("--write-baseline", "baseline.json") == (
        0,
        "",
        "Wrote 1 finding in 1 file to the baseline 'baseline.json'.\n",
    )
    fingerprint = finding_fingerprint("app.py", "LML003", "return str(m.content)")
    assert json.loads((root / "baseline.json").read_text(encoding="utf-8")) == {
        "version": 1,
        "tool": "loomlint",
        "findings": [{"path": "app.py", "code": "LML003", "fingerprint": fingerprint, "count": 1}],
    }
    assert check("--baseline", "baseline.json") == (
        0,
        "All checks passed.\n",
        "note: 1 finding recorded in the baseline is not shown\n",
    )

    # Three lines inserted above the finding, and the block re-indented: still known.
    (root / "app.py").write_text(
        "import os\nimport sys\n\n" + HEADER + "  " + RETURN, encoding="utf-8"
    )
    fake_runner.findings = [coercion(8)]
    assert check("--baseline", "baseline.json", "-q") == (0, "", "")

    # A new bad line: exactly that one is reported, and it alone sets the exit code.
    (root / "app.py").write_text(
        "import os\nimport sys\n\n" + HEADER + FSTRING + RETURN, encoding="utf-8"
    )
    fake_runner.findings = [coercion(8), coercion(9)]
    assert check("--baseline", "baseline.json") == (
        1,
        "app.py:8:12: LML003 coerced (line 8)\nFound 1 finding.\n",
        "note: 1 finding recorded in the baseline is not shown\n",
    )

    # A second copy of a recorded line is a new finding too (the baseline counts).
    (root / "app.py").write_text(HEADER + RETURN + RETURN, encoding="utf-8")
    fake_runner.findings = [coercion(5), coercion(6)]
    assert check("--baseline", "baseline.json", "--format", "json")[:2] == (
        1,
        json.dumps(
            [
                {
                    "path": "app.py",
                    "line": 6,
                    "column": 12,
                    "end_line": 6,
                    "end_column": 21,
                    "code": "LML003",
                    "name": "content-coercion",
                    "message": "coerced (line 6)",
                    "fix": None,
                }
            ],
            indent=2,
        )
        + "\n",
    )


def test_fixed_findings_are_pointed_out(project: Project, fake_runner: FakeRunner) -> None:
    root = project("app.py=" + HEADER + RETURN + FSTRING, "pkg/b.py=" + HEADER + RETURN)
    fake_runner.findings = [coercion(5), coercion(6), coercion(5, "pkg/b.py")]
    assert check("--write-baseline", "base.json") == (
        0,
        "",
        "Wrote 3 findings in 2 files to the baseline 'base.json'.\n",
    )
    (root / "app.py").write_text(HEADER + RETURN, encoding="utf-8")
    fake_runner.findings = [coercion(5), coercion(5, "pkg/b.py")]
    assert check("--baseline", "base.json") == (
        0,
        "All checks passed.\n",
        "note: 2 findings recorded in the baseline are not shown\n"
        "note: 1 finding recorded in the baseline no longer occurs; "
        "`loomlint check --write-baseline base.json` records the current findings\n",
    )
    # Files or codes left out of a run are not "fixed".
    assert check("--baseline", "base.json", "app.py")[2] == (
        "note: 1 finding recorded in the baseline is not shown\n"
        "note: 1 finding recorded in the baseline no longer occurs; "
        "`loomlint check --write-baseline base.json` records the current findings\n"
    )
    fake_runner.findings = []
    assert check("--baseline", "base.json", "--select", "LML001") == (
        0,
        "All checks passed.\n",
        "",
    )


def test_baseline_paths_are_relative_to_the_project_root(
    project: Project, fake_runner: FakeRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project("pyproject.toml=[tool.loomlint]\n", "pkg/mod.py=" + HEADER + RETURN)
    fake_runner.findings = [coercion(5, "pkg/mod.py")]
    assert check("--write-baseline", "baseline.json")[0] == 0
    monkeypatch.chdir(root / "pkg")
    fake_runner.findings = [coercion(5, "mod.py")]
    assert check("--baseline", "../baseline.json", "-q") == (0, "", "")
    assert (
        json.loads((root / "baseline.json").read_text(encoding="utf-8"))["findings"][0]["path"]
        == "pkg/mod.py"
    )


def test_write_baseline_with_no_findings_and_with_analysis_failures(
    project: Project, fake_runner: FakeRunner
) -> None:
    root = project("app.py=x = (\n")
    assert check("--write-baseline", "b.json") == (
        0,
        "",
        "Wrote 0 findings in 0 files to the baseline 'b.json'.\n",
    )
    assert json.loads((root / "b.json").read_text(encoding="utf-8"))["findings"] == []
    fake_runner.findings = [Diagnostic("app.py", 1, 5, 1, 6, "LML901", "syntax-error", "bad")]
    assert check("--write-baseline", "b.json") == (
        0,
        "",
        "warning: 1 file could not be analysed (LML901); the baseline records the "
        "failure, not the findings such a file may hold\n"
        "Wrote 1 finding in 1 file to the baseline 'b.json'.\n",
    )
    assert check("--write-baseline", "b.json", "--quiet") == (0, "", "")
    assert check("--baseline", "b.json", "-q") == (0, "", "")


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (None, "cannot read the file: No such file or directory"),
        (
            "{",
            "not valid JSON: Expecting property name enclosed in double quotes (line 1, column 2)",
        ),
        ('{"version": 9, "findings": []}', "unsupported version 9 (this loomlint reads version 1)"),
    ],
)
def test_a_missing_or_corrupt_baseline_exits_2_before_checking(
    project: Project, fake_runner: FakeRunner, content: str | None, problem: str
) -> None:
    project("app.py", *([f"baseline.json={content}"] if content is not None else []))
    hint = (
        ""
        if content is None
        else (" (write a new one with `loomlint check --write-baseline FILE`)")
    )
    assert check("--baseline", "baseline.json") == (
        2,
        "",
        f"error: baseline 'baseline.json': {problem}{hint}\n",
    )
    assert fake_runner.calls == []


def test_an_unwritable_baseline_exits_2(project: Project, fake_runner: FakeRunner) -> None:
    project("app.py")
    assert check("--write-baseline", "no/such/folder/b.json") == (
        2,
        "",
        "error: baseline 'no/such/folder/b.json': cannot write the file: "
        "No such file or directory\n",
    )


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["--baseline", "b.json"], "--baseline"),
        (["--diff", "HEAD"], "--diff"),
        (["--statistics"], "--statistics"),
        (["-o", "report.txt"], "--output-file"),
    ],
)
def test_write_baseline_refuses_options_that_make_no_sense_with_it(
    project: Project, fake_runner: FakeRunner, args: list[str], option: str
) -> None:
    project("app.py")
    assert check("--write-baseline", "w.json", *args) == (
        2,
        "",
        "error: --write-baseline records every finding and writes no report; "
        f"it cannot be combined with {option}\n",
    )
    assert fake_runner.calls == []


# --- --diff ------------------------------------------------------------------------------------


@pytest.fixture
def git_project(
    project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Callable[..., Path]:
    config = tmp_path_factory.mktemp("git") / "gitconfig"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.invalid")

    def make(*entries: str) -> Path:
        root = project(*entries)
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
            subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
        return root

    return make


def test_diff_reports_only_changed_lines(
    git_project: Callable[..., Path], fake_runner: FakeRunner
) -> None:
    root = git_project("app.py=" + HEADER + RETURN, "old.py=" + HEADER + RETURN)
    (root / "app.py").write_text(HEADER + RETURN + FSTRING, encoding="utf-8")
    (root / "new.py").write_text(HEADER + RETURN, encoding="utf-8")
    fake_runner.findings = [coercion(5), coercion(6), coercion(5, "old.py"), coercion(5, "new.py")]
    assert check("--diff", "HEAD") == (
        1,
        "app.py:6:12: LML003 coerced (line 6)\n"
        "new.py:5:12: LML003 coerced (line 5)\n"
        "Found 2 findings.\n",
        "note: 2 findings outside the lines changed since HEAD are not shown\n",
    )
    assert check("--diff", "HEAD", "old.py", "-q") == (0, "", "")


def test_diff_and_baseline_together(
    git_project: Callable[..., Path], fake_runner: FakeRunner
) -> None:
    root = git_project("app.py=" + HEADER + RETURN)
    fake_runner.findings = [coercion(5)]
    assert check("--write-baseline", "b.json", "-q") == (0, "", "")
    (root / "app.py").write_text(HEADER + FSTRING + RETURN + FSTRING, encoding="utf-8")
    fake_runner.findings = [coercion(5), coercion(6), coercion(7)]
    assert check("--diff", "HEAD", "--baseline", "b.json", "-q") == (
        1,
        "app.py:5:12: LML003 coerced (line 5)\napp.py:7:12: LML003 coerced (line 7)\n",
        "",
    )


def test_diff_errors_exit_2_before_checking(
    git_project: Callable[..., Path], fake_runner: FakeRunner, tmp_path: Path
) -> None:
    root = git_project("app.py=x = 1\n")
    assert check("--diff", "no-such-branch") == (
        2,
        "",
        f"error: --diff: unknown revision 'no-such-branch' in the git repository at "
        f"{root.resolve().as_posix()} (in a shallow clone, fetch it first, e.g. "
        "`git fetch origin main`)\n",
    )
    assert fake_runner.calls == []


def test_diff_outside_a_repository(
    project: Project, fake_runner: FakeRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = project("app.py=x = 1\n")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(root.parent))
    assert check("--diff", "HEAD") == (
        2,
        "",
        f"error: --diff: '{root.as_posix()}' is not inside a git repository "
        "(--diff compares with a git revision)\n",
    )
    assert fake_runner.calls == []


# --- progress ----------------------------------------------------------------------------------


def test_progress_is_shown_on_a_terminal_only(
    project: Project, fake_runner: FakeRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    project("a.py", "b.py")
    assert check() == (0, "All checks passed.\n", "")
    assert fake_runner.progress_given == [False]

    monkeypatch.setattr(progress_module, "is_terminal", lambda stream: True)
    monkeypatch.setattr(progress_module.ProgressDisplay, "DEFAULT_INTERVAL", 3600.0)
    exit_code, stdout, stderr = check()
    assert (exit_code, stdout) == (0, "All checks passed.\n")
    # 1/2 comes too soon after 0/2 to be drawn; the last file always is; then it is erased.
    assert stderr == ("\rChecking 0/2 files...\rChecking 2/2 files...\r" + " " * 21 + "\r")
    assert fake_runner.progress_given == [False, True]

    assert check("--quiet") == (0, "", "")
    assert fake_runner.progress_given == [False, True, False]


def test_progress_is_erased_before_notes(
    project: Project, fake_runner: FakeRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    project("a.py")
    fake_runner.notes = ["checked without types"]
    monkeypatch.setattr(progress_module, "is_terminal", lambda stream: True)
    assert check()[2] == (
        "\rChecking 0/1 file...\rChecking 1/1 file...\r" + " " * 20 + "\r"
        "note: checked without types\n"
    )
