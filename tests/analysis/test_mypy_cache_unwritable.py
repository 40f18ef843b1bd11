"""A mypy cache folder this run cannot write (read-only, another user's, on a read-only file
system) costs the run its cache, never its types: mypy builds in a private cache folder, and a
note says so (issue 21, "Smaller")."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from loomlint.cli import main

SOURCE = (
    "from loomlint.content import LlmMessage\n\n\n"
    "def show(m: LlmMessage) -> str:\n"
    '    return f"{m.content}"\n'
)


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """No one may create a file in ``folder``, root included (it ignores modes: the folder is
    made immutable instead)."""
    if os.getuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    try:
        subprocess.run(["chattr", "+i", str(folder)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot make a folder read-only for root here (chattr: {exc})")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(folder)], check=True)


def test_a_read_only_mypy_cache_keeps_types_with_a_private_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "chat.py").write_text(SOURCE)
    cache = project / ".mypy_cache"
    cache.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.delenv("MYPY_CACHE_DIR", raising=False)
    with read_only(cache):
        runs = [
            CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", "chat.py"])
            for _ in range(2)
        ]
        assert list(cache.iterdir()) == []
    for run in runs:
        assert run.exit_code == 1, run.output
        found = [(d["line"], d["column"], d["code"]) for d in json.loads(run.stdout)]
        assert found == [(5, 15, "LML003")]
        (note,) = run.stderr.splitlines()
        assert note.startswith("note: mypy's cache folder '.mypy_cache' cannot be written ("), note
        assert "); this run keeps mypy's cache in a private folder instead: '" in note, note
