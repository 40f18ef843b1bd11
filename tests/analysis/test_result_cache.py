"""The result cache: warm runs reuse findings; a changed file or dependency type invalidates."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

import loomlint.run.workers
from loomlint.engine.diagnostics import FileResult
from loomlint.project.config import CliOverrides
from loomlint.project.settings import load_settings
from loomlint.run.oracle import MypyOracle, SourceFile
from loomlint.run.runner import run_check

USE = textwrap.dedent(
    """\
    from dep import Msg

    def preview(m: Msg) -> str:
        return m.content.strip()
    """
)
TEXT_ONLY = "from dataclasses import dataclass\n\n@dataclass\nclass Msg:\n    content: str\n"
WITH_PARTS = (
    "from dataclasses import dataclass\nfrom loomlint.content import TextPart\n\n"
    "@dataclass\nclass Msg:\n    content: str | list[TextPart]\n"
)


def _findings(project: Path, *, types: bool = True) -> list[tuple[str, int, int, str]]:
    settings = load_settings(project, overrides=CliOverrides(no_types=not types))
    run = run_check([str(project / "use.py"), str(project / "dep.py")], settings)
    return [
        (Path(d.path).name, d.line, d.column, d.code)
        for result in run.results
        for d in result.diagnostics
    ]


def _forbid_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> FileResult:
        raise AssertionError("a cached result should have been used")

    monkeypatch.setattr(loomlint.run.workers, "analyse_task", refuse)


def _cache_then_change_the_dependency(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """use.py's result cached while dep.py's Msg.content is text; then Msg gains parts."""
    monkeypatch.chdir(project)
    (project / "use.py").write_text(USE)
    (project / "dep.py").write_text(TEXT_ONLY)
    assert _findings(project) == []
    (project / "dep.py").write_text(WITH_PARTS)


def test_a_dependency_type_change_invalidates_a_cached_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # use.py is unchanged, but the type it reads changed: its cached result must not stand.
    _cache_then_change_the_dependency(tmp_path, monkeypatch)
    assert _findings(tmp_path) == [("use.py", 4, 12, "LML001")]
    with monkeypatch.context() as patch:
        _forbid_analysis(patch)
        assert _findings(tmp_path) == [("use.py", 4, 12, "LML001")]
    (tmp_path / "dep.py").write_text(TEXT_ONLY)
    assert _findings(tmp_path) == []


def test_without_types_an_imported_class_change_invalidates_a_cached_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "use.py").write_text(USE)
    (tmp_path / "dep.py").write_text(TEXT_ONLY)
    # Without types, dep.py's `content: str` is the evidence that m.content is no content.
    assert _findings(tmp_path, types=False) == []
    (tmp_path / "dep.py").write_text(WITH_PARTS)
    assert _findings(tmp_path, types=False) == [("use.py", 4, 12, "LML001")]
    with monkeypatch.context() as patch:
        _forbid_analysis(patch)
        assert _findings(tmp_path, types=False) == [("use.py", 4, 12, "LML001")]


def test_warm_runs_reuse_results_and_an_edit_is_reanalysed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "use.py").write_text(
        USE.replace("from dep import Msg", "from loomlint.content import LlmMessage as Msg")
    )
    (tmp_path / "dep.py").write_text(TEXT_ONLY)
    expected = [("use.py", 4, 12, "LML001")]
    assert _findings(tmp_path, types=False) == expected
    with monkeypatch.context() as patch:
        _forbid_analysis(patch)
        assert _findings(tmp_path, types=False) == expected
    (tmp_path / "use.py").write_text(
        "from loomlint.content import LlmMessage, text_of\n\n"
        "def preview(m: LlmMessage) -> str:\n    return text_of(m.content).strip()\n"
    )
    assert _findings(tmp_path, types=False) == []
    assert (
        tmp_path / ".loomlint_cache" / ".gitignore"
    ).read_text() == "# Created by loomlint.\n*\n"


def test_nothing_changed_needs_no_mypy_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import loomlint.run.oracle

    monkeypatch.chdir(tmp_path)
    (tmp_path / "use.py").write_text(USE)
    (tmp_path / "dep.py").write_text(WITH_PARTS)
    expected = [("use.py", 4, 12, "LML001")]
    assert _findings(tmp_path) == expected

    def no_build(*args: object, **kwargs: object) -> object:
        raise AssertionError("mypy should not have been needed")

    with monkeypatch.context() as patch:
        patch.setattr(loomlint.run.oracle.MypyOracle, "analyze", no_build)
        _forbid_analysis(patch)
        assert _findings(tmp_path) == expected
    # A file the build read changes (here only its timestamp): mypy must run again.
    os.utime(tmp_path / "dep.py", ns=(1, 1))
    calls: list[object] = []
    real = loomlint.run.oracle.MypyOracle.analyze

    def counting(self: object, *args: object, **kwargs: object) -> object:
        calls.append(args)
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(loomlint.run.oracle.MypyOracle, "analyze", counting)
    assert _findings(tmp_path) == expected
    assert len(calls) == 1


def test_a_stale_cached_file_that_mypy_checked_anyway_needs_no_second_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cache_then_change_the_dependency(tmp_path, monkeypatch)
    builds: list[list[str]] = []
    build = MypyOracle._build

    def counted(oracle: MypyOracle, files: list[SourceFile], consumer: object) -> object:
        builds.append(sorted(Path(f.path).name for f in files if f.force))
        return build(oracle, files, consumer)  # type: ignore[arg-type]

    monkeypatch.setattr(MypyOracle, "_build", counted)
    # mypy checks use.py again (a type it reads moved): its facts from that one build serve.
    assert _findings(tmp_path) == [("use.py", 4, 12, "LML001")]
    assert builds == [["dep.py"]]
