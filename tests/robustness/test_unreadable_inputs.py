"""Paths that cannot be read as source are reported (LML902), at once, and every other file is
still checked: named FIFOs and devices (never opened: opening a FIFO blocks), unreadable
files, and folders that cannot be listed (a diagnostic, not a warning ``-q`` hides)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

BAD_USE = textwrap.dedent(
    """\
    from loomlint.content import LlmMessage

    def f(m: LlmMessage) -> str:
        return f"{m.content}"
    """
)
LOOMLINT = [str(Path(sys.executable).parent / "loomlint")]
# Root without the capabilities that let it read past permissions: it is refused what any other
# user would be. It stays root, so it still runs the interpreter wherever that lives (pyenv's
# Pythons under /root load their libpython from there; another user is refused them).
DAC_BYPASS = "-dac_override,-dac_read_search"
WITHOUT_DAC_BYPASS = ["setpriv", f"--inh-caps={DAC_BYPASS}", f"--bounding-set={DAC_BYPASS}", "--"]


def _as_a_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root, and no setpriv to drop privileges")
    return WITHOUT_DAC_BYPASS


@pytest.fixture
def project() -> Iterator[Path]:
    """A project folder any user may work in (pytest's own tmp folders are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="loomlint-unreadable-"))
    folder.chmod(0o777)
    try:
        yield folder
    finally:
        for path in folder.rglob("*"):
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(folder)


def _check(
    project: Path, *args: str, user: list[str] | None = None
) -> tuple[int, list[tuple[str, int, int, str, str]], str]:
    completed = subprocess.run(
        [*(user or []), *LOOMLINT, "check", "--no-types", "--format", "json", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(project)},
    )
    found = sorted(
        (d["path"], d["line"], d["column"], d["code"], d["message"])
        for d in json.loads(completed.stdout or "[]")
    )
    return completed.returncode, found, completed.stderr


def test_a_named_fifo_is_refused_without_being_opened(project: Path) -> None:
    os.mkfifo(project / "pipe.py")
    os.mkfifo(project / "script")  # no suffix: not even opened to look for a shebang
    (project / "good.py").write_text(BAD_USE)
    code, found, _ = _check(project, "pipe.py", "script", "good.py")
    refused = "this is a named pipe (FIFO), not a regular file; it was not read"
    assert found == [
        ("good.py", 4, 15, "LML003", found[0][4]),
        ("pipe.py", 1, 1, "LML902", refused),
        ("script", 1, 1, "LML902", refused),
    ]
    assert code == 2


def test_a_named_device_is_refused(project: Path) -> None:
    (project / "good.py").write_text(BAD_USE)
    code, found, _ = _check(project, "/dev/zero", "good.py")
    assert [(path, code) for path, _, _, code, _ in found] == [
        ("/dev/zero", "LML902"),
        ("good.py", "LML003"),
    ]
    assert found[0][4] == "this is a character device, not a regular file; it was not read"
    assert code == 2


def test_a_named_unreadable_file_is_lml902_and_the_rest_are_checked(project: Path) -> None:
    user = _as_a_user()
    secret = project / "secret.py"
    secret.write_text(BAD_USE)
    secret.chmod(0o000)
    locked = project / "locked"
    locked.mkdir()
    (locked / "inside.py").write_text(BAD_USE)
    locked.chmod(0o000)
    (project / "good.py").write_text(BAD_USE)
    code, found, stderr = _check(project, "secret.py", "locked/inside.py", "good.py", user=user)
    assert [(path, line, column, code) for path, line, column, code, _ in found] == [
        ("good.py", 4, 15, "LML003"),
        ("locked/inside.py", 1, 1, "LML902"),
        ("secret.py", 1, 1, "LML902"),
    ], stderr
    assert (
        found[1][4]
        == found[2][4]
        == ("the file cannot be read (Permission denied); it was not checked")
    )
    assert code == 2


def test_an_unreadable_folder_is_a_diagnostic_even_quietly(project: Path) -> None:
    user = _as_a_user()
    locked = project / "pkg" / "locked"
    locked.mkdir(parents=True)
    (locked / "hidden.py").write_text(BAD_USE)
    locked.chmod(0o000)
    (project / "pkg" / "good.py").write_text("x = 1\n")
    code, found, stderr = _check(project, "-q", ".", user=user)
    assert found == [
        (
            "pkg/locked",
            1,
            1,
            "LML902",
            "the folder cannot be read (Permission denied); the files in it were not checked",
        )
    ]
    assert stderr == ""
    assert code == 2
