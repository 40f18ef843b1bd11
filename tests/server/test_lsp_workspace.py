"""The server as editors start it: from any folder, and, when told, without running the
project's mypy plugins (issue 21 items 11 and 13)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from lsp_harness import (
    SERVER_COMMAND,
    TYPED_APP,
    TYPED_SUMMARY,
    Session,
    check_json,
    summary,
    typed,
)
from lsprotocol import types

from loomlint.server.project import Project

pytestmark = pytest.mark.slow

MARKER_PLUGIN = """\
import sys
from pathlib import Path

from mypy.plugin import Plugin

with Path(__file__).with_name("plugin-ran").open("a") as marks:
    marks.write(sys.argv[1] + "\\n")  # the loomlint command that imported it


def plugin(version: str) -> type[Plugin]:
    return Plugin
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text(
        '[tool.mypy]\nstrict = true\nplugins = ["marker_plugin.py"]\n'
    )
    (root / "marker_plugin.py").write_text(MARKER_PLUGIN)
    (root / "app.py").write_text(TYPED_APP)
    return root


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """The folder an editor started in: another project's, with a configuration of its own."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[tool.mypy]\nplugins = ["missing_plugin"]\n')
    return folder


def test_the_cli_tells_the_typed_finding_from_the_quick_one(project: Path) -> None:
    assert [(f["line"], f["column"], f["code"]) for f in check_json(project)] == [
        (10, 25, "LML003")
    ]
    assert [(f["line"], f["column"], f["code"]) for f in check_json(project, "--no-types")] == [
        (14, 23, "LML003")
    ]


def test_started_in_another_folder_the_server_types_the_project_as_from_its_root(
    project: Path, elsewhere: Path
) -> None:
    asyncio.run(_typed_from(project, elsewhere))


async def _typed_from(project: Path, elsewhere: Path) -> None:
    session = Session(project)
    await session.start(cwd=elsewhere)
    try:
        session.open(project / "app.py", TYPED_APP)
        shown = await session.diagnostics(project / "app.py", typed, timeout=90)
        # No LML904 (types unavailable): the project's files were found, and mypy read the
        # project's configuration (its plugin ran), not the starting folder's.
        assert summary(shown) == TYPED_SUMMARY
        assert (project / "plugin-ran").read_text() == "server\n"
    finally:
        await session.stop()


@pytest.mark.parametrize("told", ["--no-project-plugins", "noProjectPlugins"])
def test_told_so_the_server_runs_none_of_the_projects_plugins(
    project: Path, elsewhere: Path, told: str
) -> None:
    asyncio.run(_without_plugins(project, elsewhere, told))


async def _without_plugins(project: Path, elsewhere: Path, told: str) -> None:
    session = Session(project)
    if told.startswith("--"):
        await session.start(told, cwd=elsewhere)
    else:
        await session.start(cwd=elsewhere, initialization_options={told: True})
    try:
        session.open(project / "app.py", TYPED_APP)
        shown = await session.diagnostics(project / "app.py", typed, timeout=90)
        assert summary(shown) == TYPED_SUMMARY
        assert not (project / "plugin-ran").exists()
        # `loomlint check` asks the server (it answers for its project) and is declined: its
        # own run loads the plugins, which the server never does.
        done = subprocess.run(
            [*SERVER_COMMAND, "check", "-v", "--format", "json"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert [(f["line"], f["code"]) for f in json.loads(done.stdout)] == [(10, "LML003")]
        assert (
            "note: daemon: the daemon declined: it runs without the project's mypy plugins "
            "(--no-project-plugins); give the check --no-project-plugins too; checking here\n"
        ) in done.stderr
        assert (project / "plugin-ran").read_text() == "check\n"
    finally:
        await session.stop()


def test_an_initialization_option_that_is_no_switch_keeps_the_plugins_out(
    project: Path, elsewhere: Path
) -> None:
    asyncio.run(_odd_option(project, elsewhere))


async def _odd_option(project: Path, elsewhere: Path) -> None:
    session = Session(project)
    shown_messages: list[str] = []

    @session.client.feature(types.WINDOW_SHOW_MESSAGE)
    def on_message(params: types.ShowMessageParams) -> None:
        shown_messages.append(params.message)

    await session.start(cwd=elsewhere, initialization_options={"noProjectPlugins": "yes"})
    try:
        session.open(project / "app.py", TYPED_APP)
        await session.diagnostics(project / "app.py", typed, timeout=90)
        assert not (project / "plugin-ran").exists()
        assert shown_messages == [
            "loomlint: initializationOptions must be an object whose noProjectPlugins is true "
            'or false, got {"noProjectPlugins": "yes"}; the project\'s mypy plugins are not '
            "loaded"
        ]
    finally:
        await session.stop()


def test_the_warm_mypy_finds_the_projects_files_whatever_folder_the_process_is_in(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A daemon started from a subfolder, say: discovery names the files relative to the
    # root, and they must not be read relative to the process's folder.
    (project / "marker_plugin.py").unlink()
    (project / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    bare = tmp_path / "bare"
    bare.mkdir()
    monkeypatch.chdir(bare)
    app = str(project / "app.py")
    result = Project(project).check_typed({app: TYPED_APP})[app]
    assert [(d.code, d.line, d.column) for d in result.diagnostics] == [("LML003", 10, 25)]
