"""Facts are taken from each module as mypy checks it; a mypy whose build cannot be reached
that way falls back to keeping every tree to the build's end, with the same facts."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from expectations import REPO
from mypy_caches import CONTENT, SDKS, MypyCaches, mypy_table

from loomlint.engine.typefacts import FileTypes
from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings
from loomlint.run import checked_modules
from loomlint.run.oracle import MypyOracle, OracleResult, SourceFile
from loomlint.run.plugin_results import PluginResult
from tests.mypy_plugin.mypy_runs import PLUGIN_STRICT

FIXTURES = sorted((REPO / "fixtures" / "analysis").glob("*.py"))


class _Recorder:
    """A consumer without a screen: every checked file's facts are taken."""

    def __init__(self) -> None:
        self.accepted: list[str] = []
        # Whether the build said loomlint's plugin judges in it (``building``).
        self.plugin_judges: bool | None = None

    def building(self, plugin_judges: bool) -> None:
        self.plugin_judges = plugin_judges

    def screened(self, path: str) -> bool | None:
        return None

    def accept(self, path: str, facts: FileTypes | None) -> None:
        assert facts is not None
        self.accepted.append(path)

    def take_result(self, path: str, found: PluginResult) -> bool:
        return False


def _build(monkeypatch: pytest.MonkeyPatch) -> tuple[OracleResult, _Recorder]:
    monkeypatch.chdir(REPO)
    settings = load_settings(REPO, overrides=CliOverrides())
    files = [
        SourceFile(p.relative_to(REPO).as_posix(), p.read_text(encoding="utf-8")) for p in FIXTURES
    ]
    recorder = _Recorder()
    return MypyOracle(settings.spi).analyze(files, recorder), recorder


def _attachments(monkeypatch: pytest.MonkeyPatch) -> list[bool | None]:
    """Whether each build's hook was attached (modules handed over as mypy checks them)."""
    attached: list[bool | None] = []
    original = checked_modules.CheckedModuleHook.set_modules

    def spy(hook: checked_modules.CheckedModuleHook, modules: dict[str, object]) -> None:
        original(hook, modules)  # type: ignore[arg-type]
        attached.append(hook.attached)

    monkeypatch.setattr(checked_modules.CheckedModuleHook, "set_modules", spy)
    return attached


def test_every_forced_file_is_handed_over_as_checked(
    mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    attached = _attachments(monkeypatch)
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


def test_fixtures_checked_alone_from_a_fresh_cache_give_the_same_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mypy_caches: MypyCaches
) -> None:
    """A second build finds mypy's cache fresh: each file is type-checked alone against the
    cached modules it imports, and its facts are those of the build that checked every
    fixture. (The SDKs the fixtures import come from the session's template in both builds:
    the fixtures are what each build checks.)"""
    cache = mypy_caches.copy(
        tmp_path / "cache", mypy=mypy_table(REPO / "pyproject.toml"), modules=SDKS
    )
    monkeypatch.setenv("MYPY_CACHE_DIR", str(cache))
    cold, _ = _build(monkeypatch)
    warm, recorder = _build(monkeypatch)
    assert warm.rechecked == set()
    assert sorted(recorder.accepted) == sorted(cold.files)
    assert warm.files == cold.files
    assert warm.dependency_keys == cold.dependency_keys
    assert not warm.failures


CHAT = (
    "from loomlint.content import LlmMessage\n\n\n"
    "def show(message: LlmMessage) -> str:\n"
    "    return str(message.content)\n"
)


@pytest.mark.parametrize(
    "plugins",
    [["pydantic.mypy"], ["pydantic.mypy", "loomlint.mypy_plugin"]],
    ids=["pydantic", "pydantic-and-loomlint"],
)
def test_with_plugins_configured_modules_are_handed_over_as_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plugins: list[str]
) -> None:
    """A configuration naming plugins keeps no tree to the build's end: the facts are taken as
    each module is checked, and are those of a build without plugins."""
    attached = _attachments(monkeypatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.py").write_text(CHAT)
    settings = load_settings(tmp_path, overrides=CliOverrides())
    facts: dict[str, dict[str, FileTypes]] = {}
    for configured in ([], plugins):
        (tmp_path / "pyproject.toml").write_text(
            f"[tool.mypy]\nplugins = {configured!r}\n".replace("'", '"')
        )
        monkeypatch.setenv("MYPY_CACHE_DIR", str(tmp_path / f"cache-{len(configured)}"))
        recorder = _Recorder()
        result = MypyOracle(settings.spi).analyze([SourceFile("chat.py", CHAT)], recorder)
        assert recorder.accepted == ["chat.py"]
        # Told whether loomlint's plugin judges in the build (the run then prepares nothing).
        assert recorder.plugin_judges is ("loomlint.mypy_plugin" in configured)
        assert not result.failures
        facts[str(configured)] = result.files
    assert attached == [True, True]
    assert facts[str(plugins)] == facts["[]"]


def test_loomlints_plugin_and_checks_hook_search_the_heap_once_for_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mypy_caches: MypyCaches
) -> None:
    """In ``loomlint check``'s build of a project naming loomlint's plugin, the plugin and the
    hook riding on it both need the build's manager and states; each search is a scan of the
    whole heap (``gc.get_referrers``), made once for both."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(f"[tool.mypy]\n{PLUGIN_STRICT}\n[tool.loomlint]\n")
    (tmp_path / "chat.py").write_text(CHAT)
    cache = mypy_caches.copy(tmp_path / "mypy-cache", mypy=PLUGIN_STRICT, modules=CONTENT)
    monkeypatch.setenv("MYPY_CACHE_DIR", str(cache))
    searched: list[str] = []
    get_referrers = gc.get_referrers

    class CountingGc:
        @staticmethod
        def get_referrers(*objects: object) -> list[object]:
            searched.append(type(objects[0]).__name__)
            return get_referrers(*objects)

    monkeypatch.setattr(checked_modules, "gc", CountingGc)
    settings = load_settings(tmp_path, overrides=CliOverrides())
    recorder = _Recorder()
    result = MypyOracle(settings.spi).analyze([SourceFile("chat.py", CHAT)], recorder)
    assert recorder.plugin_judges is True
    assert not result.failures
    assert searched == ["Options", "BuildManager"]
