"""The editor, as the rest of the server sees it: what it can do, its open documents, and what
may be sent to it. Handlers and the session talk to a :class:`Client`, never to pygls's server
object, so nothing below ``lsp/server.py`` imports it (no import cycle) and what may be sent from
a worker thread is decided here, once.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.lsp.server import LanguageServer

from ..core.base.text import Encoding
from .convert import encoding_of

log = logging.getLogger(__name__)
SETTINGS_SECTION = "qrels"
MAX_PROBLEMS_SHOWN = 5


class Client:
    def __init__(self, server: LanguageServer) -> None:
        self._server = server
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tokens = itertools.count(1)
        self._progress: dict[str, str] = {}
        self._percent: dict[str, int | None] = {}  # per title: the last percentage scheduled
        self.closed = False  # after shutdown nothing more is sent
        self.pulls_diagnostics = False

    # -- what the editor can do --------------------------------------------------------------
    def started(self, loop: asyncio.AbstractEventLoop | None) -> None:
        """The event loop the server answers on (messages from other threads go through it)."""
        self._loop = loop

    def supports(self, field: str, default: Any = False) -> Any:
        return get_capability(self._server.client_capabilities, field, default)

    @property
    def encoding(self) -> Encoding:
        return encoding_of(self._server.workspace.position_encoding)

    # -- its open documents --------------------------------------------------------------------
    # pygls keys its documents by the URI percent-decoded, a form that is no URI any more (a
    # file named `a#b.yaml` decodes to a URI whose path ends at `a`): every URI handed out here
    # is the one the editor sent (`doc.uri`), and a lookup decodes as pygls does.
    def open_uris(self) -> list[str]:
        try:
            return [doc.uri for doc in list(self._server.workspace.text_documents.values())]
        except RuntimeError:  # no workspace before initialize
            return []

    def open_document(self, uri: str) -> tuple[str, int | None] | None:
        """An open document's text and version; None when the editor has not opened it."""
        try:
            doc = self._server.workspace.text_documents.get(unquote(uri))
        except RuntimeError:
            return None
        return (doc.source, doc.version) if doc is not None else None

    def open_documents(self) -> dict[str, tuple[str, int | None]]:
        """Every open document's text and version, as they are now (a copy: a worker thread
        reads it while the event loop applies the next change to pygls's documents)."""
        try:
            docs = self._server.workspace.text_documents
        except RuntimeError:
            return {}
        return {doc.uri: (doc.source, doc.version) for doc in list(docs.values())}

    def folders(self) -> list[str]:
        return list(self._server.workspace.folders)

    # -- what is sent ----------------------------------------------------------------------------
    def publish(self, uri: str, version: int | None, items: list[types.Diagnostic]) -> None:
        self._server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=version)
        )

    def warn(self, message: str) -> None:
        self._server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )

    def warn_settings(self, problems: list[str]) -> None:
        """One pop-up for every problem in the settings, however many keys a client sent."""
        if not problems:
            return
        shown = problems[:MAX_PROBLEMS_SHOWN]
        more = len(problems) - len(shown)
        self.warn("qrels-lsp: " + " ".join(shown) + (f" ({more:,} more problems.)" if more else ""))

    def inform(self, message: str) -> None:
        self._server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=message)
        )

    async def show(
        self, uri: str, selection: types.Range | None = None, *, external: bool = False
    ) -> bool:
        """Bring a document forward with ``selection`` selected, or (``external``) open it in
        the program the system opens it with, a browser for a report (window/showDocument);
        False when the editor cannot or does not."""
        if self.closed or not self.supports("window.show_document.support"):
            return False
        params = types.ShowDocumentParams(
            uri=uri, take_focus=True, selection=selection, external=external or None
        )
        try:
            result = await self._server.window_show_document_async(params)
        except Exception as exc:  # an editor that fails the request: the caller says where
            log.warning("window/showDocument failed: %s", exc)
            return False
        return bool(result and result.success)

    def report_crash(self, what: str, details: str) -> None:
        """A bug in a background task: logged to the client, never silently dropped."""
        message = f"qrels-lsp: {what} (a bug: please report it).\n{details}"
        self._on_loop(
            lambda: self._server.window_log_message(
                types.LogMessageParams(type=types.MessageType.Error, message=message)
            )
        )

    def refresh_views(self) -> None:
        """Ask clients that can to re-request lenses, hints and pulled diagnostics."""
        if self.closed:
            return
        if self.supports("workspace.code_lens.refresh_support"):
            self._server.workspace_code_lens_refresh(None)
        if self.supports("workspace.inlay_hint.refresh_support"):
            self._server.workspace_inlay_hint_refresh(None)
        if self.pulls_diagnostics:
            self._server.workspace_diagnostic_refresh(None)

    def progress(self, title: str, done: int, total: int) -> None:
        """$/progress for long work (corpus loading, indexing), from any thread: the begin, each
        new whole percent, the end (a build reports every few milliseconds; the editor needs at
        most a hundred messages, and each costs the event loop a wake-up)."""
        if not self.supports("window.work_done_progress"):
            return
        percent = 100 * done // total if total else None
        finished = bool(total) and done >= total
        if not finished and title in self._percent and self._percent[title] == percent:
            return
        if finished:
            self._percent.pop(title, None)
        else:
            self._percent[title] = percent
        self._on_loop(lambda: self._report(title, done, total))

    async def settings(self) -> Any:
        """The ``qrels`` section of the client's settings (None when it cannot say)."""
        if not self.supports("workspace.configuration"):
            return None
        try:
            [settings] = await self._server.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SETTINGS_SECTION)])
            )
        except Exception as exc:  # a client that fails the request keeps the settings it gave
            log.warning("workspace/configuration failed: %s", exc)
            return None
        return settings

    async def watch_files(self) -> None:
        """Corpus, golden sets, runs and config change on disk behind the editor's back."""
        if not self.supports("workspace.did_change_watched_files.dynamic_registration"):
            return
        watchers = [types.FileSystemWatcher(glob_pattern="**/*")]
        registration = types.Registration(
            id="qrels-lsp-watch",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        try:
            await self._server.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception as exc:  # refused: buffers still work, disk changes are missed
            log.warning("could not register file watching: %s", exc)

    # -- plumbing --------------------------------------------------------------------------------
    def _on_loop(self, fn: Callable[[], object]) -> None:
        loop = self._loop
        if loop is None:
            return
        if threading.current_thread() is threading.main_thread():
            fn()
        else:
            loop.call_soon_threadsafe(fn)

    def _report(self, title: str, done: int, total: int) -> None:
        if self.closed:  # an index still building after shutdown: nothing more is sent
            return
        progress = self._server.work_done_progress
        token = self._progress.get(title)
        percentage = int(100 * done / total) if total else None
        if token is None:
            if total and done >= total:
                return
            token = self._progress[title] = f"qrels-lsp/{next(self._tokens)}"
            progress.create(token)
            progress.begin(
                token,
                types.WorkDoneProgressBegin(title=title, cancellable=False, percentage=percentage),
            )
        elif total and done >= total:
            progress.end(token, types.WorkDoneProgressEnd(message="done"))
            del self._progress[title]
        else:
            progress.report(
                token,
                types.WorkDoneProgressReport(message=f"{done:,}/{total:,}", percentage=percentage),
            )
