"""Drives the real `loomlint server` subprocess through pygls's own language client."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path
from robustness.lsp_reference import apply_workspace_edit

SERVER_COMMAND = (sys.executable, "-c", "from loomlint.cli import console_main; console_main()")


# Without types, the first function's finding is missed and the second's is a false one
# (`wire` is the JSON form): which of them is shown tells a typed result from a quick one.
TYPED_APP = """\
from __future__ import annotations

import json

from loomlint.content import LlmMessage, LlmMessageDict, to_parts


def parts_in_a_tuple(m: LlmMessage) -> str:
    first = to_parts(m.content)[0]
    return str((m.role, first))


def wired(wire: LlmMessageDict) -> str:
    return json.dumps(wire["content"])
"""
TYPED_SUMMARY = [("LML003", 9, 24, 9, 29)]


def typed(params: types.PublishDiagnosticsParams) -> bool:
    """Whether ``params`` are TYPED_APP's typed findings (those without types differ)."""
    return any(d.range.start.line == TYPED_SUMMARY[0][1] for d in params.diagnostics)


def uri_of(path: Path) -> str:
    uri = from_fs_path(str(path))
    assert uri is not None
    return uri


class Session:
    """One server over stdio, with every publishDiagnostics it sent, in order."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.client = LanguageClient("loomlint-test", "1")
        self.published: list[types.PublishDiagnosticsParams] = []
        self._arrived = asyncio.Event()
        self.versions: dict[str, int] = {}
        # What the server asked the client to watch for it, by registration id (dynamic
        # registration, with ``watch_files``).
        self.registrations: dict[str, types.Registration] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published.append(params)
            self._arrived.set()

        @self.client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def on_register(params: types.RegistrationParams) -> None:
            self.registrations.update((r.id, r) for r in params.registrations)
            self._arrived.set()

        @self.client.feature(types.CLIENT_UNREGISTER_CAPABILITY)
        def on_unregister(params: types.UnregistrationParams) -> None:
            for gone in params.unregisterations:
                self.registrations.pop(gone.id, None)
            self._arrived.set()

    async def start(
        self,
        *args: str,
        cwd: Path | None = None,
        initialization_options: object = None,
        watch_files: bool = False,
    ) -> None:
        """Start ``loomlint server ARGS`` in ``cwd`` (the root by default) and initialize it;
        with ``watch_files``, as a client that watches files the server registers."""
        workspace = None
        if watch_files:
            workspace = types.WorkspaceClientCapabilities(
                did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                    dynamic_registration=True, relative_pattern_support=True
                )
            )
        await self.client.start_io(*SERVER_COMMAND, "server", *args, cwd=str(cwd or self.root))
        await self.client.initialize_async(
            types.InitializeParams(
                process_id=None,
                root_uri=uri_of(self.root),
                initialization_options=initialization_options,
                capabilities=types.ClientCapabilities(
                    workspace=workspace,
                    text_document=types.TextDocumentClientCapabilities(
                        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                            version_support=True
                        )
                    ),
                ),
            )
        )
        self.client.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await self.client.stop()

    async def __aenter__(self) -> Session:
        """``async with Session(root) as session``: the server started as ``start()`` does, and
        stopped however the block ends (what the session published stays readable)."""
        await self.start()
        return self

    async def __aexit__(self, *_exc_info: object) -> None:
        await self.stop()

    def open(self, path: Path, text: str) -> None:
        self.versions[uri_of(path)] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri_of(path), language_id="python", version=1, text=text
                )
            )
        )

    def replace(self, path: Path, text: str) -> int:
        """Send the whole new text of an open buffer; returns its version."""
        uri = uri_of(path)
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return self.versions[uri]

    async def diagnostics(
        self,
        path: Path,
        until: Callable[[types.PublishDiagnosticsParams], bool],
        timeout: float = 120.0,
    ) -> types.PublishDiagnosticsParams:
        """The first publication for ``path`` (from now on) that satisfies ``until``."""
        uri = uri_of(path)
        seen = len(self.published)
        deadline = time.monotonic() + timeout
        while True:
            for params in self.published[seen:]:
                if params.uri == uri and until(params):
                    return params
            seen = len(self.published)
            self._arrived.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                shown = [(p.uri, p.version, summary(p)) for p in self.published[-5:]]
                raise AssertionError(f"no diagnostics as expected for {path}: {shown}")
            try:
                await asyncio.wait_for(self._arrived.wait(), remaining)
            except asyncio.TimeoutError:
                continue

    async def registered(self, key: str, present: bool = True, timeout: float = 120.0) -> None:
        """Until the server has registered (or, ``present=False``, unregistered) ``key``."""
        deadline = time.monotonic() + timeout
        while (key in self.registrations) != present:
            self._arrived.clear()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{key} is {'not ' if present else ''}registered")
            try:
                await asyncio.wait_for(self._arrived.wait(), remaining)
            except asyncio.TimeoutError:
                continue

    async def code_actions(
        self, path: Path, line: int, only: list[types.CodeActionKind] | None = None
    ) -> list[types.CodeAction]:
        result = await self.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=uri_of(path)),
                range=types.Range(
                    start=types.Position(line=line, character=0),
                    end=types.Position(line=line, character=0),
                ),
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        )
        return [a for a in result or [] if isinstance(a, types.CodeAction)]


def summary(params: types.PublishDiagnosticsParams) -> list[tuple[str, int, int, int, int]]:
    """(code, start line, start character, end line, end character) of each diagnostic."""
    return [
        (
            str(d.code),
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
        )
        for d in params.diagnostics
    ]


def typed_messages(
    project: Path, name: str, typed: list[tuple[str, int, int, int, int]]
) -> list[str]:
    """The messages the server shows for the project's file ``name`` once it shows the typed
    result ``typed`` summarises (``summary``): the quick result, without types, comes first."""

    async def shown() -> list[str]:
        async with Session(project) as session:
            path = project / name
            session.open(path, path.read_text(encoding="utf-8"))
            params = await session.diagnostics(path, lambda p: summary(p) == typed, timeout=120)
            return [d.message for d in params.diagnostics]

    return asyncio.run(shown())


def apply_edit(text: str, edit: types.WorkspaceEdit) -> str:
    """Apply a workspace edit's text edits to one document, as a standard client does."""
    return apply_workspace_edit(text, edit)


def check_json(root: Path, *args: str) -> list[dict[str, object]]:
    """`loomlint check --format json` on the project, as the command line reports it."""
    done = subprocess.run(
        [*SERVER_COMMAND, "check", "--format", "json", "--no-cache", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    findings: list[dict[str, object]] = json.loads(done.stdout)
    return findings
