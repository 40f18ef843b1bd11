"""--no-project-plugins: loomlint's mypy build loads none of the plugins the analysed project's
mypy configuration names, so a pull request that adds one runs no code in loomlint's process.
Real runs of the installed script on a project whose plugin leaves a mark when imported."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = shutil.which("loomlint", path=str(Path(sys.executable).parent))

APP = (
    "from loomlint.content import LlmMessage\n"
    "\n"
    "\n"
    "def f(m: LlmMessage) -> str:\n"
    "    return str(m.content)\n"
)

# Importing the plugin is enough to run the project's code: it leaves a file to say so.
MARKING_PLUGIN = """\
from pathlib import Path

from mypy.plugin import Plugin

Path("plugin-ran").write_text("")


def plugin(version: str) -> type[Plugin]:
    return Plugin
"""

CRASHING_PLUGIN = 'raise RuntimeError("the project plugin ran")\n'


def _project(root: Path, plugin: str) -> Path:
    (root / "app.py").write_text(APP, encoding="utf-8")
    (root / "project_plugin.py").write_text(plugin, encoding="utf-8")
    (root / "mypy.ini").write_text("[mypy]\nplugins = project_plugin\n", encoding="utf-8")
    return root


def _loomlint(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert SCRIPT is not None, "loomlint is not installed next to the test interpreter"
    return subprocess.run(
        [SCRIPT, *args],
        cwd=root,
        capture_output=True,
        text=True,
        # The plugin is importable, as it is for the project's own mypy runs.
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=300,
        check=False,
    )


def _findings(report: str) -> list[tuple[str, int, int, str]]:
    return [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(report)]


def test_check_without_project_plugins_runs_none_of_their_code(tmp_path: Path) -> None:
    root = _project(tmp_path, MARKING_PLUGIN)
    run = _loomlint(root, "check", "app.py", "--format", "json", "--no-project-plugins")
    assert (run.returncode, run.stderr) == (1, "")
    assert _findings(run.stdout) == [("app.py", 5, 16, "LML003")]
    assert not (root / "plugin-ran").exists()
    # Without the flag the build loads it, as the project's own mypy does.
    run = _loomlint(root, "check", "app.py", "--format", "json", "--no-cache")
    assert run.returncode == 1, run.stderr
    assert _findings(run.stdout) == [("app.py", 5, 16, "LML003")]
    assert (root / "plugin-ran").exists()


def test_fix_without_project_plugins_runs_none_of_their_code(tmp_path: Path) -> None:
    root = _project(tmp_path, MARKING_PLUGIN)
    run = _loomlint(root, "fix", "app.py", "--diff", "--no-project-plugins")
    assert run.returncode == 1, run.stderr
    assert "+    return text_of(m.content)\n" in run.stdout
    assert not (root / "plugin-ran").exists()


def test_a_crashing_project_plugin_is_not_loaded_with_the_flag(tmp_path: Path) -> None:
    root = _project(tmp_path, CRASHING_PLUGIN)
    run = _loomlint(root, "check", "app.py", "--format", "json", "--no-project-plugins")
    assert (run.returncode, run.stderr) == (1, "")
    assert _findings(run.stdout) == [("app.py", 5, 16, "LML003")]
    crashed = _loomlint(root, "check", "app.py", "--format", "json", "--no-cache")
    assert "the project plugin ran" in crashed.stdout + crashed.stderr


@pytest.mark.parametrize("command", ["check", "fix"])
def test_the_flag_is_documented_in_both_commands(tmp_path: Path, command: str) -> None:
    run = _loomlint(tmp_path, command, "--help")
    assert "--no-project-plugins" in run.stdout
