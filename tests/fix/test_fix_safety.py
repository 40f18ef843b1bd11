"""`loomlint fix` never writes the wrong thing or a partial file, and its exit code can be trusted.

Each test drives the real CLI: in-process where the test must act between the analysis and the
writing (an edit, a deletion), in a subprocess where the failure is the operating system's (a
file size limit standing in for a full disk, two concurrent runs).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import loomlint.fix.files
import loomlint.run.runner
from loomlint.cli import main
from loomlint.fix.edits import FixOutcome
from loomlint.project.config import Settings

BEFORE = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage


    def report(m: LlmMessage) -> str:
        return "said: " + m.content
    """
)
AFTER = BEFORE.replace("import LlmMessage", "import LlmMessage, text_of").replace(
    '"said: " + m.content', '"said: " + text_of(m.content)'
)
NOTE = "note: checking without types (--no-types): precision is reduced\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "loomlint.toml").write_text("")
    monkeypatch.chdir(root)
    return root


def _fix(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["fix", "--no-types", "--no-cache", *args])
    return result.exit_code, result.stdout, result.stderr


def _after_analysis(monkeypatch: pytest.MonkeyPatch, act: Callable[[], None]) -> list[Settings]:
    """Run ``act`` once, after the first analysis and before anything is written; the
    settings of each analysis (filled in as they run)."""
    real = loomlint.run.runner.run_check
    calls: list[Settings] = []

    def run_check(*args: object, **kwargs: object) -> loomlint.run.runner.RunResult:
        result = real(*args, **kwargs)  # type: ignore[arg-type]
        if not calls:
            act()
        assert isinstance(args[1], Settings)
        calls.append(args[1])
        return result

    monkeypatch.setattr(loomlint.run.runner, "run_check", run_check)
    return calls


def test_a_file_edited_after_its_analysis_is_analysed_again_not_patched_blind(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "bad.py").write_text(BEFORE)
    edited = "# An editor saved this while loomlint analysed.\n\n" + BEFORE
    _after_analysis(monkeypatch, lambda: (project / "bad.py").write_text(edited))
    assert _fix("bad.py") == (
        0,
        "",
        NOTE + "note: 'bad.py' changed after it was analysed; it was analysed again\n"
        "Fixed 1 finding in 1 file; 0 findings remaining.\n",
    )
    assert (project / "bad.py").read_text() == (
        "# An editor saved this while loomlint analysed.\n\n" + AFTER
    )


