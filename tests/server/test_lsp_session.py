"""The real `loomlint server`, driven over stdio by pygls's language client: findings arrive,
follow the buffer, match `loomlint check` byte for byte, and follow a dependency's type."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest
from lsp_harness import SERVER_COMMAND, Session, apply_edit, check_json, summary, uri_of
from lsprotocol import types

from loomlint.report.docs import rule_url

pytestmark = pytest.mark.slow

HELPERS = """\
from loomlint.content import LlmMessage


def body(message: LlmMessage) -> str:
    return "x"
"""

HELPERS_RETURNING_CONTENT = """\
from loomlint.content import Content, LlmMessage


def body(message: LlmMessage) -> Content:
    return message.content
"""

APP = """\
from loomlint.content import LlmMessage

from helpers import body


def show(message: LlmMessage) -> str:
    return body(message).strip()


def shout(message: LlmMessage) -> str:
    return str(message.content)
"""

APP_FIXED = """\
from loomlint.content import LlmMessage, text_of

from helpers import body


def show(message: LlmMessage) -> str:
    return body(message).strip()


def shout(message: LlmMessage) -> str:
    return text_of(message.content)
"""

RELAY = """\
from loomlint.content import LlmMessage


def relay(message: LlmMessage) -> str:
    text = message.content
    return "said: " + text
