"""A cached result stands while its file's types cannot have changed: while no dependency's
interface has moved, or while no text any of its dependencies stands on has (mypy's interface
hash of an unchanged module can differ from one build to the next)."""

from __future__ import annotations

from pathlib import Path

import pytest

from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings
from loomlint.run.oracle import MypyOracle, SourceFile, dependency_key_holds

# app imports middle, which imports leaf: leaf is not among app's own imports.
MIDDLE = "from leaf import make\n\nvalue = make()\n"
APP = "from middle import value\n\n\ndef show() -> str:\n    return str(value)\n"


def _keys(root: Path) -> tuple[str, str]:
    """The interfaces' and the sources' digest of app.py's dependency key."""
    settings = load_settings(root, overrides=CliOverrides())
    files = [SourceFile(name, (root / name).read_text()) for name in ("app.py",)]
    key = MypyOracle(settings.spi).analyze(files, None).dependency_keys["app.py"]
    interfaces, _, sources = key.removeprefix("digests:").partition(":")
    return interfaces, sources


def _key(interfaces: str, sources: str) -> str:
    return f"digests:{interfaces}:{sources}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MYPY_CACHE_DIR", str(tmp_path / ".mypy_cache"))
    (tmp_path / "leaf.py").write_text("def make() -> int:\n    return 1\n")
    (tmp_path / "middle.py").write_text(MIDDLE)
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


@pytest.mark.slow
def test_a_body_edit_two_imports_away_moves_the_sources_digest_only(project: Path) -> None:
    before = _keys(project)
    assert _keys(project) == before  # warm, from mypy's cache: the same key
    # Of another size: mypy, which keeps mtimes in whole seconds, would miss it otherwise.
    (project / "leaf.py").write_text("def make() -> int:\n    return 22\n")
    interfaces, sources = _keys(project)
    assert interfaces == before[0]
    assert sources != before[1]
    assert dependency_key_holds(_key(*before), _key(interfaces, sources))


@pytest.mark.slow
def test_a_files_own_mypy_comment_keeps_its_key_from_one_build_to_the_next(
    project: Path,
) -> None:
    # The comment is in the file's text, which the result cache keys on: the dependency key
    # holds the configuration's options, which a build that takes the file from mypy's cache
    # (and so does not read the comment) has too.
    (project / "app.py").write_text("# mypy: check-untyped-defs\n" + APP)
    before = _keys(project)
    assert _keys(project) == before


@pytest.mark.slow
def test_an_interface_edit_two_imports_away_moves_both_digests(project: Path) -> None:
    before = _keys(project)
    (project / "leaf.py").write_text("def make() -> str:\n    return ''\n")
    interfaces, sources = _keys(project)
    assert interfaces != before[0]
    assert sources != before[1]
    assert not dependency_key_holds(_key(*before), _key(interfaces, sources))


@pytest.mark.slow
def test_an_import_found_at_last_moves_both_digests(project: Path) -> None:
    (project / "leaf.py").unlink()
    (project / "middle.py").write_text("from leaf import make  # type: ignore\n\nvalue = make()\n")
    before = _keys(project)
    (project / "leaf.py").write_text("def make() -> int:\n    return 1\n")
    interfaces, sources = _keys(project)
    assert interfaces != before[0]
    assert sources != before[1]


@pytest.mark.parametrize(
    ("recorded", "current", "holds"),
    [
        ("digests:i1:s1", "digests:i1:s1", True),
        ("digests:i1:s1", "digests:i1:s2", True),  # a body edit somewhere below
        ("digests:i1:s1", "digests:i2:s1", True),  # mypy's interface hash moved, no text did
        ("digests:i1:s1", "digests:i2:s2", False),
        ("i1:s1", "digests:i1:s1", False),  # a key of another kind
        ("epoch:app:1", "epoch:app:1", True),  # the language server's keys: while the same
        ("epoch:app:1", "epoch:app:2", False),
        (None, "digests:i1:s1", False),
        ("digests:i1:s1", None, False),
    ],
)
def test_either_digest_holding_keeps_the_result(
    recorded: str | None, current: str | None, holds: bool
) -> None:
    assert dependency_key_holds(recorded, current) is holds
