"""The pygls server: lifecycle, document sync, configuration, file watching and diagnostics.

Feature modules (lenses, inlay hints, hover, completion, navigation, edits) register their own
handlers in :func:`create_server`; each converts core results to LSP types and nothing more.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from .. import __version__
from ..core.findings import Finding
from ..core.project import Analysis
from .convert import Positions, RawJSON, diagnostic, path_of, uri_of
from .documents import use_indexed_documents
from .session import Session
from .transport import run_stdio, serve_socket

log = logging.getLogger(__name__)
SETTINGS_SECTION = "qrels"
ALLOWANCE = "allow_outside"


class QrelsProtocol(LanguageServerProtocol):
    """pygls's protocol, sending a :class:`RawJSON` result as the JSON text it already is."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sending: set[asyncio.Future[Any]] = set()

    def _send_data(self, data: Any) -> None:
        result = getattr(data, "result", None)
        if not isinstance(result, RawJSON) or self.writer is None:
            super()._send_data(data)
            return
        head = f'{{"jsonrpc":"2.0","id":{json.dumps(data.id)},"result":'.encode("ascii")
        length = len(head) + len(result.data) + 1
        header = (
            f"Content-Length: {length}\r\n"
            f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            if self._include_headers
            else ""
        ).encode("ascii")
        try:  # one message, one copy of the result (a writer may hold on to what it is given)
            res = self.writer.write(b"".join((header, head, result.data, b"}")))
        except BrokenPipeError:  # the client is gone: as pygls does, let it end the server
            raise
        except (OSError, ValueError) as exc:  # stdout closed by `exit` while it was in flight
            log.warning("could not send the response to request %s: %s", data.id, exc)
            return
        if inspect.isawaitable(res):  # a websocket's send; stdio and TCP write at once
            task = asyncio.ensure_future(res)
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)


class QrelsServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "qrels-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=QrelsProtocol,
        )
        self.session = Session(self)
        self.pull_diagnostics = False
        self._published: set[str] = set()
        self._progress_tokens = itertools.count(1)
        self._progress_state: dict[str, str] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._crashes = 0

    # -- transport ------------------------------------------------------------------------
    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """pygls's stdio server with a framing that survives a broken client (transport.py)."""
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            run_stdio(self.protocol, self._stop_event, stdin)
        except BrokenPipeError:
            log.error("the client is gone; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()  # type: ignore[no-untyped-call]

    def start_tcp(self, host: str, port: int) -> None:
        self._stop_event = stop = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)  # type: ignore[arg-type]
            await serve_socket(self.protocol, reader, stop)
            self.shutdown()  # type: ignore[no-untyped-call]

        async def main() -> None:
            server = await asyncio.start_server(connection, host, port)
            async with server:
                await server.serve_forever()

        with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
            asyncio.run(main())

    # -- capabilities ---------------------------------------------------------------------
    def client_supports(self, field: str, default: Any = False) -> Any:
        return get_capability(self.client_capabilities, field, default)

    # -- diagnostics ----------------------------------------------------------------------
    def diagnostics_for(self, uri: str, analysis: Analysis) -> list[types.Diagnostic]:
        pos = self.session.positions(uri, analysis.text)
        related = self._related_positions(analysis.findings)
        return [diagnostic(f, pos, uri, related) for f in analysis.findings]

    def _related_positions(self, findings: list[Finding]) -> dict[str, Positions]:
        out: dict[str, Positions] = {}
        for f in findings:
            for r in f.related:
                if r.path:
                    u = uri_of(Path(r.path))
                    if u not in out:
                        out[u] = self.session.positions(u)
        return out

    async def publish(self, uri: str, analysis: Analysis | None) -> None:
        """Push diagnostics for one document version (unless the client pulls them)."""
        if self.pull_diagnostics:
            return
        if analysis is None:
            if uri in self._published:
                self._published.discard(uri)
                self._push(uri, None, [])
            return
        self._published.add(uri)
        self._push(uri, self.session.version(uri), self.diagnostics_for(uri, analysis))

    def _push(self, uri: str, version: int | None, diags: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version)
        )

    def refresh_views(self) -> None:
        """Ask clients that can to re-request lenses, hints and pulled diagnostics."""
        if self.session.closed:  # no requests to the client after shutdown
            return
        if self.client_supports("workspace.code_lens.refresh_support"):
            self.workspace_code_lens_refresh(None)
        if self.client_supports("workspace.inlay_hint.refresh_support"):
            self.workspace_inlay_hint_refresh(None)
        if self.pull_diagnostics:
            self.workspace_diagnostic_refresh(None)

    # -- reporting ------------------------------------------------------------------------
    def report_crash(self, what: str, details: str) -> None:
        """A bug in a background task: logged to the client, never silently dropped."""
        self._crashes += 1
        message = f"qrels-lsp: {what} (a bug: please report it).\n{details}"
        self._from_any_thread(
            lambda: self.window_log_message(
                types.LogMessageParams(type=types.MessageType.Error, message=message)
            )
        )

    def _from_any_thread(self, fn: Any) -> None:
        loop = self._loop
        if loop is None:
            return
        if threading.current_thread() is threading.main_thread():
            fn()
        else:
            loop.call_soon_threadsafe(fn)

    def progress_from_thread(self, title: str, done: int, total: int) -> None:
        """$/progress for long work on the analysis thread (corpus loading, indexing)."""
        if not self.client_supports("window.work_done_progress"):
            return
        self._from_any_thread(lambda: self._progress(title, done, total))

    def _progress(self, title: str, done: int, total: int) -> None:
        if self.session.closed:  # an index still building after shutdown: nothing more is sent
            return
        token = self._progress_state.get(title)
        percentage = int(100 * done / total) if total else None
        if token is None:
            if total and done >= total:
                return
            token = f"qrels-lsp/{next(self._progress_tokens)}"
            self._progress_state[title] = token
            self.work_done_progress.create(token)
            self.work_done_progress.begin(
                token,
                types.WorkDoneProgressBegin(title=title, cancellable=False, percentage=percentage),
            )
        elif total and done >= total:
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
            del self._progress_state[title]
        else:
            self.work_done_progress.report(
                token,
                types.WorkDoneProgressReport(message=f"{done:,}/{total:,}", percentage=percentage),
            )


