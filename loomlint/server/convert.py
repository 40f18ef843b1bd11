"""loomlint's findings and fixes in the Language Server Protocol's terms.

Positions: loomlint counts 1-based lines and columns in characters (code points) of the text
it analysed; LSP counts 0-based lines and, unless the client negotiated otherwise, UTF-16 code
units. Both end lines at ``\r\n``, ``\r`` and ``\n`` only (``loomlint.files.lines``; the server's
documents split their lines so, ``server.documents``), and pygls's position codec converts the
characters with the encoding client and server agreed on. The analysis reads a buffer that
starts with a BOM without it (as it reads a file), so line 1's columns move by one.

Every edit offered is computed on the buffer's text, as ``fix`` and ``--add-noqa`` compute
theirs on a file's, and must keep what the code means (``loomlint.fix.meaning``), or is not
offered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

from loomlint.engine.diagnostics import Diagnostic
from loomlint.engine.suppress import UNUSED_SUPPRESSION
from loomlint.files.lines import LineOffsets, source_lines, without_break
from loomlint.fix.edits import apply_fixes
from loomlint.fix.meaning import comments_only_changed, literals_kept
from loomlint.report.add_noqa import comment_cannot_end
from loomlint.report.docs import rule_url

SOURCE = "loomlint"
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.loomlint"
# A file that could not be analysed (LML901-903, 905) is an error; checked without types
# (LML904) is information; an unused suppression is a hint shown as unneeded code.
_ERROR_CODES = frozenset({"LML901", "LML902", "LML903", "LML905"})
_INFORMATION_CODES = frozenset({"LML904"})
_BOM = "\ufeff"
_EXISTING_IGNORE = re.compile(r"#\s*loomlint\s*:\s*ignore\[(?P<body>[^\]\n]*)\]")


def severity(code: str) -> types.DiagnosticSeverity:
    if code in _ERROR_CODES:
        return types.DiagnosticSeverity.Error
    if code in _INFORMATION_CODES:
        return types.DiagnosticSeverity.Information
    if code == UNUSED_SUPPRESSION:
        return types.DiagnosticSeverity.Hint
    return types.DiagnosticSeverity.Warning


def lsp_range(
    document: TextDocument, line: int, column: int, end_line: int, end_column: int
) -> types.Range:
    """The range, in the client's units, of 1-based positions counted in the analysed text."""
    shift = 1 if document.source.startswith(_BOM) else 0
    return document.range_to_client_units(
        ServerTextRange(
            start=ServerTextPosition(
                line=line - 1, character=column - 1 + (shift if line == 1 else 0)
            ),
            end=ServerTextPosition(
                line=end_line - 1, character=end_column - 1 + (shift if end_line == 1 else 0)
            ),
        )
    )


def lsp_diagnostic(document: TextDocument, diagnostic: Diagnostic) -> types.Diagnostic:
    return types.Diagnostic(
        range=lsp_range(
            document,
            diagnostic.line,
            diagnostic.column,
            diagnostic.end_line,
            diagnostic.end_column,
        ),
        message=diagnostic.message,
        severity=severity(diagnostic.code),
        code=diagnostic.code,
        code_description=types.CodeDescription(href=rule_url(diagnostic.code)),
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if diagnostic.code == UNUSED_SUPPRESSION else None,
        related_information=[
            types.DiagnosticRelatedInformation(
                location=types.Location(
                    uri=document.uri,
                    range=lsp_range(
                        document, origin.line, origin.column, origin.end_line, origin.end_column
                    ),
                ),
                message="the message content comes from here",
            )
            for origin in diagnostic.origins
        ]
        or None,
    )


