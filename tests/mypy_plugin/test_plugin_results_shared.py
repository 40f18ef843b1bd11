"""Results shared: ``mypy`` with the plugin records each module's findings where ``loomlint
check`` looks for them, and the build, so ``loomlint check`` right after needs no mypy build
and prints the same findings; ``loomlint check``'s own build (which runs the plugin, the
configuration naming it) takes the plugin's judgements instead of making its own, and leaves
mypy's cache fresh for the next ``mypy``. Real runs of both, in subprocesses."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mypy_runs import write_project

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
HELPERS = """\
from loomlint.content import LlmMessage


def shout(m: LlmMessage) -> str:
    return str(m.content).upper()
"""
APP = """\
from loomlint.content import LlmMessage

from helpers import shout


def show(m: LlmMessage) -> int:
    print(m.content)
    return len(shout(m))
"""
FINDINGS = (
    "app.py:7:11: LML003 [*] content of `m` is coerced to str by print(); use text_of(...)\n"
    "helpers.py:5:16: LML003 [*] content of `m` is coerced to str by str(); use text_of(...)\n"
    "Found 2 findings (2 fixable with `loomlint fix`).\n"
)


def _run(project: Path, *command: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "MYPY_CACHE_DIR"}
    environment["LOOMLINT_TIMINGS"] = "1"
    return subprocess.run(
        [str(BIN / command[0]), *command[1:]],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _mypy(project: Path, *files: str) -> subprocess.CompletedProcess[str]:
    done = _run(project, "mypy", "-v", *files)
    assert done.returncode in (1, 2), done.stdout + done.stderr[-2000:]
    return done


def _check(project: Path, *files: str) -> tuple[str, str]:
    """loomlint check's report, and what its build did."""
    done = _run(project, "loomlint", "check", *files)
    assert done.returncode == 1, done.stdout + done.stderr
    built = re.findall(r"(no mypy build|mypy built, \d+ files' facts collected)", done.stderr)
    assert len(built) == 1, done.stderr
    return done.stdout, built[0]


def _stale(mypy_run: subprocess.CompletedProcess[str]) -> list[str]:
    return re.findall(r"Scheduling SCC .* as .*stale.*|Metadata abandoned .*", mypy_run.stderr)


def test_loomlint_check_after_mypy_with_the_plugin_needs_no_build(tmp_path: Path) -> None:
    write_project(tmp_path, files={"helpers.py": HELPERS, "app.py": APP})
    _mypy(tmp_path, "app.py", "helpers.py")
    assert _check(tmp_path, "app.py", "helpers.py") == (FINDINGS, "no mypy build")
    # Some of the files mypy checked: the same.
    assert _check(tmp_path, "helpers.py") == (
        FINDINGS.splitlines(True)[1] + ("Found 1 finding (1 fixable with `loomlint fix`).\n"),
        "no mypy build",
    )

    # An edit: loomlint check builds, and takes the plugin's judgement of the re-checked
    # module from its own build (no facts collected for it); mypy then re-checks nothing.
    (tmp_path / "helpers.py").write_text(HELPERS + "\n\nX = 1\n", encoding="utf-8")
    assert _check(tmp_path, "app.py", "helpers.py") == (
        FINDINGS,
        "mypy built, 0 files' facts collected",
    )
    again = _mypy(tmp_path, "app.py", "helpers.py")
    assert _stale(again) == []
    assert again.stdout.count("[loom-content-coercion]") == 2


def test_loomlint_check_after_mypy_with_the_plugin_compiles_nothing(tmp_path: Path) -> None:
    # loomlint check compiles each file that names no content (a syntax error there is
    # LML901), once per version of its bytes: the plugin's worker compiled the build's such
    # files while mypy ran, so the check right after compiles none; a file mypy did not check
    # is still compiled by the check itself (after its build: the plugin's worker judges the
    # build's files, and the check's own pool, which would compile it meanwhile, is not
    # started).
    app = APP + "\nimport names\n"
    names = "NAMES = ('a', 'b')\n"
    write_project(tmp_path, files={"helpers.py": HELPERS, "app.py": app, "names.py": names})
    (tmp_path / "unchecked.py").write_text("X = 1\n", encoding="utf-8")
    _mypy(tmp_path, "app.py", "helpers.py", "names.py")
    done = _run(tmp_path, "loomlint", "check", "app.py", "helpers.py", "names.py")
    assert (
        "read and screened 3 files by text: 2 to parse, 0 compiled, 0 to compile" in done.stderr
    ), done.stderr
    done = _run(tmp_path, "loomlint", "check", "app.py", "helpers.py", "names.py", "unchecked.py")
    assert (
        "read and screened 4 files by text: 2 to parse, 0 compiled, 1 to compile" in done.stderr
    ), done.stderr
    assert "1 files that name no content compiled here after the build" in done.stderr


def test_a_build_mypy_did_not_complete_is_not_recorded(tmp_path: Path) -> None:
    # mypy stops at broken.py's blocking error, after it has checked (and the plugin judged)
    # the modules broken.py imports: their findings are kept, the build is not recorded.
    broken = "import app\nimport helpers\n\nyield 1\n"
    write_project(tmp_path, files={"helpers.py": HELPERS, "app.py": APP, "broken.py": broken})
    stopped = _mypy(tmp_path, "app.py", "helpers.py", "broken.py")
    assert stopped.returncode == 2
    assert 'broken.py:4: error: "yield" outside function' in stopped.stdout
    assert _check(tmp_path, "app.py", "helpers.py") == (
        FINDINGS,
        "mypy built, 0 files' facts collected",
    )
