"""The language server's ranges and code-action edits, read and applied as a standard client
does (``lsp_reference``), on buffers holding the eight odd separators, CR-only, CRLF and mixed
line ends, a BOM, tabs and a character beyond the BMP: every range covers the text the
analysis flagged, fix-all gives `fix`'s text, each quick fix and each ignore comment keeps
what the code means and makes its finding go."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from loomlint.engine.analyze import analyze_source
from loomlint.engine.diagnostics import Diagnostic
from loomlint.fix.edits import apply_fixes
from loomlint.project.config import CliOverrides, Settings
from loomlint.project.settings import load_settings
from loomlint.server.convert import code_actions, lsp_diagnostic
from loomlint.server.documents import LspLinesDocument
from robustness.lsp_reference import apply_workspace_edit, offset_of
from robustness.odd_sources import (
    BOM,
    OddSource,
    code_without_comments,
    odd_sources,
    string_literals,
)

EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
URI = "file:///project/app.py"
LINE_END = re.compile(r"\r\n|\r|\n")
SETTINGS: list[Settings] = []


@pytest.fixture(scope="module", autouse=True)
def no_types_settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Settings of a folder of its own: no configuration above it, no files to infer from."""
    folder = tmp_path_factory.mktemp("lsp-edits")
    SETTINGS.append(load_settings(folder, overrides=CliOverrides(no_types=True, presets=("loom",))))
    yield
    SETTINGS.clear()


def buffer_of(source: OddSource) -> str:
    """The buffer as a client holding the file sends it (a BOM, if kept, is a character)."""
    return (BOM if source.bom else "") + source.text


def findings(buffer: str) -> list[Diagnostic]:
    """The analysis of a buffer, as the server runs it (on its UTF-8 bytes)."""
    return analyze_source("app.py", buffer.encode(), SETTINGS[0]).diagnostics


def analysed_offset(buffer: str, line: int, column: int) -> int:
    """The offset in ``buffer`` of a 1-based position of the analysis, which reads the text
    after a BOM."""
    body_start = 1 if buffer.startswith(BOM) else 0
    starts = [body_start] + [m.end() for m in LINE_END.finditer(buffer, body_start)]
    return starts[line - 1] + column - 1


def document(buffer: str) -> LspLinesDocument:
    return LspLinesDocument(
        URI,
        buffer,
        version=1,
        language_id="python",
        position_codec=PositionCodec(types.PositionEncodingKind.Utf16),
    )


def actions_for(buffer: str, diagnostic: Diagnostic) -> dict[str, types.CodeAction]:
    line = types.Position(diagnostic.line - 1, 0)
    found = code_actions(document(buffer), findings(buffer), types.Range(line, line), None)
    return {action.title: action for action in found}


@EXAMPLES
@given(odd_sources())
def test_ranges_cover_what_the_analysis_flagged(source: OddSource) -> None:
    buffer = buffer_of(source)
    shown = document(buffer)
    for diagnostic in findings(buffer):
        sent = lsp_diagnostic(shown, diagnostic)
        start = analysed_offset(buffer, diagnostic.line, diagnostic.column)
        end = analysed_offset(buffer, diagnostic.end_line, diagnostic.end_column)
        assert (offset_of(buffer, sent.range.start), offset_of(buffer, sent.range.end)) == (
            start,
            end,
        )


@EXAMPLES
@given(odd_sources())
def test_fix_all_gives_the_text_fix_writes(source: OddSource) -> None:
    buffer = buffer_of(source)
    diagnostics = findings(buffer)
    expected = (BOM if source.bom else "") + apply_fixes(source.text, diagnostics).text
    fix_all = [
        action
        for action in code_actions(
            document(buffer),
            diagnostics,
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            [types.CodeActionKind.SourceFixAll],
        )
    ]
    if expected == buffer:
        assert fix_all == []
        return
    (action,) = fix_all
    assert action.edit is not None
    fixed = apply_workspace_edit(buffer, action.edit)
    assert fixed == expected
    assert string_literals(fixed) == string_literals(buffer)
    assert [d for d in findings(fixed) if d.fix is not None] == []


@EXAMPLES
@given(odd_sources())
def test_each_quick_fix_and_ignore_keeps_the_code_and_removes_its_finding(
    source: OddSource,
) -> None:
    buffer = buffer_of(source)
    before = findings(buffer)
    fixable = sum(1 for d in before if d.fix is not None)
    for diagnostic in before:
        actions = actions_for(buffer, diagnostic)
        ignore = actions.get(f"Ignore {diagnostic.code} on this line")
        if ignore is not None:
            assert ignore.edit is not None
            edited = apply_workspace_edit(buffer, ignore.edit)
            assert code_without_comments(edited) == code_without_comments(buffer)
            # The same lines: the finding keeps its place, and is suppressed there.
            left = {(d.code, d.line, d.column) for d in findings(edited)}
            assert (diagnostic.code, diagnostic.line, diagnostic.column) not in left
        if diagnostic.fix is not None:
            quick = actions[f"{diagnostic.fix.description} ({diagnostic.code})"]
            assert quick.edit is not None
            edited = apply_workspace_edit(buffer, quick.edit)
            assert string_literals(edited) == string_literals(buffer)
            assert sum(1 for d in findings(edited) if d.fix is not None) == fixable - 1
