"""Refreshes: what follows a change to a document (an edit, an open, new settings, files
changed on disk): the document analysed again in its turn, its findings published, what
depends on it analysed again, what it left unread read in the background, and the editor asked
once to refresh its views. Owned by the event loop (every method runs there), for the
:class:`~.session.Session` it serves.
"""

from __future__ import annotations

import asyncio
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.project.analysis import Analysis
from ..core.project.pending import Loaded, Pending, read_pending
from .convert import path_of, uri_of
from .faults import RACES
from .gate import AGAIN, EDITED
from .heap import IDLE_COLLECT_SECONDS

if TYPE_CHECKING:
    from .session import Session

RETRY_SECONDS = 1.0
MAX_RETRIES = 2


class Refresher:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.pending: dict[str, asyncio.Task[None]] = {}  # each document's refresh under way
        self.latest: dict[str, int | None] = {}  # each open document's version at its change
        self._reading: set[str] = set()  # documents whose pending reads are on the way
        self._views_owed = False  # a refresh ended while others were still on the way
        self._idle_collect: asyncio.TimerHandle | None = None

    def changed(self, uri: str, urgency: int = EDITED) -> None:
        """A document changed (``urgency``: or was opened, or everything is analysed again):
        re-analyse it and what depends on it.

        At once, with no debounce delay: keystrokes that arrive while an analysis runs cancel
        each other's refresh still queued for the analysis thread, so a burst costs one more
        analysis, of its last version, and a single keystroke waits for nothing. Refreshes
        take turns, a keystroke's first (gate.py), and requests are answered in between."""
        if self.session.closed:  # after shutdown nothing more is sent
            return
        pending = self.pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self.latest[uri] = self.session.version(uri)
        # Long jobs step aside from now until this keystroke's results are sent.
        self.session.gate.enter()
        task = asyncio.ensure_future(self._refresh(uri, urgency))
        task.add_done_callback(lambda _task: self.session.gate.leave())
        self.pending[uri] = task

    async def _refresh(self, uri: str, urgency: int = EDITED) -> None:
        try:
            path = path_of(uri) if RACES else None
            if path is not None and path.name in RACES:
                self.session.project.analyse(
                    path
                )  # (planted: the project is the analysis thread's)
            analysis = await self.session.analysis(uri, urgency)
            if analysis is None:
                attempts = self.session.failures.get(uri, 0)
                if 0 < attempts <= MAX_RETRIES:  # a crash is retried, not silently dropped
                    self._retry(uri, RETRY_SECONDS * attempts)
                    return
                self._result(uri, None)
                return
            self._result(uri, analysis)
            self.session.decided.compare_ahead(analysis)
            if analysis.pending:
                self._read_pending(uri, analysis.pending)
            for hook in self.session.on_analysis:
                hook(uri, analysis)
            snapshot = self.session.snapshots.get(uri)
            if snapshot is None or snapshot.moved:
                for dependent in self.dependents(uri, analysis):
                    # (one not analysed yet is analysed by its own refresh, after this one)
                    if self.session.snapshots.pop(dependent, None) is not None:
                        self._result(dependent, await self.session.analysis(dependent, urgency))
            self._views_owed = True
            self.collect_when_idle()
        except asyncio.CancelledError:
            raise
        except Exception:
            self.session.client.report_crash(f"refreshing {uri} failed", traceback.format_exc())
        finally:
            if self.pending.get(uri) is asyncio.current_task():
                self.pending.pop(uri, None)
            self._refresh_views()

    def _refresh_views(self) -> None:
        """Ask the editor to request lenses and hints again once no refresh is on the way: one
        request after a burst of opened documents, not one per document (each makes the editor
        ask for the lenses of every visible file)."""
        if self._views_owed and not self.pending:
            self._views_owed = False
            self.session.client.refresh_views()

    def _read_pending(self, uri: str, pending: Pending) -> None:
        """Read what an analysis left unread (large runs, the reverse links' run YAML files) on
        the background thread, stepping aside while keystrokes are answered; then hand it to the
        project on the analysis thread and analyse the document again, whole this time. One job
        per document at a time: the analyses meanwhile leave the same work pending."""
        if uri in self._reading:
            return
        self._reading.add(uri)
        project = self.session.project

        def read() -> Loaded | None:
            with self.session.heap.paused():
                return read_pending(pending, self.session.yield_to_keystrokes)

        async def provide(loaded: Loaded | None) -> None:
            try:
                if (
                    loaded is not None
                    and project is self.session.project
                    and not self.session.closed
                ):
                    await self.session.run(lambda: project.provide(loaded))
                    self.session.snapshots.pop(uri, None)
                    if uri in self.session.client.open_uris():
                        self.changed(uri)
            finally:
                self._reading.discard(uri)

        def failed() -> None:
            self._reading.discard(uri)

        self.session.in_background(read, lambda loaded: self.session.spawn(provide(loaded)), failed)

    def _result(self, uri: str, analysis: Analysis | None) -> None:
        if analysis is not None and self.session.client.open_document(uri) is None:
            return  # closed while it was analysed: nothing is shown for it
        for hook in self.session.on_result:
            hook(uri, analysis)

    def collect_when_idle(self) -> None:
        """The heap's deferred collection, once no document has changed for a while."""
        if self._idle_collect is not None:
            self._idle_collect.cancel()

        def collect() -> None:
            self._idle_collect = None
            if not self.session.closed and not self.pending:
                self.session.spawn(self.session.run(self.session.heap.collect))

        loop = asyncio.get_running_loop()
        self._idle_collect = loop.call_later(IDLE_COLLECT_SECONDS, collect)

    def reanalyse_open(self) -> None:
        """Something every open file may depend on is ready (a BM25 index): analyse them again."""
        if self.session.closed:
            return
        self._reanalyse(self._open_ours())

    def _open_ours(self) -> list[str]:
        """The open documents that are ours, asked before their snapshots go: a file known by
        its content only (a TREC run named `results.test`) is ours because it was analysed."""
        return [uri for uri in self.session.client.open_uris() if self.session.is_ours(uri)]

    def _reanalyse(self, uris: list[str]) -> None:
        self.session.snapshots.clear()
        open_uris = set(self.session.client.open_uris())
        for uri in uris:
            if uri in open_uris:  # (one closed meanwhile is not analysed, nor shown)
                self.changed(uri, AGAIN)

    def _retry(self, uri: str, delay: float) -> None:
        def again() -> None:
            if not self.session.closed and uri in self.session.client.open_uris():
                self.changed(uri)

        asyncio.get_running_loop().call_later(delay, again)

    def dependents(self, uri: str, analysis: Analysis) -> list[str]:
        """Open documents whose numbers or findings depend on ``uri``: a golden set's runs, a
        run's golden set (and, through it, the other runs it is compared with)."""
        open_uris = set(self.session.client.open_uris())
        out: list[str] = []
        ctx = analysis.context
        if ctx is not None:
            candidates = [uri_of(p) for p in ctx.run_paths] + [uri_of(ctx.path)]
            out = [u for u in candidates if u != uri and u in open_uris]
        path = path_of(uri)
        resolved = path.resolve() if path is not None else None
        for other, snapshot in self.session.snapshots.items():
            other_ctx = snapshot.analysis.context if snapshot.analysis else None
            if (
                other != uri
                and other in open_uris
                and other not in out
                and other_ctx is not None
                and resolved is not None
                and (other_ctx.path == resolved or resolved in other_ctx.run_paths)
            ):
                out.append(other)
        return out

    def files_changed(self, paths: list[Path]) -> None:
        """Files changed on disk (watched): drop what was derived from them, re-check open files."""
        config_touched = any(p.name in ("qrels-lsp.toml", "pyproject.toml") for p in paths)
        self.session.disk_changes += 1
        ours = self._open_ours()  # asked now: what was ours stays so, and new settings may add

        def forget() -> None:
            for p in paths:
                self.session.project.forget(p)

        async def go() -> None:
            if config_touched:
                self.session.configure(None)
                for hook in self.session.on_config:
                    hook()
            else:
                await self.session.run(forget)
            self._reanalyse(list(dict.fromkeys([*ours, *self._open_ours()])))

        self.session.spawn(go())

    def shutdown(self) -> None:
        if self._idle_collect is not None:
            self._idle_collect.cancel()
        for task in self.pending.values():
            task.cancel()