def create_server() -> QrelsServer:
    server = QrelsServer()
    _register_lifecycle(server)
    from . import actions, completion, hover, inlay, lenses, navigation

    for module in (lenses, inlay, hover, completion, navigation, actions):
        module.register(server)
    return server


def _register_lifecycle(server: QrelsServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: QrelsServer, params: types.InitializeParams) -> None:
        ls._loop = asyncio.get_running_loop() if _loop_running() else None
        use_indexed_documents(ls.workspace)
        root = _root_of(params)
        options = params.initialization_options
        settings = _settings_dict(options)
        # The one source of `allow_outside`: the editor's own start-up options (its user
        # configuration). Settings pulled later may come from the workspace (Emacs answers them
        # from a project's .dir-locals.el without asking), so they cannot widen what is read.
        ls.session.allowance = (settings or {}).get(ALLOWANCE)
        problems = ls.session.configure(root, settings, _folders_of(params))
        ls.pull_diagnostics = bool(
            ls.client_supports("text_document.diagnostic")
            and ls.client_supports("workspace.diagnostics.refresh_support")
        )
        if not ls.pull_diagnostics:
            ls.protocol.fm.features.pop(types.TEXT_DOCUMENT_DIAGNOSTIC, None)
        _warn_settings(ls, problems)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: QrelsServer, params: types.InitializedParams) -> None:
        ls._loop = asyncio.get_running_loop()
        if ls.client_supports("workspace.configuration"):
            await _pull_settings(ls)
        if ls.client_supports("workspace.did_change_watched_files.dynamic_registration"):
            await _watch_files(ls)
        _publish_config_findings(ls)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: QrelsServer, params: None) -> None:
        ls.session.shutdown()

    @server.feature(types.EXIT)
    def exit_now(ls: QrelsServer, params: None) -> None:
        """`exit` ends the process whatever it is doing: an index build or a long analysis
        holds the worker threads, which would otherwise keep the interpreter from exiting."""
        code = 0 if ls.protocol._shutdown else 1
        ls.session.shutdown()
        try:
            sys.stdout.flush()
        finally:
            os._exit(code)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: QrelsServer, params: types.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.session.opened(uri)
        if ls.session.is_ours(uri):
            ls.session.changed(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: QrelsServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if ls.session.is_ours(uri):
            ls.session.changed(uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: QrelsServer, params: types.DidSaveTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        if path is not None:
            ls.session.files_changed([path])

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: QrelsServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.session.snapshots.pop(uri, None)
        for hook in ls.session.on_close:
            hook(uri)
        if uri in ls._published:
            ls._published.discard(uri)
            ls._push(uri, None, [])
        path = path_of(uri)
        if path is not None:  # the file on disk is the truth again for its dependents
            ls.session.files_changed([path])

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: QrelsServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        """pygls has updated its folders: the boundary follows them."""
        folders = [path_of(uri) for uri in ls.workspace.folders]
        ls.session.configure(None, None, [f for f in folders if f is not None])
        ls.session.reanalyse_open()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: QrelsServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [p for p in (path_of(c.uri) for c in params.changes) if p is not None]
        if paths:
            ls.session.files_changed(paths)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: QrelsServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and SETTINGS_SECTION in settings:
            _apply_settings(ls, settings[SETTINGS_SECTION])
        elif ls.client_supports("workspace.configuration"):
            await _pull_settings(ls)
        elif isinstance(settings, dict):
            _apply_settings(ls, settings)
        for uri in list(ls.workspace.text_documents):
            if ls.session.is_ours(uri):
                ls.session.changed(uri)

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="qrels-lsp", inter_file_dependencies=True, workspace_diagnostics=False
        ),
    )
    async def pull(
        ls: QrelsServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        uri = params.text_document.uri
        analysis = await ls.session.analysis(uri) if ls.session.is_ours(uri) else None
        items = ls.diagnostics_for(uri, analysis) if analysis is not None else []
        return types.RelatedFullDocumentDiagnosticReport(items=items)


async def _watch_files(ls: QrelsServer) -> None:
    """Corpus, golden sets, runs and config change on disk behind the editor's back."""
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="qrels-lsp-watch",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=types.DidChangeWatchedFilesRegistrationOptions(
                            watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
                        ),
                    )
                ]
            )
        )
    except Exception as exc:  # the client refused: buffers still work, disk changes are missed
        log.warning("could not register file watching: %s", exc)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _root_of(params: types.InitializeParams) -> Path | None:
    if params.workspace_folders:
        return path_of(params.workspace_folders[0].uri)
    if params.root_uri:
        return path_of(params.root_uri)
    if params.root_path and "\0" not in params.root_path:
        return Path(params.root_path)
    return None


