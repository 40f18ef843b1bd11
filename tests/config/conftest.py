"""Helpers for configuration tests: write a config file into a temporary project."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from loomlint.project.config import CliOverrides, Settings
from loomlint.project.settings import load_settings

WriteConfig = Callable[..., Path]
Load = Callable[..., Settings]


@pytest.fixture
def write_pyproject(tmp_path: Path) -> WriteConfig:
    """Write ``[tool.loomlint]`` + ``body`` as ``pyproject.toml`` in ``tmp_path`` or a subfolder."""

    def write(body: str, *, folder: str = "", header: str = "[tool.loomlint]\n") -> Path:
        directory = tmp_path / folder
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "pyproject.toml"
        path.write_text(header + body, encoding="utf-8")
        return path

    return write


@pytest.fixture
def load(tmp_path: Path) -> Load:
    """Load settings as if run in ``tmp_path`` (or ``cwd``), with optional CLI overrides."""

    def run(
        *, cwd: Path | None = None, config: Path | None = None, **overrides: object
    ) -> Settings:
        return load_settings(
            cwd if cwd is not None else tmp_path,
            config,
            CliOverrides(**overrides),  # type: ignore[arg-type]
        )

    return run
