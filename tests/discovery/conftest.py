"""A tiny file-tree builder for discovery tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def tree(tmp_path: Path) -> Callable[..., Path]:
    """Create files under ``tmp_path``: ``tree("a/b.py", ".gitignore=*.log\\n")``.

    ``name=text`` writes ``text``; a bare name writes an empty file; a name ending in ``/`` makes
    a folder.
    """

    def make(*entries: str) -> Path:
        for entry in entries:
            name, _, text = entry.partition("=")
            path = tmp_path / name
            if name.endswith("/"):
                path.mkdir(parents=True, exist_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return tmp_path

    return make
