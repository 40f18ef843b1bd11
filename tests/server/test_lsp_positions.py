"""Positions sent over LSP are counted the LSP way (lines end at \\r\\n, \\r, \\n; characters are
UTF-16 code units), also in a buffer holding U+2028 and a character beyond the BMP: the real
server, a standard client's reading of its ranges and edits (``robustness.lsp_reference``),
and incremental changes the client sends."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest
from lsp_harness import SERVER_COMMAND, Session, apply_edit, summary, uri_of
from lsprotocol import types
from robustness.lsp_reference import offset_of, position_of

pytestmark = pytest.mark.slow

# The finding is on Python's (and LSP's) line 8; str.splitlines() puts it on line 10.
SOURCE = (
    "from loomlint.content import LlmMessage\n"
    'N = "a\u2028b"\n'
    "\n"
    "def f(m: LlmMessage) -> str:\n"
    '    doc = """\n'
    'x\x0c\n"""\n'
    '    return "\U0001f60b" + doc + str(m.content)\n'
)
# LSP line 7, `m.content`: code points 27-36 of the line, UTF-16 units 28-37 (the emoji is 2).
LML003 = ("LML003", 7, 28, 7, 37)


def fixed_by_cli(root: Path, text: str) -> str:
    copy = root.parent / "fixed-by-cli"
    copy.mkdir()
    (copy / "pyproject.toml").write_text((root / "pyproject.toml").read_text())
    (copy / "app.py").write_bytes(text.encode())
    done = subprocess.run(
        [*SERVER_COMMAND, "fix", "--no-cache", "app.py"], cwd=copy, capture_output=True, timeout=300
    )
    assert done.returncode in (0, 1), done.stderr
    fixed = (copy / "app.py").read_bytes().decode()
    shutil.rmtree(copy)
    return fixed


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    (root / "app.py").write_text(SOURCE)
    return root


def test_ranges_and_edits_are_counted_the_lsp_way(project: Path) -> None:
    asyncio.run(_session(project))


async def _session(project: Path) -> None:
    app = project / "app.py"
    async with Session(project) as session:
        session.open(app, SOURCE)
        first = await session.diagnostics(app, lambda p: bool(p.diagnostics))
        assert summary(first) == [LML003]
        (shown,) = first.diagnostics
        start, end = offset_of(SOURCE, shown.range.start), offset_of(SOURCE, shown.range.end)
        assert SOURCE[start:end] == "m.content"

        actions = {a.title: a for a in await session.code_actions(app, 7)}
        assert sorted(actions) == [
            "Fix all loomlint findings in this file",
            "Ignore LML003 on this line",
            "Wrap in `text_of(...)` (LML003)",
        ]
        expected = fixed_by_cli(project, SOURCE)
        assert expected == SOURCE.replace("LlmMessage\n", "LlmMessage, text_of\n").replace(
            "str(m.content)", "text_of(m.content)"
        )
        for title in ("Wrap in `text_of(...)` (LML003)", "Fix all loomlint findings in this file"):
            edit = actions[title].edit
            assert edit is not None
            assert apply_edit(SOURCE, edit) == expected
        ignore = actions["Ignore LML003 on this line"].edit
        assert ignore is not None
        assert apply_edit(SOURCE, ignore) == SOURCE.replace(
            "str(m.content)\n", "str(m.content)  # loomlint: ignore[LML003]\n"
        )

        # An incremental change after the odd separators: the server's copy stays the
        # client's, so the finding moves down a line with the text.
        uri = uri_of(app)
        session.versions[uri] += 1
        insert_at = position_of(SOURCE, SOURCE.index("    return"))
        session.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=session.versions[uri]
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=insert_at, end=insert_at),
                        text="    doc += '\u2029'\n",
                    )
                ],
            )
        )
        edited = SOURCE.replace("    return", "    doc += '\u2029'\n    return")
        version = session.versions[uri]
        moved = await session.diagnostics(app, lambda p: p.version == version)
        assert summary(moved) == [("LML003", 8, 28, 8, 37)]
        (fix_all,) = await session.code_actions(app, 0, only=[types.CodeActionKind.SourceFixAll])
        assert fix_all.edit is not None
        assert apply_edit(edited, fix_all.edit) == edited.replace(
            "LlmMessage\n", "LlmMessage, text_of\n"
        ).replace("str(m.content)", "text_of(m.content)")
