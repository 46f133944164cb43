"""The server's lifecycle and document sync: initialize, configuration, open/change/close,
watched files, shutdown and exit, and pulled diagnostics. Each handler says what happened to the
session; the session decides what to analyse."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from . import compat
from .client import SETTINGS_SECTION
from .convert import path_of
from .state import Handshake, State

ALLOWANCE = "allow_outside"


def register(server: LanguageServer, state: State) -> None:
    """The protocol's lifecycle, the documents' sync, the workspace's changes, pulled
    diagnostics."""
    _register_lifecycle(server, state)
    _register_documents(server, state)
    _register_workspace(server, state)
    _register_pull(server, state)


def _register_lifecycle(server: LanguageServer, state: State) -> None:
    client = state.client

    @server.feature(types.INITIALIZE)
    def initialize(ls: LanguageServer, params: types.InitializeParams) -> None:
        """Say what the service is to be made from; it is made once this answer is sent."""
        loop = _running_loop()
        client.started(loop)
        compat.use_indexed_documents(ls.workspace)
        settings = _settings_dict(params.initialization_options)
        # The one source of `allow_outside`: the editor's own start-up options (its user
        # configuration). Settings pulled later may come from the workspace (Emacs answers them
        # from a project's .dir-locals.el without asking), so they cannot widen what is read.
        allowance = (settings or {}).get(ALLOWANCE)
        state.handshake = Handshake(_root_of(params), _folders_of(params), settings, allowance)
        client.pulls_diagnostics = bool(
            client.supports("text_document.diagnostic")
            and client.supports("workspace.diagnostics.refresh_support")
        )
        if not client.pulls_diagnostics:
            compat.drop_feature(ls, types.TEXT_DOCUMENT_DIAGNOSTIC)
            compat.drop_feature(ls, types.WORKSPACE_DIAGNOSTIC)
        if state.started is not None:  # initialize again (a protocol error pygls answers)
            state.started.configure(state.handshake)
        elif loop is not None:  # (pygls writes the answer before the loop runs this)
            loop.call_soon(state.start)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: LanguageServer, params: types.InitializedParams) -> None:
        client.started(asyncio.get_running_loop())
        settings = await client.settings()
        if settings is not None:
            _apply_settings(state, settings)
        await client.watch_files()
        state.publisher.config()

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: LanguageServer, params: None) -> None:
        if state.started is not None:
            state.started.session.shutdown()

    @server.feature(types.EXIT)
    def exit_now(ls: LanguageServer, params: None) -> None:
        """`exit` ends the process whatever it is doing: an index build or a long analysis
        holds the worker threads, which would otherwise keep the interpreter from exiting."""
        code = 0 if compat.shutting_down(ls.protocol) else 1
        if state.started is not None:
            state.started.session.shutdown()
        try:
            sys.stdout.flush()
        finally:
            os._exit(code)


def _register_documents(server: LanguageServer, state: State) -> None:
    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        session = state.session
        session.opened(params.text_document.uri)
        if session.is_ours(params.text_document.uri):
            session.opened_document(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        session = state.session
        if session.is_ours(params.text_document.uri):
            session.changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: LanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        if path is not None:
            state.session.files_changed([path])

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: LanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        state.session.closed_document(params.text_document.uri)


def _register_workspace(server: LanguageServer, state: State) -> None:
    client = state.client

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: LanguageServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        """pygls has updated its folders: the boundary follows them."""
        folders = [path_of(uri) for uri in client.folders()]
        session = state.session
        session.configure(None, None, [f for f in folders if f is not None])
        session.reanalyse_open()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: LanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [p for p in (path_of(c.uri) for c in params.changes) if p is not None]
        if paths:
            state.session.files_changed(paths)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: LanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and SETTINGS_SECTION in settings:
            _apply_settings(state, settings[SETTINGS_SECTION])
        elif client.supports("workspace.configuration"):
            pulled = await client.settings()
            if pulled is not None:
                _apply_settings(state, pulled)
        elif isinstance(settings, dict):
            _apply_settings(state, settings)
        state.session.reanalyse_open()


def _register_pull(server: LanguageServer, state: State) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="qrels-lsp", inter_file_dependencies=True, workspace_diagnostics=False
        ),
    )
    async def pull(
        ls: LanguageServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        uri = params.text_document.uri
        analysis = await state.session.analysis_if_ours(uri)
        items = state.publisher.items(uri, analysis) if analysis is not None else []
        return types.RelatedFullDocumentDiagnosticReport(items=items)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


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


def _apply_settings(state: State, settings: Any) -> None:
    session = state.session
    if settings is None or settings == []:  # Lua's empty table arrives as [] (Neovim)
        settings = {}
    if not isinstance(settings, dict):
        state.client.warn("qrels-lsp: settings must be an object; defaults used.")
        settings = {}
    settings = {k: v for k, v in settings.items() if v is not None}
    problems = []
    if settings.pop(ALLOWANCE, session.allowance) != session.allowance:
        problems.append(
            f"`{ALLOWANCE}` is read once, from the editor's start-up options "
            "(initializationOptions): restart the server to change it."
        )
    if session.allowance is not None:
        settings[ALLOWANCE] = session.allowance
    state.client.warn_settings(problems + session.configure(None, settings))
