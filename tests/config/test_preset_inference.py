"""No preset configured: the presets come from what the project's code imports, and the CLI and
the mypy plugin (which read settings the same way) choose the same ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mypy.options import Options

from loomlint.catalog.rules import load_catalog
from loomlint.mypy_plugin.config import load_plugin_config
from loomlint.project.config import CliOverrides
from loomlint.project.discovery import discover_files
from loomlint.project.preset_inference import imported_presets
from loomlint.project.settings import load_settings
from loomlint.run.runner import run_check
from loomlint.server.project import Project

LOOMLINT = str(Path(sys.executable).with_name("loomlint"))
LANGCHAIN_APP = (
    "from langchain_core.messages import AIMessage\n"
    "\n"
    "\n"
    "def show(reply: AIMessage) -> str:\n"
    '    return f"said {reply.content}"\n'
)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"from langchain_core.messages import AIMessage\n", ("langchain",)),
        (b"import langchain_core.messages as m\n", ("langchain",)),
        (b"def f():\n    from langgraph.graph import StateGraph\n", ("langchain",)),
        (b"import os, openai\n", ("openai",)),
        (b"from anthropic.types import Message\n", ("anthropic",)),
        (b"from pydantic_ai import Agent\n", ("pydantic-ai",)),
        (b"from loomlint.content import text_of\n", ("loom",)),
        (b"import loomlint.content\nimport anthropic\n", ("anthropic", "loom")),
        (b"import langchainx\nfrom openai_tools import x\n# import anthropic\n", ()),
        (b'"""Uses the openai.types module."""\nx = 1\n', ()),
    ],
)
def test_imports_choose_presets(source: bytes, expected: tuple[str, ...]) -> None:
    assert imported_presets([source], load_catalog().presets) == expected


def test_a_langchain_project_gets_the_langchain_preset(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "app.py").write_text(LANGCHAIN_APP, encoding="utf-8")
    (tmp_path / "other.py").write_text("x = 1\n", encoding="utf-8")
    settings = load_settings(tmp_path)
    assert [p.name for p in settings.presets] == ["langchain"]
    assert settings.presets_inferred
    assert settings.spi.preset_names == ("langchain",)
    # Run from a subfolder on one file, the answer is the project's.
    assert load_settings(tmp_path / "pkg").spi == settings.spi


def test_ignored_files_do_not_count(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("vendored/\n", encoding="utf-8")
    (tmp_path / "vendored").mkdir()
    (tmp_path / "vendored" / "lc.py").write_text(LANGCHAIN_APP, encoding="utf-8")
    (tmp_path / "app.py").write_text("from loomlint.content import text_of\n", encoding="utf-8")
    settings = load_settings(tmp_path)
    assert [p.name for p in settings.presets] == ["loom"]
    assert not settings.presets_inferred


def test_a_configured_preset_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(LANGCHAIN_APP, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.loomlint]\npreset = ["openai"]\n', encoding="utf-8"
    )
    assert [p.name for p in load_settings(tmp_path).presets] == ["openai"]
    on_command_line = load_settings(tmp_path, overrides=CliOverrides(presets=("anthropic",)))
    assert [p.name for p in on_command_line.presets] == ["anthropic"]
    assert not on_command_line.presets_inferred


def test_the_default_preset_comes_first(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import anthropic\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("from loomlint.content import text_of\n", encoding="utf-8")
    settings = load_settings(tmp_path)
    assert settings.spi.preset_names == ("loom", "anthropic")
    assert settings.presets_inferred


def test_the_mypy_plugin_chooses_the_same_presets(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(LANGCHAIN_APP, encoding="utf-8")
    (tmp_path / "mypy.ini").write_text("[mypy]\n", encoding="utf-8")
    options = Options()
    options.config_file = str(tmp_path / "mypy.ini")
    plugin = load_plugin_config(options)
    assert plugin.settings.spi == load_settings(tmp_path).spi
    assert plugin.settings.spi.preset_names == ("langchain",)


def test_the_cli_says_which_presets_it_chose(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(LANGCHAIN_APP, encoding="utf-8")
    result = subprocess.run(
        [LOOMLINT, "check", "--no-types", "--no-cache", "app.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout) == (
        1,
        "app.py:5:20: LML003 content of `reply` is coerced to str by an f-string; use .text\n"
        "Found 1 finding.\n",
    )
    assert result.stderr == (
        "note: no preset configured; using langchain (from the imports of the checked files)\n"
        "note: checking without types (--no-types): precision is reduced\n"
    )
    quiet = subprocess.run(
        [LOOMLINT, "check", "-q", "--no-types", "--no-cache", "app.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (quiet.returncode, quiet.stderr) == (1, "")


def _loomlint(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LOOMLINT, *args], cwd=root, capture_output=True, text=True, check=False, timeout=120
    )


def test_the_presets_come_from_the_files_checked(tmp_path: Path) -> None:
    (tmp_path / "chat.py").write_text(LANGCHAIN_APP, encoding="utf-8")
    (tmp_path / "claude.py").write_text("import anthropic\n", encoding="utf-8")
    one = _loomlint(tmp_path, "check", "--no-types", "--no-cache", "chat.py")
    assert (one.returncode, one.stderr) == (
        1,
        "note: no preset configured; using langchain (from the imports of the checked files)\n"
        "note: checking without types (--no-types): precision is reduced\n",
    )
    whole = _loomlint(tmp_path, "check", "--no-types", "--no-cache")
    assert (whole.returncode, whole.stderr) == (
        1,
        "note: no preset configured; using anthropic, langchain (from the imports of the "
        "checked files)\n"
        "note: checking without types (--no-types): precision is reduced\n",
    )
    # Files that import no preset's modules: the default, and nothing to say.
    (tmp_path / "plain.py").write_text("x = 1\n", encoding="utf-8")
    plain = _loomlint(tmp_path, "check", "--no-types", "--no-cache", "plain.py")
    assert (plain.returncode, plain.stderr) == (
        0,
        "note: checking without types (--no-types): precision is reduced\n",
    )


# Runs `loomlint ARGS` in-process and prints, as JSON, how often each file was opened.
_COUNT_OPENS = """
import collections, json, os, sys
opened = collections.Counter()
def count(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].endswith(".py"):
        path = os.path.relpath(os.path.abspath(args[0]))
        if not path.startswith(".."):  # the project's, not loomlint's own modules
            opened[path] += 1
