"""Which files the plugin's worker prepares with the project's imported classes as evidence
too (``checked.with_missing_imports``): those that import a module mypy could not find, but for
modules whose values are never messages (an HTTP client's). Read from a real mypy build's
graph, as the plugin reads it in ``set_modules``."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from mypy import build
from mypy.main import process_options

from loomlint.mypy_plugin.checked import with_missing_imports

REPO = Path(__file__).resolve().parents[2]

FILES = {
    # An SDK that is not installed: a read on its class may be a message's.
    "agent.py": "import acme_llm_sdk_not_installed\n\nreply = acme_llm_sdk_not_installed.ask()\n",
    # A module whose values are never messages (rules/unrelated.toml), even when missing.
    "fetch.py": "import flask\n\nbody = flask.request.data\n",
    # Everything found.
    "plain.py": "import json\n\ndata = json.loads('{}')\n",
}


def test_the_files_importing_a_missing_module_are_named(
    tmp_path: Path, mypy_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, text in FILES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    output = io.StringIO()
    # The repository's configuration, whose build the session's cache holds already.
    config = ["--config-file", str(REPO / "pyproject.toml")]
    sources, options = process_options([*config, *FILES], stdout=output, stderr=output)
    built = build.build(sources, options, stdout=output, stderr=output)
    assert "flask" in built.graph["fetch"].suppressed, "the test needs flask missing"
    assert with_missing_imports(built.graph) == [os.path.abspath("agent.py")]
