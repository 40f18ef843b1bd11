"""CLI test fixtures: a fake ``loomlint.run.runner`` and a project folder to run in."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_runner import FakeRunner


@pytest.fixture
def fake_runner(monkeypatch: pytest.MonkeyPatch) -> FakeRunner:
    runner = FakeRunner()
    module = types.ModuleType("loomlint.run.runner")
    module.run_check = runner  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "loomlint.run.runner", module)
    return runner


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Path]:
    """Create files (``"name=text"``) in a temporary project and make it the cwd."""
    monkeypatch.chdir(tmp_path)

    def make(*entries: str) -> Path:
        for entry in entries:
            name, _, text = entry.partition("=")
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return tmp_path

    return make
