"""docs/editors.md's Neovim snippet, in a real Neovim, headless, started outside the project
(issue 21 item 12): the server attaches, types the buffer, and ends with Neovim."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from daemon_harness import wait_gone
from lsp_harness import TYPED_APP, TYPED_SUMMARY

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("nvim") is None,
        reason="nvim is not installed (Debian: apt-get install neovim); docs/editors.md's "
        "Neovim snippet is not driven",
    ),
]

EDITORS = Path(__file__).resolve().parents[2] / "docs" / "editors.md"

# Waits for the typed finding (or 120 s) if told its line, then writes what Neovim has: the buffer's
# diagnostics, the LSP clients, and the messages shown.
PROBE = """\
local typed_line = tonumber(os.getenv("TYPED_LINE") or "")
if typed_line then
  vim.wait(120000, function()
    for _, d in ipairs(vim.diagnostic.get(0)) do
      if d.lnum == typed_line then
        return true
      end
    end
    return false
  end, 100)
end
local found = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(found, { d.user_data.lsp.code, d.lnum, d.col, d.end_lnum, d.end_col })
end
local clients = {}
for _, client in pairs(vim.lsp.get_active_clients()) do
  table.insert(clients, { client.name, client.config.root_dir, client.rpc.pid })
end
local out = io.open(os.getenv("PROBE_OUT"), "w")
out:write(vim.fn.json_encode({
  diagnostics = found,
  clients = clients,
  messages = vim.fn.execute("messages"),
}))
out:close()
vim.cmd("qa!")
"""


def neovim_snippet() -> str:
    blocks = re.findall(r"^```lua\n(.*?)^```", EDITORS.read_text(encoding="utf-8"), re.M | re.S)
    (snippet,) = [block for block in blocks if "/.venv/bin/loomlint" in block]
    return snippet


def run_neovim(
    tmp_path: Path, started_in: Path, file: Path, *, wait_for_types: bool = True
) -> dict[str, object]:
    (tmp_path / "init.lua").write_text(neovim_snippet())
    (tmp_path / "probe.lua").write_text(PROBE)
    out = tmp_path / "probe.json"
    home = tmp_path / "home"
    env = {
        **os.environ,
        "PROBE_OUT": str(out),
        "TYPED_LINE": str(TYPED_SUMMARY[0][1]) if wait_for_types else "",
        # Neovim's own state (its LSP log) stays in the test's folder.
        **{f"XDG_{kind}_HOME": str(home / kind) for kind in ("CONFIG", "DATA", "STATE", "CACHE")},
    }
    command = ["nvim", "--headless", "-n", "-i", "NONE", "-u", str(tmp_path / "init.lua")]
    command += ["-c", f"luafile {tmp_path / 'probe.lua'}", str(file)]
    done = subprocess.run(
        command,
        cwd=started_in,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(out.read_text())
    return found


def project_with_venv(root: Path) -> Path:
    """A project whose .venv/bin/loomlint is this loomlint."""
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    app = root / "app.py"
    app.write_text(TYPED_APP)
    launcher = root / ".venv" / "bin" / "loomlint"
    launcher.parent.mkdir(parents=True)
    launcher.write_text(
        f'#!/bin/sh\nexec "{sys.executable}" -c '
        "'from loomlint.cli import console_main; console_main()' \"$@\"\n"
    )
    launcher.chmod(0o755)
    return app


def test_the_neovim_snippet_attaches_from_any_folder_and_shows_typed_findings(
    tmp_path: Path,
) -> None:
    app = project_with_venv(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = run_neovim(tmp_path, elsewhere, app)
    # Neovim's rows and columns: 0-based, as LSP sends them.
    assert found["diagnostics"] == [list(d) for d in TYPED_SUMMARY]
    ((name, root, pid),) = found["clients"]  # type: ignore[misc]
    assert (name, root) == ("loomlint", str(tmp_path / "project"))
    assert found["messages"] == ""
    # The server ended with Neovim (shutdown, exit), not left behind.
    wait_gone(pid)


def test_without_a_venv_the_neovim_snippet_says_why_nothing_attaches(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("")
    app = root / "app.py"
    app.write_text(TYPED_APP)
    found = run_neovim(tmp_path, tmp_path, app, wait_for_types=False)
    assert found["clients"] == []
    assert found["messages"] == (
        f"\nloomlint: no {root}/.venv/bin/loomlint; install loomlint in the project's .venv"
    )
