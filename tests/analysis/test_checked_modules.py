"""Facts are taken from each module as mypy checks it; a mypy whose build cannot be reached
that way falls back to keeping every tree to the build's end, with the same facts."""

from __future__ import annotations

from pathlib import Path

import pytest
from expectations import REPO

from loomlint.analysis import checked_modules
from loomlint.analysis.oracle import MypyOracle, OracleResult, SourceFile
from loomlint.analysis.typefacts import FileTypes
from loomlint.config import CliOverrides, load_settings

FIXTURES = sorted((REPO / "fixtures" / "analysis").glob("*.py"))


class _Recorder:
    """A consumer without a screen: every checked file's facts are taken."""

    def __init__(self) -> None:
        self.accepted: list[str] = []

    def screened(self, path: str) -> bool | None:
        return None

    def accept(self, path: str, facts: FileTypes | None) -> None:
        assert facts is not None
        self.accepted.append(path)


def _build(monkeypatch: pytest.MonkeyPatch) -> tuple[OracleResult, _Recorder]:
    monkeypatch.chdir(REPO)
    settings = load_settings(REPO, overrides=CliOverrides())
    files = [
        SourceFile(p.relative_to(REPO).as_posix(), p.read_text(encoding="utf-8")) for p in FIXTURES
    ]
    recorder = _Recorder()
    return MypyOracle(settings.spi).analyze(files, recorder), recorder


def test_every_forced_file_is_handed_over_as_checked(
    mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    attached: list[bool | None] = []
    original = checked_modules.CheckedModuleHook.set_modules

    def spy(hook: checked_modules.CheckedModuleHook, modules: dict[str, object]) -> None:
        original(hook, modules)  # type: ignore[arg-type]
        attached.append(hook.attached)

    monkeypatch.setattr(checked_modules.CheckedModuleHook, "set_modules", spy)
    result, recorder = _build(monkeypatch)
    assert attached == [True]
    expected = [p.relative_to(REPO).as_posix() for p in FIXTURES]
    assert sorted(recorder.accepted) == expected
    assert sorted(result.files) == expected
    assert not result.failures


def test_the_fallback_keeps_trees_and_gives_the_same_facts(
    mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    through_hook, _ = _build(monkeypatch)
    monkeypatch.setattr(checked_modules, "build_states", lambda options: [])
    kept_to_the_end, recorder = _build(monkeypatch)
    assert sorted(recorder.accepted) == sorted(through_hook.files)
    assert kept_to_the_end.files == through_hook.files
    assert kept_to_the_end.dependency_keys == through_hook.dependency_keys