def test_a_line_saved_while_the_fixes_are_computed_is_kept(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Computing the fixes of a large file takes seconds, after the digest was first checked:
    the file is checked again just before the write."""
    (project / "bad.py").write_text(BEFORE)
    real = loomlint.fix.files.apply_fixes
    saves: list[str] = []

    def apply_fixes_while_an_editor_saves(*args: Any, **kwargs: Any) -> FixOutcome:
        if not saves:
            saves.append("appended")
            with (project / "bad.py").open("a") as file:
                file.write("# appended while loomlint computed its fixes\n")
        return real(*args, **kwargs)

    monkeypatch.setattr(loomlint.fix.files, "apply_fixes", apply_fixes_while_an_editor_saves)
    assert _fix("bad.py") == (
        0,
        "",
        NOTE + "note: 'bad.py' changed after it was analysed; it was analysed again\n"
        "Fixed 1 finding in 1 file; 0 findings remaining.\n",
    )
    assert (project / "bad.py").read_text() == (
        AFTER + "# appended while loomlint computed its fixes\n"
    )


@pytest.mark.slow
def test_a_file_analysed_again_keeps_the_presets_the_run_chose(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "bad.py").write_text(BEFORE)
    (project / "claude.py").write_text("import anthropic\n")
    edited = "# An editor saved this while loomlint analysed.\n\n" + BEFORE
    analyses = _after_analysis(monkeypatch, lambda: (project / "bad.py").write_text(edited))
    result = CliRunner().invoke(main, ["fix", "--no-cache", "."])
    assert (result.exit_code, result.stdout, result.stderr) == (
        0,
        "",
        "note: no preset configured; using loom, anthropic (from the imports of the checked "
        "files)\n"
        "note: 'bad.py' changed after it was analysed; it was analysed again\n"
        "Fixed 1 finding in 1 file; 0 findings remaining.\n",
    )
    assert (project / "bad.py").read_text() == (
        "# An editor saved this while loomlint analysed.\n\n" + AFTER
    )
    # bad.py's own imports would choose loom alone: it is analysed again under the run's.
    assert [s.spi.preset_names for s in analyses] == [("loom",), ("loom", "anthropic")]
    assert [s.inferable_presets == () for s in analyses] == [False, True]


def test_a_file_that_cannot_be_read_is_reported_and_the_others_are_fixed(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "a.py").write_text(BEFORE)
    (project / "b.py").write_text(BEFORE)
    _after_analysis(monkeypatch, lambda: (project / "a.py").unlink())
    assert _fix(".") == (
        2,
        "a.py:5:23: LML003 [*] content of `m` is coerced to str by `+` with a str; "
        "use text_of(...)\n",
        NOTE + "error: cannot read 'a.py' to fix it: No such file or directory\n"
        "Fixed 1 finding in 1 file; 1 finding remaining; 1 file could not be fixed.\n",
    )
    assert (project / "b.py").read_text() == AFTER


def test_a_link_that_leaves_the_project_is_never_written_through(
    project: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "theirs.py").write_text(BEFORE)
    (project / "link.py").symlink_to(outside / "theirs.py")
    (project / "mine.py").write_text(BEFORE)
    code, out, err = _fix(".")
    assert (code, err) == (
        2,
        NOTE + f"error: 'link.py' is a link to '{outside / 'theirs.py'}', outside the project; "
        "it was not fixed\n"
        "Fixed 1 finding in 1 file; 1 finding remaining; 1 file could not be fixed.\n",
    )
    assert out == (
        "link.py:5:23: LML003 [*] content of `m` is coerced to str by `+` with a str; "
        "use text_of(...)\n"
    )
    assert (outside / "theirs.py").read_text() == BEFORE
    assert (project / "mine.py").read_text() == AFTER


def test_a_link_inside_the_project_is_fixed_at_its_target_and_stays_a_link(
    project: Path,
) -> None:
    (project / "pkg").mkdir()
    (project / "pkg" / "real.py").write_text(BEFORE)
    os.chmod(project / "pkg" / "real.py", 0o640)
    (project / "alias.py").symlink_to(Path("pkg") / "real.py")
    assert _fix("alias.py") == (0, "", NOTE + "Fixed 1 finding in 1 file; 0 findings remaining.\n")
    assert (project / "alias.py").is_symlink()
    assert (project / "pkg" / "real.py").read_text() == AFTER
    assert os.stat(project / "pkg" / "real.py").st_mode & 0o777 == 0o640
    assert sorted(os.listdir(project / "pkg")) == ["real.py"]  # no temporary file left


def _cli(cwd: Path, *args: str, file_size_limit: int | None = None) -> subprocess.Popen[str]:
    def limit() -> None:
        if file_size_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

    return subprocess.Popen(
        [sys.executable, "-c", "from loomlint.cli import console_main; console_main()", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit,
    )


def test_a_full_disk_leaves_the_file_whole_and_the_others_are_fixed(project: Path) -> None:
    # A file size limit fails the write part-way, as a full disk does (EFBIG, not ENOSPC).
    big = BEFORE + "".join(f"# padding line {n:05}\n" for n in range(1000))
    (project / "big.py").write_text(big)
    (project / "small.py").write_text(BEFORE)
    process = _cli(project, "fix", "--no-types", "--no-cache", ".", file_size_limit=8192)
    out, err = process.communicate(timeout=120)
    assert (project / "big.py").read_text() == big
    assert (project / "small.py").read_text() == AFTER
    assert (process.returncode, out, err) == (
        2,
        "big.py:5:23: LML003 [*] content of `m` is coerced to str by `+` with a str; "
        "use text_of(...)\n",
        NOTE + "error: cannot write 'big.py': File too large; it is unchanged\n"
        "Fixed 1 finding in 1 file; 1 finding remaining; 1 file could not be fixed.\n",
    )
    assert sorted(os.listdir(project)) == ["big.py", "loomlint.toml", "small.py"]


@pytest.mark.slow
def test_concurrent_fix_runs_leave_every_file_exactly_fixed(project: Path) -> None:
    names = [f"m{n}.py" for n in range(8)]
    padding = "".join(f"# padding line {n:05}\n" for n in range(200))
    for _ in range(2):
        for name in names:
            (project / name).write_text(BEFORE + padding)
        runs = [_cli(project, "fix", "--no-types", "--no-cache", "-q", ".") for _ in range(2)]
        outcomes = [(run.wait(timeout=300), run.communicate()) for run in runs]
        assert [code for code, _ in outcomes] == [0, 0], outcomes
        for name in names:
            assert (project / name).read_text() == AFTER + padding, name