sys.addaudithook(count)
from loomlint.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(dict(opened), sort_keys=True))
"""


def test_each_checked_file_is_read_once(tmp_path: Path) -> None:
    (tmp_path / "chat.py").write_text(LANGCHAIN_APP, encoding="utf-8")
    (tmp_path / "plain.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "claude.py").write_text("import anthropic\n", encoding="utf-8")
    for args in (["check", "--no-types", "--no-cache"], ["check", "--no-types"]):
        done = subprocess.run(
            [sys.executable, "-c", _COUNT_OPENS, *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
        )
        opened = done.stdout.splitlines()[-1]
        assert opened == '{"chat.py": 1, "pkg/claude.py": 1, "plain.py": 1}', done.stderr


def test_the_language_server_infers_what_a_whole_project_run_infers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "chat.py").write_text(LANGCHAIN_APP, encoding="utf-8")
    (tmp_path / "claude.py").write_text("import anthropic\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("[tool.loomlint]\ntypes = 'none'\n", "utf-8")
    pending = load_settings(tmp_path, presets_from="run")
    assert pending.spi.preset_names == ("loom",)  # not chosen yet
    files = discover_files((tmp_path,), pending).files
    run = run_check(files, pending, use_cache=False)
    assert run.settings is not None
    assert run.settings.spi.preset_names == ("anthropic", "langchain")
    assert run.notes[0] == (
        "no preset configured; using anthropic, langchain (from the imports of the checked files)"
    )
    assert Project(tmp_path).settings().spi == run.settings.spi
    # A later run under the chosen settings (`fix` analysing a changed file again) keeps them.
    again = run_check([str(tmp_path / "claude.py")], run.settings, use_cache=False)
    assert again.settings == run.settings
    assert not any("no preset configured" in note for note in again.notes)


def test_inferred_presets_keep_the_declared_content_preserving_callees(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(LANGCHAIN_APP, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.loomlint]\ncontent-preserving = ["myapp.store.save"]\n', encoding="utf-8"
    )
    settings = load_settings(tmp_path)
    assert settings.spi.preset_names == ("langchain",)
    assert settings.spi.preserving == load_settings(tmp_path, presets_from="run").spi.preserving
    assert settings.spi.preserving
