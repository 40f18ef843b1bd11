"""``loomlint server``: the Language Server Protocol over stdio, on pygls.

The stream is read by a layer of ours (``transport``: bad frames, lengths and params are
answered there, and the stream goes on); pygls does the rest. The server works in the
workspace root it is given, whatever folder it was started in. The event loop only takes
messages and publishes results; analyses, and the conversion of their findings to LSP
positions, run on two threads:

- the *quick* thread checks a newly opened file without types (``--no-types``), so its
  findings show at once, before mypy has typed it;
- the *typed* thread owns the warm mypy (``warm.WarmMypy``) and checks every open buffer with
  types in one fine-grained update; its result replaces the quick one.

The server also answers ``loomlint check`` for its project, as ``loomlint daemon`` does
(``daemon.Daemon``): on a socket of the project's, with checks of the files on disk run on
the typed thread, through the same warm mypy; the editor's unsaved buffers never reach them.

Edits are debounced. A typed round takes a snapshot of the open buffers when it starts; a
round still waiting (in its debounce, or behind a running round) is superseded by a newer
edit, and a result for a buffer that changed meanwhile is dropped (compared by version):
the editor never waits for mypy, and never sees findings for text it no longer has.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypeVar, cast

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from loomlint import __version__
from loomlint.engine import budget
from loomlint.engine.diagnostics import FileResult
from loomlint.project.config import CliOverrides, ConfigError
from loomlint.run.workers import file_diagnostic
from loomlint.server.convert import code_actions, lsp_diagnostic
from loomlint.server.daemon import Daemon
from loomlint.server.documents import LspLinesDocument, LspLinesProtocol
from loomlint.server.endpoint import EndpointError
from loomlint.server.project import CONFIG_NAMES, Project
from loomlint.server.transport import FrameWriter, Gate, read_messages

# The initialization option that keeps the project's mypy plugins out, as
# --no-project-plugins does.
_NO_PROJECT_PLUGINS = "noProjectPlugins"
# The ids of the file watchers the server registers with the client.
_WATCHED_FILES = "loomlint-watched-files"
_WATCHED_BASES = "loomlint-configuration-bases"
# Seconds an edit waits for the next before the typed check starts.
DEBOUNCE_SECONDS = float(os.environ.get("LOOMLINT_SERVER_DEBOUNCE", "0.15"))

_log = logging.getLogger("loomlint.server")
_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class _Published:
    """The findings last published for a buffer, for its code actions."""

    version: int | None
    result: FileResult
    typed: bool


class LoomlintServer(LanguageServer):
    def __init__(self, *, no_project_plugins: bool = False) -> None:
        super().__init__(  # pyright: ignore[reportUnknownMemberType]
            "loomlint",
            __version__,
            text_document_sync_kind=LspLinesProtocol.SYNC_KIND,
            protocol_cls=LspLinesProtocol,
        )
        self.project: Project | None = None
        # --no-project-plugins; the initialization option noProjectPlugins can only add it.
        self.no_project_plugins = no_project_plugins
        self._quick = ThreadPoolExecutor(max_workers=1, thread_name_prefix="loomlint-quick")
        self._typed = ThreadPoolExecutor(max_workers=1, thread_name_prefix="loomlint-typed")
        self._published: dict[str, _Published] = {}
        self._round_lock = asyncio.Lock()
        # Edits counted; the generation a typed round last took its snapshot at.
        self._generation = 0
        self._checked_generation = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._endpoint: Daemon | None = None
        # Whether the client watches files for us (dynamic registration), and with relative
        # patterns; the base configurations outside the workspace it watches now.
        self._client_watches = False
        self._relative_patterns = False
        self._watched_bases: tuple[Path, ...] = ()

    def serve_stream(self, stdin: BinaryIO, stdout: BinaryIO) -> int:
        """Serve LSP over the streams (our reader in place of pygls's: ``transport``) until
        ``exit`` or the end of ``stdin``; the exit status."""
        writer = FrameWriter(stdout)
        self.protocol.set_writer(writer)
        try:
            return asyncio.run(read_messages(Gate(self.protocol, writer), stdin))
        finally:
            self.stop_listening()
            self.shutdown()  # type: ignore[no-untyped-call]

    # --- loomlint check's endpoint -----------------------------------------------------------

    def listen_for_checks(self) -> None:
        """Answer ``loomlint check`` for the project, unless a daemon already does."""
        project = self.project
        if project is None or os.environ.get("LOOMLINT_NO_DAEMON", "") not in ("", "0"):
            return
        endpoint = Daemon(project, lambda work: self._typed.submit(work))
        try:
            endpoint.listen()
        except (EndpointError, OSError) as exc:
            self.window_log_message(
                types.LogMessageParams(
                    type=types.MessageType.Info,
                    message=f"loomlint: not answering `loomlint check`: {exc}",
                )
            )
            return
        self._endpoint = endpoint
        threading.Thread(target=endpoint.serve, name="loomlint-endpoint", daemon=True).start()

    def stop_listening(self) -> None:
        endpoint, self._endpoint = self._endpoint, None
        if endpoint is not None:
            endpoint.stop()
            endpoint.stopped.wait(5)

    # --- configuration -----------------------------------------------------------------------

    def watch_files(self) -> None:
        """Ask the client to report changes of Python files and configuration files in the
        workspace (the project reads its configuration again when one changed)."""
        capabilities = self.client_capabilities.workspace
        watched = capabilities.did_change_watched_files if capabilities else None
        if watched is None or not watched.dynamic_registration:
            return
        self._client_watches = True
        self._relative_patterns = bool(watched.relative_pattern_support)
        patterns = ["**/*.py", "**/*.pyi", *(f"**/{name}" for name in CONFIG_NAMES)]
        self._register_watchers(_WATCHED_FILES, list(map(types.FileSystemWatcher, patterns)))

    def watch_configuration_bases(self) -> None:
        """Ask the client to report changes of the base configurations ``extend`` names
        outside the workspace too (its patterns cover those inside), as they change. Called
        after each typed round, when the settings are read."""
        project = self.project
        if not self._client_watches or project is None:
            return
        try:
            bases = project.settings().config_bases
        except ConfigError:
            return  # shown to the user at the next check; the bases are those read last
        outside = tuple(base for base in bases if not base.is_relative_to(project.root))
        if outside == self._watched_bases:
            return
        if self._watched_bases:
            self.client_unregister_capability(
                types.UnregistrationParams(
                    unregisterations=[
                        types.Unregistration(
                            id=_WATCHED_BASES, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES
                        )
                    ]
                )
            )
        self._watched_bases = outside
        if outside:
            self._register_watchers(_WATCHED_BASES, [self._watcher_of(base) for base in outside])

    def _watcher_of(self, path: Path) -> types.FileSystemWatcher:
        if self._relative_patterns:
            folder = from_fs_path(str(path.parent))
            if folder is not None:
                return types.FileSystemWatcher(
                    glob_pattern=types.RelativePattern(base_uri=folder, pattern=path.name)
                )
        return types.FileSystemWatcher(glob_pattern=path.as_posix())

    def _register_watchers(self, key: str, watchers: list[types.FileSystemWatcher]) -> None:
        self.client_register_capability(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id=key,
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=watchers
                        ),
                    )
                ]
            )
        )

    # --- documents ---------------------------------------------------------------------------

    def open_python_documents(self) -> list[TextDocument]:
        return [
            document
            for document in self.workspace.text_documents.values()
            if _is_python(document) and to_fs_path(document.uri) is not None
        ]

    def published(self, uri: str) -> _Published | None:
        return self._published.get(uri)

    # --- scheduling --------------------------------------------------------------------------

    def spawn(self, work: Callable[[], Any]) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def request_typed_round(self, delay: float) -> None:
        self._generation += 1
        self.spawn(lambda: self._typed_round(self._generation, delay))

    async def _typed_round(self, generation: int, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        if generation != self._generation:
            return  # a newer edit came during the debounce: its round runs instead
        async with self._round_lock:
            if self._checked_generation >= generation:
                return  # a round that started after this edit has checked it already
            self._checked_generation = self._generation
            documents = {_path_of(document): document for document in self.open_python_documents()}
            project = self.project
            if project is None or not documents:
                return
            included = {
                path: document
                for path, document in documents.items()
                if await self._run(self._quick, functools.partial(project.includes, path), False)
            }
            snapshots = {path: _Snapshot(d) for path, d in included.items()}

            def check() -> dict[str, tuple[FileResult, list[types.Diagnostic]]]:
                results = project.check_typed({p: s.source for p, s in snapshots.items()})
                return {
                    path: (result, _converted(snapshots[path], result))
                    for path, result in results.items()
                    if path in snapshots
                }

            checked = await self._run(self._typed, check, None)
            self.watch_configuration_bases()  # the configuration may name other bases now
            for note in project.notes:
                self.window_log_message(
                    types.LogMessageParams(type=types.MessageType.Info, message=note)
                )
            if checked is None:
                return
            for path, (result, diagnostics) in checked.items():
                snapshot = snapshots[path]
                if self._current(included[path], snapshot.version):
                    self._publish(snapshot, result, diagnostics, typed=True)

    async def quick_check(self, document: TextDocument) -> None:
        """Findings without types for a buffer mypy has not typed yet, at once."""
        project = self.project
        if project is None:
            return
        path, snapshot = _path_of(document), _Snapshot(document)
        if not await self._run(self._quick, lambda: project.includes(path), False):
            return

        loop = asyncio.get_running_loop()
        started = asyncio.Event()

        def check() -> tuple[FileResult, list[types.Diagnostic]]:
            loop.call_soon_threadsafe(started.set)
            result = project.check_quick(path, snapshot.source)
            return result, _converted(snapshot, result)

        checking = asyncio.ensure_future(self._run(self._quick, check, None))
        # The budget counts from the check's start, not from the wait behind another's.
        starting = asyncio.ensure_future(started.wait())
        await asyncio.wait({checking, starting}, return_when=asyncio.FIRST_COMPLETED)
        starting.cancel()
        done, _ = await asyncio.wait({checking}, timeout=budget.FILE_SECONDS)
        if not done:
            self._over_budget(document, snapshot, path)
        checked = await checking
        shown = self._published.get(document.uri)
        if checked is None or not self._current(document, snapshot.version):
            return
        if shown is not None and shown.typed and shown.version == snapshot.version:
            return  # the typed result came first
        self._publish(snapshot, *checked, typed=False)

    def _over_budget(self, document: TextDocument, snapshot: _Snapshot, path: str) -> None:
        """A buffer's first check is past the CLI's per-file budget: say so (LML903) rather
        than nothing, until its findings come (a file's analysis is bounded by the budget,
        but not its parsing, nor, on a busy machine, the wait for a processor)."""
        shown = self._published.get(document.uri)
        if not self._current(document, snapshot.version) or (
            shown is not None and shown.version == snapshot.version
        ):
            return
        result = file_diagnostic(
            path,
            "LML903",
            f"the check of this file has taken more than its {budget.FILE_SECONDS:g} s "
            "budget; its findings replace this when it ends",
        )
        self._publish(snapshot, result, _converted(snapshot, result), typed=False)

    async def _run(self, executor: ThreadPoolExecutor, work: Callable[[], _T], failed: _T) -> _T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(executor, work)
        except ConfigError as exc:
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Error, message=f"loomlint: {exc}")
            )
        except Exception as exc:  # an internal error must not take the server down
            _log.exception("loomlint server: internal error")
            self.window_log_message(
                types.LogMessageParams(
                    type=types.MessageType.Error, message=f"loomlint: internal error: {exc!r}"
                )
            )
        return failed

    def _current(self, document: TextDocument, version: int | None) -> bool:
        now = self.workspace.text_documents.get(document.uri)
        return now is not None and now.version == version

    def _publish(
        self,
        checked: _Snapshot,
        result: FileResult,
        diagnostics: list[types.Diagnostic],
        *,
        typed: bool,
    ) -> None:
        self._published[checked.uri] = _Published(checked.version, result, typed)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=checked.uri, version=checked.version, diagnostics=diagnostics
            )
        )

    def forget(self, uri: str) -> None:
        self._published.pop(uri, None)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )
        path = to_fs_path(uri)
        project = self.project
        if path is not None and project is not None:
            self._typed.submit(project.forget_buffer, os.path.abspath(path))


class _Snapshot(LspLinesDocument):
    """A buffer's text as a check took it, split into lines once (the LSP way). A document
    splits the whole text again for every position it converts: a 1.2 MB buffer's 20,000
    findings took minutes, on the event loop. Converted on the check's thread, against this
    copy, the findings cost what the check did, and the buffer may change meanwhile."""

    def __init__(self, document: TextDocument) -> None:
        super().__init__(
            document.uri,
            document.source,
            document.version,
            document.language_id,
            position_codec=document.position_codec,
        )
        self._split = tuple(super().lines)

    @property
    def lines(self) -> Sequence[str]:
        return self._split


def _converted(snapshot: _Snapshot, result: FileResult) -> list[types.Diagnostic]:
    return [lsp_diagnostic(snapshot, d) for d in result.diagnostics]


def _is_python(document: TextDocument) -> bool:
    return document.language_id in (None, "python") or document.uri.endswith((".py", ".pyi"))


def _path_of(document: TextDocument) -> str:
    return os.path.abspath(to_fs_path(document.uri) or document.path)


def _root_of(params: types.InitializeParams) -> Path:
    for folder in params.workspace_folders or []:
        path = to_fs_path(folder.uri)
        if path:
            return Path(path)
    if params.root_uri:
        path = to_fs_path(params.root_uri)
        if path:
            return Path(path)
    if params.root_path:
        return Path(params.root_path)
    return Path.cwd()


def _no_project_plugins_option(ls: LoomlintServer, options: object) -> bool:
    """The initialization option ``noProjectPlugins``. A value that is not true or false is
    taken as true, and said: the safe reading of a switch that keeps code from running."""
    if options is None:
        return False
    if isinstance(options, dict):
        value = cast("dict[str, object]", options).get(_NO_PROJECT_PLUGINS)
        if value is None or isinstance(value, bool):
            return bool(value)
    ls.window_show_message(
        types.ShowMessageParams(
            type=types.MessageType.Error,
            message=f"loomlint: initializationOptions must be an object whose "
            f"{_NO_PROJECT_PLUGINS} is true or false, got {json.dumps(options)[:200]}; the "
            "project's mypy plugins are not loaded",
        )
    )
    return True


def _work_in(ls: LoomlintServer, root: Path) -> None:
    """Work in the project's root, whatever folder the editor started the server in: mypy
    finds its configuration, ``mypy_path`` and top-level modules from the process's folder,
    as a ``loomlint check`` run in the root has them."""
    try:
        os.chdir(root)
    except OSError as exc:
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Error,
                message=f"loomlint: cannot work in the workspace folder {root} ({exc}); mypy "
                f"looks for its configuration from {os.getcwd()}",
            )
        )


def create_server(*, no_project_plugins: bool = False) -> LoomlintServer:
    server = LoomlintServer(no_project_plugins=no_project_plugins)

    @server.feature(types.INITIALIZE)
    def initialize(ls: LoomlintServer, params: types.InitializeParams) -> None:
        root = _root_of(params)
        _work_in(ls, root)
        if _no_project_plugins_option(ls, params.initialization_options):
            ls.no_project_plugins = True
        ls.project = Project(root, CliOverrides(no_project_plugins=ls.no_project_plugins))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: LoomlintServer, params: None) -> None:
        del params
        ls.stop_listening()

    @server.feature(types.INITIALIZED)
    def initialized(ls: LoomlintServer, params: types.InitializedParams) -> None:
        del params
        ls.listen_for_checks()
        ls.watch_files()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: LoomlintServer, params: types.DidOpenTextDocumentParams) -> None:
        document = ls.workspace.get_text_document(params.text_document.uri)
        if not _is_python(document):
            return
        ls.request_typed_round(0)
        await ls.quick_check(document)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LoomlintServer, params: types.DidChangeTextDocumentParams) -> None:
        del params
        ls.request_typed_round(DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LoomlintServer, params: types.DidSaveTextDocumentParams) -> None:
        del params
        ls.request_typed_round(0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LoomlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)
        # Files that depend on it now see the file on disk again.
        ls.request_typed_round(0)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(
        ls: LoomlintServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        del params  # the project notices what changed itself (configuration, files on disk)
        ls.request_typed_round(0)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(
        ls: LoomlintServer, params: types.DidChangeConfigurationParams
    ) -> None:
        del params
        ls.request_typed_round(0)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.SourceFixAll],
            resolve_provider=False,
        ),
    )
    def code_action(
        ls: LoomlintServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        document = ls.workspace.get_text_document(params.text_document.uri)
        shown = ls.published(document.uri)
        if shown is None or shown.version != document.version:
            return None  # findings of another version of the text: nothing safe to offer
        return (
            code_actions(document, shown.result.diagnostics, params.range, params.context.only)
            or None
        )

    return server


def serve(*, no_project_plugins: bool = False) -> int:
    """Run the server on stdin/stdout until the client says exit; the exit status."""
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    server = create_server(no_project_plugins=no_project_plugins)
    return server.serve_stream(sys.stdin.buffer, sys.stdout.buffer)