"""

LML003 = ("LML003", 10, 15, 10, 30)
LML001 = ("LML001", 6, 11, 6, 24)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    (tmp_path / "helpers.py").write_text(HELPERS)
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


def fixed_by_cli(project: Path, name: str) -> str:
    """The file as `loomlint fix` rewrites it (in a copy of the project)."""
    copy = project.parent / "fixed-by-cli"
    shutil.copytree(project, copy)
    done = subprocess.run(
        [*SERVER_COMMAND, "fix", "--no-cache"], cwd=copy, capture_output=True, timeout=300
    )
    assert done.returncode in (0, 1), done.stderr
    return (copy / name).read_text()


def test_findings_follow_the_buffers_and_their_dependencies(project: Path) -> None:
    asyncio.run(_session(project))


async def _session(project: Path) -> None:
    app, helpers = project / "app.py", project / "helpers.py"
    async with Session(project) as session:
        session.open(helpers, HELPERS)
        session.open(app, APP)
        # The bug's diagnostic arrives, with its code, range, severity and rule page.
        first = await session.diagnostics(app, lambda p: p.version == 1 and bool(p.diagnostics))
        assert summary(first) == [LML003]
        (shown,) = first.diagnostics
        assert shown.severity == types.DiagnosticSeverity.Warning
        assert shown.source == "loomlint"
        assert shown.code_description is not None
        assert shown.code_description.href == rule_url("LML003")

        # The same findings as `loomlint check` on the same text, message included.
        cli = check_json(project)
        assert [(f["path"], f["code"], f["line"], f["column"], f["message"]) for f in cli] == [
            ("app.py", "LML003", 11, 16, shown.message)
        ]
        assert shown.related_information is None  # read where it is used

        # Where the value came from is the diagnostic's related information.
        relay = project / "relay.py"
        relay.write_text(RELAY)
        session.open(relay, RELAY)
        relayed = await session.diagnostics(relay, lambda p: bool(p.diagnostics))
        assert summary(relayed) == [("LML003", 5, 22, 5, 26)]
        related = relayed.diagnostics[0].related_information
        assert related is not None
        assert [(r.location.uri, r.location.range) for r in related] == [
            (
                relayed.uri,
                types.Range(
                    start=types.Position(line=4, character=11),
                    end=types.Position(line=4, character=26),
                ),
            )
        ]

        # The quick fix, the ignore comment, and fix-all, applied, give the expected text.
        actions = await session.code_actions(app, 10)
        by_title = {action.title: action for action in actions}
        assert sorted(by_title) == [
            "Fix all loomlint findings in this file",
            "Ignore LML003 on this line",
            "Wrap in `text_of(...)` (LML003)",
        ]
        fix = by_title["Wrap in `text_of(...)` (LML003)"]
        assert fix.kind == types.CodeActionKind.QuickFix
        assert fix.edit is not None
        assert apply_edit(APP, fix.edit) == APP_FIXED == fixed_by_cli(project, "app.py")
        ignore = by_title["Ignore LML003 on this line"].edit
        assert ignore is not None
        assert apply_edit(APP, ignore) == APP.replace(
            "str(message.content)\n", "str(message.content)  # loomlint: ignore[LML003]\n"
        )
        fix_all = await session.code_actions(app, 0, only=[types.CodeActionKind.SourceFixAll])
        assert [a.kind for a in fix_all] == ["source.fixAll.loomlint"]
        assert fix_all[0].edit is not None
        assert apply_edit(APP, fix_all[0].edit) == APP_FIXED

        # Applying the fix to the buffer (unsaved) makes the diagnostic go.
        version = session.replace(app, apply_edit(APP, fix.edit))
        fixed = await session.diagnostics(app, lambda p: p.version == version)
        assert summary(fixed) == []

        # The ignore comment silences it too.
        version = session.replace(app, apply_edit(APP, ignore))
        ignored = await session.diagnostics(app, lambda p: p.version == version)
        assert summary(ignored) == []

        # A dependency's type changes in another open (unsaved) buffer: the dependent file's
        # findings follow, through mypy's fine-grained update.
        version = session.replace(app, APP)
        await session.diagnostics(app, lambda p: p.version == version and bool(p.diagnostics))
        session.replace(helpers, HELPERS_RETURNING_CONTENT)
        followed = await session.diagnostics(app, lambda p: len(p.diagnostics) == 2)
        assert summary(followed) == [LML001, LML003]
        # ... and back.
        session.replace(helpers, HELPERS)
        back = await session.diagnostics(app, lambda p: len(p.diagnostics) == 1)
        assert summary(back) == [LML003]

        # A burst of edits is checked once, at its last version: the rounds for the edits in
        # between are superseded before they start. No result ever follows a newer one.
        burst_start = session.versions[uri_of(app)] + 1
        for number in range(5):
            version = session.replace(app, APP + f"\n# edit {number}\n")
        burst = await session.diagnostics(app, lambda p: p.version == version)
        assert summary(burst) == [LML003]
        shown_versions = [p.version for p in session.published if p.uri == uri_of(app)]
        assert set(shown_versions).isdisjoint(range(burst_start, version))
        assert shown_versions == sorted(shown_versions)

        # A configuration change is picked up without a restart (the client reports the
        # change of pyproject.toml; the server reads the configuration again).
        pyproject = project / "pyproject.toml"
        pyproject.write_text(pyproject.read_text() + '\n[tool.loomlint]\nignore = ["LML003"]\n')
        session.client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=uri_of(pyproject), type=types.FileChangeType.Changed)]
            )
        )
        reconfigured = await session.diagnostics(app, lambda p: not p.diagnostics)
        assert summary(reconfigured) == []


SURROGATE = 'x = "\ud800"\n'


def test_a_buffer_holding_a_lone_surrogate_stops_no_other_buffers_types(project: Path) -> None:
    asyncio.run(_surrogate_session(project))


async def _surrogate_session(project: Path) -> None:
    app, helpers, odd = project / "app.py", project / "helpers.py", project / "odd.py"
    async with Session(project) as session:
        # The editor's buffer holds what no file can (JSON's "\ud800"): it is what a file of
        # such bytes is to `loomlint check`.
        session.open(odd, SURROGATE)
        shown = await session.diagnostics(odd, lambda p: bool(p.diagnostics))
        assert summary(shown) == [("LML902", 0, 0, 0, 1)]
        assert shown.diagnostics[0].message == (
            "the file cannot be decoded (invalid or missing encoding declaration); it was not "
            "checked"
        )
        session.open(helpers, HELPERS)
        session.open(app, APP)
        await session.diagnostics(app, lambda p: p.version == 1 and bool(p.diagnostics))
        # Types still reach every other buffer: a dependency's change shows in its dependent.
        session.replace(helpers, HELPERS_RETURNING_CONTENT)
        followed = await session.diagnostics(app, lambda p: len(p.diagnostics) == 2)
        assert summary(followed) == [LML001, LML003]
