"""loomlint's build leaves the user's mypy cache valid for their own mypy runs: after a
type-aware check, plain mypy finds every module loomlint's build checked fresh, and checks only
what that build never needed (a module that neither mentions content nor is imported)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner
from mypy import build
from mypy.main import process_options

from loomlint.cli import main

SOURCE = (
    "from loomlint.content import LlmMessage\n\n\n"
    "def show(m: LlmMessage) -> str:\n"
    '    return f"{m.content}"\n'
)


def test_plain_mypy_rechecks_nothing_after_a_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.py").write_text(SOURCE)
    (tmp_path / "util.py").write_text("def helper() -> int:\n    return 1\n")
    result = CliRunner().invoke(main, ["check", "--no-cache", "--format", "json", "."])
    assert result.exit_code == 1, result.output
    output = io.StringIO()
    sources, options = process_options(["chat.py", "util.py"], stdout=output, stderr=output)
    built = build.build(sources, options, stdout=output, stderr=output)
    assert "chat" in built.graph and "loomlint.content" in built.graph
    assert built.manager.rechecked_modules == {"util"}