def code_actions(
    document: TextDocument,
    diagnostics: Sequence[Diagnostic],
    wanted: types.Range,
    only: Sequence[str] | None,
) -> list[types.CodeAction]:
    """Quick fixes for the findings that touch ``wanted``, and a fix-all for the file."""
    actions: list[types.CodeAction] = []
    quick = only is None or any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only)
    fix_all = only is None or any(
        FIX_ALL_KIND.startswith(kind) or kind.startswith(FIX_ALL_KIND) for kind in only
    )
    if quick:
        for diagnostic in diagnostics:
            if not _touches(diagnostic, wanted):
                continue
            shown = lsp_diagnostic(document, diagnostic)
            if diagnostic.fix is not None:
                edit = _rewrite(document, [diagnostic])
                if edit is not None:
                    actions.append(
                        types.CodeAction(
                            title=f"{diagnostic.fix.description} ({diagnostic.code})",
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=[shown],
                            edit=edit,
                            is_preferred=True,
                        )
                    )
            ignore = _ignore_edit(document, diagnostic)
            if ignore is not None and diagnostic.code != UNUSED_SUPPRESSION:
                actions.append(
                    types.CodeAction(
                        title=f"Ignore {diagnostic.code} on this line",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[shown],
                        edit=ignore,
                    )
                )
    if fix_all and any(d.fix is not None for d in diagnostics):
        edit = _rewrite(document, diagnostics)
        if edit is not None:
            actions.append(
                types.CodeAction(
                    title="Fix all loomlint findings in this file",
                    kind=FIX_ALL_KIND,
                    edit=edit,
                )
            )
    return actions


def _touches(diagnostic: Diagnostic, wanted: types.Range) -> bool:
    # Compared by line only: the range is in client units, the diagnostic in characters.
    return diagnostic.line - 1 <= wanted.end.line and wanted.start.line <= diagnostic.end_line - 1


def _rewrite(
    document: TextDocument, diagnostics: Sequence[Diagnostic]
) -> types.WorkspaceEdit | None:
    """The fixes of ``diagnostics`` as one edit of the span of text they change."""
    old = document.source
    bom = _BOM if old.startswith(_BOM) else ""
    body = old.removeprefix(bom)
    new = apply_fixes(body, diagnostics).text
    if new == body or not literals_kept(body, new):
        return None
    return _replace_span(document, old, bom + new)


def _replace_span(document: TextDocument, old: str, new: str) -> types.WorkspaceEdit:
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    offsets = LineOffsets(old)
    first, last = offsets.position(start), offsets.position(end_old)
    edit = types.TextEdit(
        range=document.range_to_client_units(
            ServerTextRange(
                start=ServerTextPosition(line=first[0] - 1, character=first[1] - 1),
                end=ServerTextPosition(line=last[0] - 1, character=last[1] - 1),
            )
        ),
        new_text=new[start:end_new],
    )
    return types.WorkspaceEdit(changes={document.uri: [edit]})


def _ignore_edit(document: TextDocument, diagnostic: Diagnostic) -> types.WorkspaceEdit | None:
    """``# loomlint: ignore[CODE]`` at the end of the finding's first line (or the code added
    to the one there). None where a comment cannot go: the line ends inside a string or
    continues with a backslash."""
    body = document.source.removeprefix(_BOM)
    lines = source_lines(body)
    if diagnostic.line > len(lines):
        return None
    text = without_break(lines[diagnostic.line - 1])
    existing = _EXISTING_IGNORE.search(text)
    if existing is not None:
        codes = [c.strip() for c in existing.group("body").split(",") if c.strip()]
        if diagnostic.code in codes:
            return None
        column = existing.end("body") + 1
        replaced, new_text = (column, column), f", {diagnostic.code}" if codes else diagnostic.code
    else:
        if comment_cannot_end(body, diagnostic.line):
            return None
        # Only Python's blanks are trimmed: any other character there ends a comment.
        stripped = text.rstrip(" \t\x0c")
        comment = f"# loomlint: ignore[{diagnostic.code}]"
        replaced = (len(stripped) + 1, len(text) + 1)
        new_text = comment if not stripped else f"  {comment}"
    edited = lines.copy()
    edited[diagnostic.line - 1] = (
        text[: replaced[0] - 1] + new_text + lines[diagnostic.line - 1][replaced[1] - 1 :]
    )
    if not comments_only_changed(body, "".join(edited)):
        return None
    edit = types.TextEdit(
        range=lsp_range(document, diagnostic.line, replaced[0], diagnostic.line, replaced[1]),
        new_text=new_text,
    )
    return types.WorkspaceEdit(changes={document.uri: [edit]})
