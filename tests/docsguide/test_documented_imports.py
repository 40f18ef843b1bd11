"""Every import path the documentation shows works for a user (issue 22).

Moving modules must never break what users were told to type: each ``from loomlint... import``
and ``import loomlint...`` line in README.md and docs/, each ``python -m loomlint...``, each
mypy ``plugins`` setting, the console script and the pre-commit hooks' entry.
"""

from __future__ import annotations

import importlib
import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted([ROOT / "README.md", *ROOT.glob("docs/**/*.md")])

FROM_IMPORT = re.compile(r"^[ \t]*from (loomlint[\w.]*) import (\([^)]*\)|[^\n#]*)", re.M)
PLAIN_IMPORT = re.compile(r"^[ \t]*import (loomlint[\w.]*)", re.M)
RUN_MODULE = re.compile(r"python3? -m (loomlint[\w.]*)")
MYPY_PLUGINS = re.compile(r"^[ \t]*plugins *= *\[?\"?(loomlint[\w.]*)", re.M)


def _documented() -> list[tuple[str, str, tuple[str, ...]]]:
    found: list[tuple[str, str, tuple[str, ...]]] = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        where = document.relative_to(ROOT).as_posix()
        for match in FROM_IMPORT.finditer(text):
            names = re.findall(r"\b(\w+)(?: as \w+)?", match.group(2).strip("()"))
            found.append((where, match.group(1), tuple(n for n in names if n != "as")))
        for pattern in (PLAIN_IMPORT, RUN_MODULE, MYPY_PLUGINS):
            found.extend((where, match.group(1), ()) for match in pattern.finditer(text))
    return found


DOCUMENTED = _documented()


def test_the_docs_show_the_public_paths() -> None:
    # Guards the scan itself: the paths users are told about are found.
    modules = {module for _, module, _ in DOCUMENTED}
    assert {"loomlint.content", "loomlint.mypy_plugin", "loomlint.content.conformance"} <= modules
    assert "loomlint.report.docs" in modules


@pytest.mark.parametrize(
    ("document", "module", "names"),
    DOCUMENTED,
    ids=[f"{doc}:{module}" for doc, module, _ in DOCUMENTED],
)
def test_a_documented_import_works(document: str, module: str, names: tuple[str, ...]) -> None:
    imported = importlib.import_module(module)
    missing = [name for name in names if not hasattr(imported, name)]
    assert not missing, f"{document}: {module} has no {', '.join(missing)}"


def test_the_mypy_plugin_entry_is_callable() -> None:
    plugin = importlib.import_module("loomlint.mypy_plugin").plugin
    assert callable(plugin)


def test_the_console_script_and_the_pre_commit_entry_resolve() -> None:
    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "loomlint"]
    assert script.value == "loomlint.cli:console_main"
    assert callable(script.load())
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert re.findall(r"^\s*entry: *(\S+)", hooks, re.M) == ["loomlint"] * len(
        re.findall(r"^- id:", hooks, re.M)
    )
