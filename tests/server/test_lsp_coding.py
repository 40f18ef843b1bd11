"""A buffer that declares its encoding (PEP 263) is judged as the file that holds it: the
server encodes the buffer's text as the declaration says, and its findings are those of
`loomlint check` on the file saved so, at the same columns, with and without types."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsp_harness import Session, check_json, summary
from mypy.util import decode_python_encoding

from loomlint.files.encoding import source_bytes

pytestmark = pytest.mark.slow

# Non-ASCII characters before each finding on its line: read as UTF-8 under the latin-1
# declaration, "é" is two characters ("Ã©"), and every column after it moves.
SOURCE = """\
# -*- coding: latin-1 -*-
from loomlint.content import LlmMessage, to_parts


def shout(m: LlmMessage) -> str:
    first = to_parts(m.content)[0]
    return str(("ééé", m.role, first)) + "é" + str(m.content)
"""
# LSP: 0-based lines, characters in UTF-16 units (one for each "é").
TYPED = [("LML003", 6, 31, 6, 36), ("LML003", 6, 51, 6, 60)]
QUICK = [("LML003", 6, 51, 6, 60)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    (root / "app.py").write_bytes(SOURCE.encode("latin-1"))
    return root


def test_a_latin_1_buffer_is_judged_as_its_file_is(project: Path) -> None:
    cli = check_json(project)
    assert [(f["line"], f["column"]) for f in cli] == [(7, 32), (7, 52)]
    cli_quick = check_json(project, "--no-types")
    assert [(f["line"], f["column"]) for f in cli_quick] == [(7, 52)]
    asyncio.run(_session(project))


async def _session(project: Path) -> None:
    app = project / "app.py"
    async with Session(project) as session:
        session.open(app, SOURCE)
        typed = await session.diagnostics(app, lambda p: len(p.diagnostics) == 2)
    assert summary(typed) == TYPED
    # Every publication before it: the findings without types (while mypy builds), then these.
    shown = [summary(p) for p in session.published if p.uri == typed.uri and p.diagnostics]
    assert shown[-1] == TYPED
    assert set(map(tuple, shown[:-1])) <= {tuple(QUICK)}, shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('x = "é"\n', b'x = "\xc3\xa9"\n'),
        ('# coding: latin-1\nx = "é"\n', b'# coding: latin-1\nx = "\xe9"\n'),
        (
            '#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = "€"\n',
            b'#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = "\x80"\n',
        ),
        ('\ufeffx = "é"\n', b'\xef\xbb\xbfx = "\xc3\xa9"\n'),
    ],
    ids=["no-declaration", "latin-1", "cp1252-second-line", "bom"],
)
def test_a_buffer_is_encoded_as_it_declares(text: str, expected: bytes) -> None:
    assert source_bytes(text) == expected
    assert decode_python_encoding(expected) == text.removeprefix("\ufeff")


@pytest.mark.parametrize(
    "text",
    ['# coding: latin-1\nx = "€"\n', '# coding: no-such-codec\nx = "é"\n', 'x = "\ud800"\n'],
    ids=["not-in-latin-1", "unknown-encoding", "lone-surrogate"],
)
def test_a_buffer_no_file_can_hold_keeps_its_utf_8(text: str) -> None:
    # As an editor that ignores the declaration saves it; the readers then judge those bytes.
    assert source_bytes(text) == text.encode("utf-8", errors="surrogatepass")
