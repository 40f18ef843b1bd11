"""`changed_lines` and `keep_changed` against real git repositories."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from loomlint.engine.diagnostics import Diagnostic
from loomlint.report.gitdiff import GitDiffError, changed_lines, keep_changed

Files = Callable[..., None]
Git = Callable[..., str]


def finding(path: str, line: int, code: str = "LML003") -> Diagnostic:
    return Diagnostic(path, line, 1, line, 2, code, "name", "message")


@pytest.fixture
def history(repo: Path, git: Git, files: Files) -> Path:
    files(
        "app.py=one\ntwo\nthree\nfour\n",
        "pkg/mod.py=a\nb\n",
        "same.py=x\n",
        "gone.py=x\n",
        "old_name.py=r1\nr2\nr3\nr4\nr5\n",
    )
    git("add", "-A")
    git("commit", "-qm", "base")
    return repo


def test_changes_since_a_revision(history: Path, git: Git, files: Files) -> None:
    files(
        "app.py=one\nTWO\nthree\nnew\nfour\n",  # line 2 changed, line 4 inserted
        "pkg/mod.py=a\nb\nc\n",  # line 3 appended, and staged
        "untracked.py=u1\nu2\n",
    )
    git("add", "pkg/mod.py")
    git("mv", "old_name.py", "new_name.py")
    files("new_name.py=r1\nr2\nR3\nr4\nr5\n")
    os.remove(history / "gone.py")
    checked = ["app.py", "pkg/mod.py", "same.py", "untracked.py", "new_name.py"]
    changed = changed_lines("HEAD", history, checked)
    assert changed.root == history.resolve()
    assert changed.revision == "HEAD"
    assert dict(changed.files) == {
        "app.py": frozenset({2, 4}),
        "pkg/mod.py": frozenset({3}),
        "new_name.py": frozenset({3}),
        "untracked.py": None,
    }
    assert changed.lines_of("same.py") == frozenset()
    diagnostics = [
        finding("app.py", 1),
        finding("app.py", 2),
        finding("app.py", 4),
        finding("new_name.py", 1),
        finding("new_name.py", 3),
        finding("pkg/mod.py", 3),
        finding("same.py", 1),
        finding("same.py", 1, "LML901"),
        finding("untracked.py", 2),
        finding("new_name.py", 5, "LML901"),
    ]
    assert keep_changed(diagnostics, changed, history) == [
        finding("app.py", 2),
        finding("app.py", 4),
        finding("new_name.py", 3),
        finding("pkg/mod.py", 3),
        finding("untracked.py", 2),
        finding("new_name.py", 5, "LML901"),  # an analysis failure of a changed file
    ]


def test_an_older_revision_and_a_subfolder(history: Path, git: Git, files: Files) -> None:
    base = git("rev-parse", "HEAD").strip()
    files("pkg/mod.py=a\nB\n")
    git("commit", "-qam", "second")
    files("pkg/mod.py=A\nB\n")
    # From a subfolder: paths are relative to it, the diff covers the whole repository.
    assert dict(changed_lines(base, history / "pkg", ["mod.py"]).files) == {
        "pkg/mod.py": frozenset({1, 2})
    }
    assert dict(changed_lines("HEAD", history / "pkg", ["mod.py"]).files) == {
        "pkg/mod.py": frozenset({1})
    }
    changed = changed_lines("HEAD", history / "pkg", ["mod.py"])
    assert keep_changed([finding("mod.py", 1), finding("mod.py", 2)], changed, history / "pkg") == [
        finding("mod.py", 1)
    ]


def test_ignored_files_count_as_new(history: Path, git: Git, files: Files) -> None:
    files(".gitignore=build/\n", "build/gen.py=g\n")
    assert changed_lines("HEAD", history, ["build/gen.py"]).lines_of("build/gen.py") is None


def test_git_configuration_cannot_change_the_parse(history: Path, git: Git, files: Files) -> None:
    for key, value in (
        ("diff.noprefix", "true"),
        ("diff.mnemonicPrefix", "true"),
        ("color.ui", "always"),
        ("diff.external", "false"),
        ("diff.relative", "true"),
        ("core.quotePath", "true"),
    ):
        git("config", key, value)
    files("app.py=one\nTWO\nthree\nfour\n", "pkg/\u00e9t\u00e9.py=x\n")
    git("add", "pkg/\u00e9t\u00e9.py")
    git("commit", "-qm", "accent")
    files("pkg/\u00e9t\u00e9.py=y\n")
    changed = changed_lines("HEAD~1", history / "pkg", [])
    assert dict(changed.files) == {
        "app.py": frozenset({2}),
        "pkg/\u00e9t\u00e9.py": frozenset({1}),
    }


def test_symlinked_folder_of_the_repository(history: Path, tmp_path: Path, files: Files) -> None:
    link = tmp_path / "link"
    link.symlink_to(history, target_is_directory=True)
    files("app.py=ONE\ntwo\nthree\nfour\n")
    changed = changed_lines("HEAD", link, ["app.py"])
    assert changed.lines_of("app.py") == frozenset({1})
    assert keep_changed([finding("app.py", 1), finding("app.py", 2)], changed, link) == [
        finding("app.py", 1)
    ]


@pytest.mark.parametrize(
    ("revision", "message"),
    [
        (
            "nope",
            "--diff: unknown revision 'nope' in the git repository at {root} "
            "(in a shallow clone, fetch it first, e.g. `git fetch origin main`)",
        ),
        (
            "HEAD~5",
            "--diff: unknown revision 'HEAD~5' in the git repository at {root} "
            "(in a shallow clone, fetch it first, e.g. `git fetch origin main`)",
        ),
        ("--output=x", "--diff: '--output=x' is not a git revision"),
        ("HEAD\0x", "--diff: 'HEAD\0x' is not a git revision"),
        ("", "--diff: '' is not a git revision"),
        (" ", "--diff: ' ' is not a git revision"),
    ],
)
def test_bad_revisions(history: Path, revision: str, message: str) -> None:
    with pytest.raises(GitDiffError) as raised:
        changed_lines(revision, history, ["app.py"])
    assert str(raised.value) == message.format(root=history.resolve().as_posix())
    assert not (history / "x").exists()


def test_a_repository_without_commits(repo: Path, files: Files) -> None:
    files("a.py=x\n")
    with pytest.raises(GitDiffError, match=r"^--diff: unknown revision 'HEAD' in the git "):
        changed_lines("HEAD", repo, ["a.py"])


def test_not_a_repository(tmp_path: Path, git_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(GitDiffError) as raised:
        changed_lines("HEAD", folder, ["a.py"])
    assert str(raised.value) == (
        f"--diff: '{folder.as_posix()}' is not inside a git repository "
        "(--diff compares with a git revision)"
    )


def test_files_outside_the_repository(history: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.py").write_text("x\n", encoding="utf-8")
    with pytest.raises(GitDiffError) as raised:
        changed_lines("HEAD", history, ["app.py", "../elsewhere.py", "../../other.py"])
    assert str(raised.value) == (
        f"--diff: '../../other.py' (and 1 more) is outside the git repository at "
        f"{history.resolve().as_posix()}"
    )


def test_git_not_installed(history: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(history / "no-such-folder"))
    with pytest.raises(GitDiffError) as raised:
        changed_lines("HEAD", history, ["app.py"])
    assert (
        str(raised.value) == "--diff needs git, which could not be run: No such file or directory"
    )
