"""A throwaway git repository, isolated from the user's and the system's git configuration."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

Git = Callable[..., str]


@pytest.fixture
def git_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "gitconfig"
    config.write_text("", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.invalid")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def repo(tmp_path: Path, git_env: None, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty repository at ``tmp_path/repo``, made the current folder."""
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def git(repo: Path) -> Git:
    """Run git in the repository; returns its stdout."""

    def run(*args: str) -> str:
        completed = subprocess.run(
            ["git", *args], cwd=repo, check=True, capture_output=True, text=True
        )
        return completed.stdout

    return run


@pytest.fixture
def files(repo: Path) -> Callable[..., None]:
    """Write ``"name=text"`` entries into the repository."""

    def make(*entries: str) -> None:
        for entry in entries:
            name, _, text = entry.partition("=")
            path = repo / name
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)

    return make
