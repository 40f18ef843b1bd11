"""A base configuration that `extend` names outside the workspace is read again when it
changes, as the workspace's own configuration files are: the server asks the editor to watch
it (and stops when the configuration no longer names it), and its next check uses it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_harness import Session, summary, uri_of
from lsprotocol import types

pytestmark = pytest.mark.slow

APP = """\
from loomlint.content import LlmMessage


def show(message: LlmMessage) -> str:
    return message.content.strip() + str(message.content)
"""
LML001 = ("LML001", 4, 11, 4, 26)
LML003 = ("LML003", 4, 41, 4, 56)
BASES = "loomlint-configuration-bases"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "loomlint.toml").write_text('ignore = ["LML003"]\n')
    (root / "pyproject.toml").write_text(
        '[tool.loomlint]\nextend = "../shared/loomlint.toml"\n\n[tool.mypy]\nstrict = true\n'
    )
    (root / "app.py").write_text(APP)
    return root


def test_a_base_outside_the_workspace_is_watched_and_read_again(project: Path) -> None:
    asyncio.run(_session(project))


async def _session(project: Path) -> None:
    app, base = project / "app.py", project.parent / "shared" / "loomlint.toml"
    session = Session(project)
    await session.start(watch_files=True)
    try:
        session.open(app, APP)
        first = await session.diagnostics(app, lambda p: p.version == 1 and bool(p.diagnostics))
        assert summary(first) == [LML001]
        await session.registered(BASES)
        registration = session.registrations[BASES]
        assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        # As sent (JSON): the base's folder and name, a relative pattern.
        assert registration.register_options == {
            "watchers": [
                {"globPattern": {"baseUri": uri_of(base.parent), "pattern": "loomlint.toml"}}
            ]
        }

        # The editor reports the change of the base it watches: LML003 is no longer ignored.
        base.write_text("ignore = []\n")
        _changed(session, base)
        both = await session.diagnostics(app, lambda p: len(p.diagnostics) == 2)
        assert summary(both) == [LML001, LML003]

        # The configuration no longer extends it: it is not watched any more.
        (project / "pyproject.toml").write_text(
            '[tool.loomlint]\nignore = ["LML001"]\n\n[tool.mypy]\nstrict = true\n'
        )
        _changed(session, project / "pyproject.toml")
        own = await session.diagnostics(app, lambda p: summary(p) == [LML003])
        assert summary(own) == [LML003]
        await session.registered(BASES, present=False)
    finally:
        await session.stop()


def _changed(session: Session, path: Path) -> None:
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri_of(path), type=types.FileChangeType.Changed)]
        )
    )
