"""The server's state: settings, the core :class:`Project`, and the latest analysis of each file.

All analysis runs on one worker thread, so the project's caches need no locks and the event loop
stays free for the editor's requests. A result is kept only for the document version it was
computed from: a slow analysis of version 3 is never published after version 4's.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import traceback
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.boundary import Boundary
from ..core.config import Config, config_from_mapping, load_config
from ..core.files import read_text
from ..core.indexes import IndexCache
from ..core.kinds import kind_by_name
from ..core.project import Analysis, Project
from .convert import Positions, encoding_of, path_of, uri_of
from .heap import IDLE_COLLECT_SECONDS, HeapPolicy

if TYPE_CHECKING:
    from .server import QrelsServer

log = logging.getLogger(__name__)
T = TypeVar("T")

RETRY_SECONDS = 1.0
# Fault injection for the robustness tests: file names whose first analysis raises, so that
# the crash report and the retry can be seen end to end. Empty in normal use.
FAULT_ENV = "QRELS_LSP_INJECT_FAULT"
_FAULTS = frozenset(filter(None, os.environ.get(FAULT_ENV, "").split(",")))
MAX_RETRIES = 2


@dataclass(slots=True)
class Snapshot:
    """An analysis and the document version it belongs to (None: the file on disk)."""

    version: int | None
    analysis: Analysis | None
    failed: bool = False  # a crash: not cached, so the next request tries again


class Session:
    def __init__(self, server: QrelsServer) -> None:
        self.server = server
        self.root: Path | None = None
        self.folders: list[Path] = []  # the workspace folders: what the server may read
        self.file_config = Config()
        self.settings: dict[str, Any] = {}
        self.allowance: Any = None  # `allow_outside` as the editor started the server with it
        self.config = Config()
        self.indexes = IndexCache()  # BM25 indexes outlive configuration changes
        self.project = self._new_project()
        self.snapshots: dict[str, Snapshot] = {}
        self.failures: dict[str, int] = {}
        self._positions: dict[str, Positions] = {}  # one line index per document text
        self._disk: dict[Path, tuple[tuple[int, int, int, int], tuple[str | None, str | None]]] = {}
        self._pending: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Future[None]] = set()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qrels-analysis")
        self._progress_lock = threading.Lock()
        self.heap = HeapPolicy()
        self._idle_collect: asyncio.TimerHandle | None = None
        self.closed = False
        # Called on the event loop with each freshly analysed document (e.g. to warm caches).
        self.on_analysis: list[Callable[[str, Analysis], None]] = []
        # Called on the event loop with each closed document (to drop what was kept for it).
        self.on_close: list[Callable[[str], object]] = []

    # -- configuration --------------------------------------------------------------------
    def configure(
        self,
        root: Path | None,
        settings: dict[str, Any] | None = None,
        folders: list[Path] | None = None,
    ) -> list[str]:
        """(Re)build the configuration: the project file, then the editor's settings over it.

        Returns messages about invalid settings (they are also kept as findings).
        """
        if root is not None:
            self.root = root
        if folders is not None:
            self.folders = folders
        if settings is not None:
            self.settings = settings
        workspace = self.folders or ([self.root] if self.root is not None else [])
        base = load_config(self.root, workspace) if self.root is not None else Config()
        self.file_config = base
        merged = (
            config_from_mapping(self.settings, replace(base, findings=()), "")
            if self.settings
            else base
        )
        problems = [f.message for f in merged.findings]
        self.config = replace(merged, findings=base.findings)
        self.project = self._new_project()
        self.snapshots.clear()
        return problems

    def _new_project(self) -> Project:
        return Project(
            self.config,
            self._read,
            self._progress,
            boundary=self.boundary(),
            lens_metrics=True,
            indexes=self.indexes,
        )

    def boundary(self) -> Boundary:
        """What the server may read: the workspace folders (with none, the folders of the
        documents the editor opened), widened only by the user's own ``allow_outside``."""
        roots = list(self.folders) or ([self.root] if self.root is not None else [])
        if not roots:
            roots = [p.parent for p in (path_of(u) for u in self._open_uris()) if p is not None]
        config = self.config
        return Boundary.of(roots, config.allow_outside, anywhere=config.allow_anywhere)

    def _open_uris(self) -> list[str]:
        try:
            return list(self.server.workspace.text_documents)
        except RuntimeError:  # no workspace before initialize
            return []

    def opened(self, uri: str) -> None:
        """A document was opened: with no workspace folder, its folder joins the boundary."""
        if self.folders or self.root is not None:
            return
        path = path_of(uri)
        if path is not None and not self.project.boundary.allows(path.parent):
            self.project.boundary = self.project.boundary.widened([path.parent])

    # -- documents ------------------------------------------------------------------------
    def _read(self, path: Path) -> tuple[str | None, str | None]:
        """An open buffer wins over the file on disk."""
        doc = self.server.workspace.text_documents.get(uri_of(path))
        if doc is not None:
            return doc.source, None
        return self._read_disk(path)

    def _read_disk(self, path: Path) -> tuple[str | None, str | None]:
        """A file on disk, read again only when its size, mtime or inode change: a 1M-line run
        beside the golden set being edited is read once, not on every keystroke (and the same
        text object keeps the project's caches valid by identity)."""
        try:
            st = os.stat(path)
        except OSError:
            self._disk.pop(path, None)
            return read_text(path)
        key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode)
        hit = self._disk.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        result = read_text(path)
        self._disk[path] = (key, result)
        return result

    def version(self, uri: str) -> int | None:
        doc = self.server.workspace.text_documents.get(uri)
        return doc.version if doc is not None else None

    def is_ours(self, uri: str) -> bool:
        path = path_of(uri)
        if path is None:
            return False
        if uri not in self._open_uris() and not self.project.boundary.allows(path):
            return False  # a file the editor did not open, outside: not even looked at
        if kind_by_name(path, self.config) is not None:
            return True
        snapshot = self.snapshots.get(uri)
        return snapshot is not None and snapshot.analysis is not None

    def positions(self, uri: str, text: str | None = None) -> Positions:
        if text is None:
            snapshot = self.snapshots.get(uri)
            if snapshot is not None and snapshot.analysis is not None:
                text = snapshot.analysis.text
            else:
                path = path_of(uri)
                text = (self._read(path)[0] if path else None) or ""
        encoding = encoding_of(self.server.workspace.position_encoding)
        hit = self._positions.get(uri)
        if hit is not None and hit.lines.text is text and hit.encoding == encoding:
            return hit  # the same text object: its line index is still right
        pos = Positions(text, encoding)
        self._positions[uri] = pos
        return pos

    # -- analysis -------------------------------------------------------------------------
    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the analysis thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, fn)

    def _analyse(self, uri: str) -> Snapshot:
        version = self.version(uri)
        path = path_of(uri)
        if path is None:
            return Snapshot(version, None)
        try:
            if _FAULTS and path.name in _FAULTS and not self.failures.get(uri):
                raise RuntimeError(f"injected fault for {path.name} ({FAULT_ENV})")
            with self.heap.paused():
                analysis = self.project.analyse(path)
        except Exception:  # a bug must not take the editor down: log it, answer without it
            log.error("analysis of %s failed:\n%s", uri, traceback.format_exc())
            self.failures[uri] = self.failures.get(uri, 0) + 1
            attempt = self.failures[uri]
            self.server.report_crash(
                f"analysis of {path.name} failed (attempt {attempt})", traceback.format_exc()
            )
            return Snapshot(version, None, failed=True)
        self.failures.pop(uri, None)
        return Snapshot(version, analysis)

    async def analysis_if_ours(self, uri: str) -> Analysis | None:
        """What every feature asks first: the current analysis, or None for a file not ours."""
        return await self.analysis(uri) if self.is_ours(uri) else None

    async def analysis(self, uri: str) -> Analysis | None:
        """The analysis of the document's current version, computed now if need be.

        A document edited while it was being analysed is analysed again: the caller labels the
        result with the current version (diagnostics) or reads positions in the current text
        (every request), so an analysis of an older text must never be returned.
        """
        while True:
            snapshot = self.snapshots.get(uri)
            if snapshot is not None and snapshot.version == self.version(uri):
                return snapshot.analysis
            snapshot = await self.run(lambda: self._analyse(uri))
            if snapshot.version != self.version(uri):
                continue  # edited meanwhile: that result is already stale
            if not snapshot.failed:
                self.snapshots[uri] = snapshot
            return snapshot.analysis

    def changed(self, uri: str) -> None:
        """A document changed: re-analyse it and what depends on it.

        At once, with no debounce delay: keystrokes that arrive while an analysis runs cancel
        each other's refresh still queued for the analysis thread, so a burst costs one more
        analysis, of its last version, and a single keystroke waits for nothing."""
        if self.closed:  # after shutdown nothing more is sent
            return
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._pending[uri] = asyncio.ensure_future(self._refresh(uri))

    async def _refresh(self, uri: str) -> None:
        try:
            analysis = await self.analysis(uri)
            if analysis is None:
                attempts = self.failures.get(uri, 0)
                if 0 < attempts <= MAX_RETRIES:  # a crash is retried, not silently dropped
                    self._retry(uri, RETRY_SECONDS * attempts)
                    return
                await self.server.publish(uri, None)
                return
            await self.server.publish(uri, analysis)
            for hook in self.on_analysis:
                hook(uri, analysis)
            for dependent in self.dependents(uri, analysis):
                self.snapshots.pop(dependent, None)
                dep = await self.analysis(dependent)
                await self.server.publish(dependent, dep)
            self.server.refresh_views()
            self._collect_when_idle()
        except asyncio.CancelledError:
            raise
        except Exception:
            self.server.report_crash(f"refreshing {uri} failed", traceback.format_exc())
        finally:
            if self._pending.get(uri) is asyncio.current_task():
                self._pending.pop(uri, None)

    def _collect_when_idle(self) -> None:
        """The heap's deferred collection, once no document has changed for a while."""
        if self._idle_collect is not None:
            self._idle_collect.cancel()

        def collect() -> None:
            self._idle_collect = None
            if not self.closed and not self._pending:
                self._in_background(self.run(self.heap.collect))

        loop = asyncio.get_running_loop()
        self._idle_collect = loop.call_later(IDLE_COLLECT_SECONDS, collect)

    def reanalyse_open(self) -> None:
        """Something every open file may depend on is ready (a BM25 index): analyse them again."""
        if self.closed:
            return
        self.snapshots.clear()
        for uri in list(self.server.workspace.text_documents):
            if self.is_ours(uri):
                self.changed(uri)

    def _retry(self, uri: str, delay: float) -> None:
        def again() -> None:
            if not self.closed and uri in self.server.workspace.text_documents:
                self.changed(uri)

        asyncio.get_running_loop().call_later(delay, again)

    def dependents(self, uri: str, analysis: Analysis) -> list[str]:
        """Open documents whose numbers or findings depend on ``uri``: a golden set's runs, a
        run's golden set (and, through it, the other runs it is compared with)."""
        open_uris = set(self.server.workspace.text_documents)
        out: list[str] = []
        ctx = analysis.context
        if ctx is not None:
            candidates = [uri_of(p) for p in ctx.run_paths] + [uri_of(ctx.path)]
            out = [u for u in candidates if u != uri and u in open_uris]
        for other, snapshot in self.snapshots.items():
            other_ctx = snapshot.analysis.context if snapshot.analysis else None
            if other != uri and other in open_uris and other not in out and other_ctx is not None:
                path = path_of(uri)
                if path is not None and (
                    other_ctx.path == path.resolve() or path.resolve() in other_ctx.run_paths
                ):
                    out.append(other)
        return out

    def files_changed(self, paths: list[Path]) -> None:
        """Files changed on disk (watched): drop what was derived from them, re-check open files."""
        config_touched = any(p.name in ("qrels-lsp.toml", "pyproject.toml") for p in paths)

        def forget() -> None:
            for p in paths:
                self.project.forget(p)

        async def go() -> None:
            if config_touched:
                self.configure(None)
                from .server import _publish_config_findings  # (import cycle at module level)

                _publish_config_findings(self.server)
            else:
                await self.run(forget)
            self.snapshots.clear()
            for uri in list(self.server.workspace.text_documents):
                if self.is_ours(uri):
                    self.changed(uri)

        self._in_background(go())

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` on the event loop, held until it ends (asyncio keeps only weak refs)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _progress(self, title: str, done: int, total: int) -> None:
        self.server.progress_from_thread(title, done, total)

    def shutdown(self) -> None:
        self.closed = True
        if self._idle_collect is not None:
            self._idle_collect.cancel()
        for task in self._pending.values():
            task.cancel()
        self._executor.shutdown(wait=False, cancel_futures=True)
