"""Documents whose lines are the Language Server Protocol's: a layer over pygls.

LSP ends a line at ``\\r\\n``, ``\\r`` or ``\\n`` only, as Python does (``loomlint.files.lines``).
pygls 2.1's ``TextDocument.lines`` splits with ``str.splitlines()``, which also breaks at
``\\x0b \\x0c \\x1c-\\x1e \\x85 \\u2028 \\u2029``. Every position it converts after such a
character is then on the wrong line: the ranges of published findings, the edits of code
actions, and the incremental changes a client sends, which pygls would apply at the wrong
place, so the server's copy of a buffer would no longer be the editor's.

The server's protocol (``LspLinesProtocol``) replaces pygls's workspace once ``initialize``
has made it, by one whose documents count lines the LSP way; the rest of pygls is unchanged.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from lsprotocol import types
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.workspace import TextDocument, Workspace

from loomlint.files.lines import source_lines


class LspLinesDocument(TextDocument):
    """A pygls text document whose lines end where LSP (and Python) end them."""

    @property
    def lines(self) -> Sequence[str]:
        return tuple(source_lines(self.source))


class LspLinesWorkspace(Workspace):
    """pygls's workspace, holding ``LspLinesDocument``\\ s."""

    def __init__(self, like: Workspace, sync_kind: types.TextDocumentSyncKind) -> None:
        super().__init__(
            like.root_uri,
            sync_kind,
            list(like.folders.values()),
            like.position_encoding,
        )

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return LspLinesDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self.position_codec,
        )


class LspLinesProtocol(LanguageServerProtocol):
    """pygls's protocol, with a workspace of ``LspLinesDocument``\\ s. The server must be
    made with ``text_document_sync_kind=LspLinesProtocol.SYNC_KIND``."""

    SYNC_KIND = types.TextDocumentSyncKind.Incremental

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        result = yield from super().lsp_initialize(params)
        # No document is open yet: the client opens them after ``initialized``.
        self._workspace = LspLinesWorkspace(self.workspace, self.SYNC_KIND)
        return result
