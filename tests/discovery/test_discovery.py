"""PATH arguments -> Python files: walking, .gitignore, exclude, symlinks, odd names."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from loomlint.project.config import CliOverrides
from loomlint.project.discovery import DiscoveryError, discover_files
from loomlint.project.settings import load_settings

Tree = Callable[..., Path]


def discover(root: Path, *paths: str | Path, cwd: Path | None = None) -> Sequence[str]:
    settings = load_settings(cwd or root, None, CliOverrides())
    return discover_files(paths or (".",), settings).files


def test_walks_sorted_python_files_only(tree: Tree) -> None:
    root = tree("b.py", "a.pyi", "z/y.py", "a/x.py", "notes.txt", "setup.cfg", "pkg.py/")
    assert discover(root) == ("a.pyi", "a/x.py", "b.py", "z/y.py")


def test_default_excludes(tree: Tree) -> None:
    root = tree(
        "app.py",
        ".venv/lib/site.py",
        "venv/x.py",
        "__pycache__/app.py",
        "build/gen.py",
        "dist/gen.py",
        ".tox/t.py",
        "node_modules/n.py",
        ".git/hooks/h.py",
        "src/build/gen.py",
        "src/builder.py",
    )
    assert discover(root) == ("app.py", "src/builder.py")


def test_root_gitignore_with_git_semantics(tree: Tree) -> None:
    root = tree(
        ".gitignore=# generated\n*_pb2.py\n/top.py\nout/\n!keep_pb2.py\n",
        "a_pb2.py",
        "keep_pb2.py",
        "top.py",
        "sub/top.py",
        "out/x.py",
        "sub/out/y.py",
        "out.py",
        "main.py",
    )
    assert discover(root) == ("keep_pb2.py", "main.py", "out.py", "sub/top.py")


def test_nested_gitignore_is_relative_to_its_folder(tree: Tree) -> None:
    root = tree(
        ".gitignore=*.gen.py\n",
        "pkg/.gitignore=/local.py\nfixtures/\n!b.gen.py\n",
        "pkg/local.py",
        "pkg/deep/local.py",
        "local.py",
        "pkg/fixtures/f.py",
        "fixtures/f.py",
        "a.gen.py",
        "pkg/a.gen.py",
        "pkg/b.gen.py",
        "b.gen.py",
    )
    assert discover(root) == ("fixtures/f.py", "local.py", "pkg/b.gen.py", "pkg/deep/local.py")


def test_gitignore_above_the_walked_folder_applies_inside_a_repository(tree: Tree) -> None:
    root = tree(
        ".git/",
        ".gitignore=secret/\n",
        "pkg/.gitignore=*.tmp.py\n",
        "pkg/sub/a.py",
        "pkg/sub/secret/b.py",
        "pkg/sub/c.tmp.py",
    )
    assert discover(root, "pkg/sub") == ("pkg/sub/a.py",)


def test_git_info_exclude(tree: Tree) -> None:
    root = tree(".git/info/exclude=scratch.py\n", "scratch.py", "real.py")
    assert discover(root) == ("real.py",)


def test_gitignore_folders_with_glob_characters_in_their_names(tree: Tree) -> None:
    root = tree("a[1]/.gitignore=x.py\n", "a[1]/x.py", "a[1]/y.py", "a1/x.py")
    assert discover(root) == ("a1/x.py", "a[1]/y.py")


def test_exclude_replaces_defaults_and_extend_exclude_adds(tree: Tree) -> None:
    root = tree(
        'pyproject.toml=[tool.loomlint]\nexclude = ["gen/"]\nextend-exclude = ["*_test.py"]\n',
        "gen/a.py",
        "build/b.py",
        "c_test.py",
        "d.py",
    )
    assert discover(root) == ("build/b.py", "d.py")


def test_anchored_exclude_is_relative_to_the_project_root(tree: Tree) -> None:
    root = tree(
        'pyproject.toml=[tool.loomlint]\nextend-exclude = ["/src/legacy/"]\n',
        "src/legacy/a.py",
        "src/new/legacy/b.py",
    )
    assert discover(root, cwd=root / "src") == ("new/legacy/b.py",)


def test_named_files_honour_exclude_but_not_gitignore(tree: Tree) -> None:
    root = tree(
        ".gitignore=ignored.py\n",
        'pyproject.toml=[tool.loomlint]\nextend-exclude = ["excluded.py", "gen/"]\n',
        "ignored.py",
        "excluded.py",
        "gen/x.py",
        "script=#!/usr/bin/env python3\n",
        "setup.cfg=[metadata]\n",
    )
    assert discover(root, "ignored.py", "excluded.py", "gen/x.py", "script", "setup.cfg") == (
        "ignored.py",
        "script",
    )


def test_named_excluded_folder_is_skipped(tree: Tree) -> None:
    root = tree("build/a.py")
    assert discover(root, "build") == ()


def test_missing_path_is_a_usage_error(tree: Tree) -> None:
    root = tree("a.py")
    with pytest.raises(DiscoveryError) as raised:
        discover(root, "a.py", "nope.py")
    assert str(raised.value) == "path 'nope.py' does not exist"


def test_each_file_once_sorted_across_arguments(tree: Tree) -> None:
    root = tree("pkg/a.py", "pkg/b.py", "c.py")
    assert discover(root, "pkg/b.py", "c.py", "pkg", "./pkg/a.py") == (
        "c.py",
        "pkg/a.py",
        "pkg/b.py",
    )


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_symlinked_folders_are_not_followed_and_loops_end(tree: Tree) -> None:
    root = tree("pkg/a.py", "other/b.py")
    (root / "pkg" / "loop").symlink_to(root / "pkg", target_is_directory=True)
    (root / "pkg" / "to_other").symlink_to(root / "other", target_is_directory=True)
    (root / "pkg" / "alias.py").symlink_to(root / "pkg" / "a.py")
    (root / "pkg" / "broken.py").symlink_to(root / "missing.py")
    # alias.py and a.py are one file: checked once, under the first name in walk order.
    assert discover(root, "pkg") == ("pkg/a.py",)
    # A named symlinked folder is followed (the user asked for it).
    assert discover(root, "pkg/to_other") == ("pkg/to_other/b.py",)


def test_paths_outside_cwd_are_absolute(tree: Tree, tmp_path: Path) -> None:
    root = tree("proj/", "elsewhere/x.py", "elsewhere/build/y.py")
    assert discover(root / "proj", tmp_path / "elsewhere") == (
        f"{(tmp_path / 'elsewhere' / 'x.py').as_posix()}",
    )


def test_paths_relative_to_a_subfolder_cwd(tree: Tree) -> None:
    root = tree("pyproject.toml=[tool.loomlint]\n", "src/a.py", "tests/t.py")
    # Inside cwd: relative; outside it: absolute (never "../").
    assert discover(root, ".", "../tests", cwd=root / "src") == (
        (root / "tests" / "t.py").as_posix(),
        "a.py",
    )


def test_odd_names(tree: Tree) -> None:
    root = tree("my dir/é.py", "#hash.py", "!bang.py", "-dash.py")
    assert discover(root) == ("!bang.py", "#hash.py", "-dash.py", "my dir/é.py")


def test_undecodable_gitignore_does_not_crash(tree: Tree) -> None:
    root = tree("a.py", "b.py")
    (root / ".gitignore").write_bytes(b"\xff\xfe\nb.py\n")
    assert discover(root) == ("a.py",)


def test_unreadable_folder_is_among_the_files(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree("a.py", "locked/b.py")
    real_scandir = os.scandir

    def scandir(path: str | os.PathLike[str]) -> object:
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    # chmod cannot lock a folder for root, so the refusal is simulated.
    monkeypatch.setattr(os, "scandir", scandir)
    settings = load_settings(root, None, CliOverrides())
    discovery = discover_files(["."], settings)
    # Reading it reports it (LML902): a diagnostic, which -q does not hide.
    assert discovery.files == ("a.py", "locked")
    assert discovery.warnings == ()