def _folders_of(params: types.InitializeParams) -> list[Path]:
    """Every workspace folder (the boundary of what is read), else the root."""
    folders = [path_of(f.uri) for f in params.workspace_folders or ()]
    out = [f for f in folders if f is not None]
    if not out:
        root = _root_of(params)
        out = [root] if root is not None else []
    return out


def _settings_dict(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict):
        inner = value.get(SETTINGS_SECTION, value)
        return inner if isinstance(inner, dict) else None
    return None


async def _pull_settings(ls: QrelsServer) -> None:
    try:
        [settings] = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SETTINGS_SECTION)])
        )
    except Exception as exc:  # a client that fails the request keeps the settings it gave
        log.warning("workspace/configuration failed: %s", exc)
        return
    if isinstance(settings, dict):
        _apply_settings(ls, settings)


def _apply_settings(ls: QrelsServer, settings: Any) -> None:
    if settings is None or settings == []:  # Lua's empty table arrives as [] (Neovim)
        settings = {}
    if not isinstance(settings, dict):
        ls.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message="qrels-lsp: settings must be an object; defaults used.",
            )
        )
        settings = {}
    settings = {k: v for k, v in settings.items() if v is not None}
    problems = []
    if settings.pop(ALLOWANCE, ls.session.allowance) != ls.session.allowance:
        problems.append(
            f"`{ALLOWANCE}` is read once, from the editor's start-up options "
            "(initializationOptions): restart the server to change it."
        )
    if ls.session.allowance is not None:
        settings[ALLOWANCE] = ls.session.allowance
    _warn_settings(ls, problems + ls.session.configure(None, settings))


MAX_PROBLEMS_SHOWN = 5


def _warn_settings(ls: QrelsServer, problems: list[str]) -> None:
    """One pop-up for every problem in the settings, however many keys a client sent."""
    if not problems:
        return
    shown = problems[:MAX_PROBLEMS_SHOWN]
    more = len(problems) - len(shown)
    text = "qrels-lsp: " + " ".join(shown) + (f" ({more:,} more problems.)" if more else "")
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=text))


def _publish_config_findings(ls: QrelsServer) -> None:
    """A broken qrels-lsp.toml is a diagnostic on that file, even when it is not open; called
    at startup and whenever the configuration is reloaded (so fixing the file clears them)."""
    source = ls.session.config.source
    if source is None:
        return
    uri = uri_of(source)
    text = ls.session._read(source)[0]
    if text is None:  # refused as binary (a NUL byte): locate in the text the config parser read
        try:
            text = source.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
    pos = ls.session.positions(uri, text)
    diags = [diagnostic(f, pos, uri, {}) for f in ls.session.config.findings]
    if diags or uri in ls._published:
        ls._published.add(uri)
        ls._push(uri, None, diags)


def serve(host: str | None = None, port: int | None = None) -> None:
    server = create_server()
    if port is not None:
        server.start_tcp(host or "127.0.0.1", port)
    else:
        server.start_io()
