"""The server's state: settings, the core :class:`Project`, and the latest analysis of each file.

Owned by the event loop: its dictionaries (snapshots, positions, the pair being judged) are
touched by handlers and callbacks there only. The project belongs to the analysis thread and is
only reached through :meth:`Session.run`; long jobs run on the background thread and reports on
the reports thread (``workers.py`` names the threads and says what each owns). What follows a
change to a document is ``refresh.py``'s; what is decided for an analysis (its comparison, its
judging queue) ``decided.py``'s; how files are read ``texts.py``'s.

A result is kept only for the document version and the configuration generation it was
computed from: a slow analysis of version 3, or of the settings before a change, is never
published after version 4's.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import traceback
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from ..core.base.boundary import Boundary
from ..core.formats import detect_by_name
from ..core.project.analysis import Analysis
from ..core.project.config import Config, config_from_mapping, load_config
from ..core.project.project import Project
from ..core.search.indexes import IndexCache
from .client import Client
from .convert import Positions, path_of, uri_of
from .decided import Decided
from .faults import FAULT_ENV, FAULTS
from .gate import EDITED, OPENED, Gate, Turns
from .heap import HeapPolicy
from .refresh import Refresher
from .texts import Texts
from .workers import ANALYSIS_THREAD, Workers

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Snapshot:
    """An analysis and what it was computed from: the document version (None: the file on
    disk) and the configuration generation."""

    version: int | None
    generation: int
    analysis: Analysis | None
    failed: bool = False  # a crash: not kept, so the next request tries again
    # Whether what other files read of this one may have changed with it (see Session._moved):
    # when not, the documents that depend on it are not analysed again.
    moved: bool = True


class Session:
    def __init__(self, client: Client, gate: Gate | None = None) -> None:
        self.client = client
        self.root: Path | None = None
        self.folders: list[Path] = []  # the workspace folders: what the server may read
        self.settings: dict[str, Any] = {}
        self.allowance: Any = None  # `allow_outside` as the editor started the server with it
        self.config = Config()
        self.generation = 0  # of the configuration: bumped by every (re)configuration
        self.disk_changes = 0  # bumped whenever files changed on disk (watched, saved, closed)
        self.indexes = IndexCache()  # BM25 indexes outlive configuration changes
        self.reach = Boundary.of([])  # what the server may read (the loop's copy)
        self.texts = Texts(client)  # files as the project reads them (buffers first)
        self.project = self._new_project()
        self.snapshots: dict[str, Snapshot] = {}
        self.failures: dict[str, int] = {}
        self._positions: dict[str, Positions] = {}  # one line index per document text
        # Per golden set: the (question, document) pair judge-next went to, being judged.
        self.judging: dict[str, tuple[str, str]] = {}
        self._turns = Turns()  # refreshes take turns on the analysis thread (see gate.py)
        self._links_seen = 0  # the project's reverse links as the last analysis left them
        self.gate = gate or Gate()
        self.workers = Workers(self.gate, client.report_crash)
        self.long_jobs = self.workers.long_jobs
        self.decided = Decided(self)  # comparisons and queues of the analyses shown
        self.heap = HeapPolicy()
        self.refresher = Refresher(self)  # what follows a change to a document
        self.closed = False
        # Called on the event loop with each freshly analysed document (e.g. to warm caches).
        self.on_analysis: list[Callable[[str, Analysis], None]] = []
        # Called on the event loop with each closed document (to drop what was kept for it).
        self.on_close: list[Callable[[str], object]] = []
        # Called on the event loop with a document's latest analysis (None: nothing to show).
        self.on_result: list[Callable[[str, Analysis | None], None]] = []
        # Called on the event loop when the configuration was reloaded from disk.
        self.on_config: list[Callable[[], None]] = []

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
        merged = (
            config_from_mapping(self.settings, replace(base, findings=()), "")
            if self.settings
            else base
        )
        problems = [f.message for f in merged.findings]
        self.config = replace(merged, findings=base.findings)
        self.generation += 1
        self.project = self._new_project()
        self.snapshots.clear()
        return problems

    def _new_project(self) -> Project:
        self.reach = self.boundary()
        project = Project(
            self.config,
            self.texts.read,
            self.client.progress,
            boundary=self.reach,
            lens_metrics=True,
            indexes=self.indexes,
            peek=self.texts.peek,
        )
        project.claim(ANALYSIS_THREAD)  # (the checking mode holds every other thread off it)
        return project

    def boundary(self) -> Boundary:
        """What the server may read: the workspace folders (with none, the folders of the
        documents the editor opened), widened only by the user's own ``allow_outside``."""
        roots = list(self.folders) or ([self.root] if self.root is not None else [])
        if not roots:
            roots = [p.parent for p in map(path_of, self.client.open_uris()) if p is not None]
        config = self.config
        return Boundary.of(roots, config.allow_outside, anywhere=config.allow_anywhere)

    def opened(self, uri: str) -> None:
        """A document was opened: with no workspace folder, its folder joins the boundary."""
        if self.folders or self.root is not None:
            return
        path = path_of(uri)
        if path is not None and not self.reach.allows(path.parent):
            # The loop keeps its own copy (is_ours reads it); the project's is set on its
            # thread, before the analysis of this document, which is queued after it.
            reach = self.reach = self.reach.widened([path.parent])
            project = self.project

            def widen() -> None:
                project.boundary = reach

            self.spawn(self.run(widen))

    # -- documents ------------------------------------------------------------------------
    def text_of(self, path: Path) -> str | None:
        """A file's text as the server reads it (an open buffer wins), inside the boundary."""
        return self.project.read(path)[0]

    def version(self, uri: str) -> int | None:
        opened = self.client.open_document(uri)
        return opened[1] if opened is not None else None

    def is_ours(self, uri: str) -> bool:
        path = path_of(uri)
        if path is None:
            return False
        if uri not in self.client.open_uris() and not self.reach.allows(path):
            return False  # a file the editor did not open, outside: not even looked at
        if detect_by_name(path, self.config) is not None:
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
                text = (self.texts.read(path)[0] if path else None) or ""
        encoding = self.client.encoding
        hit = self._positions.get(uri)
        if hit is not None and hit.lines.text is text and hit.encoding == encoding:
            return hit  # the same text object: its line index is still right
        pos = Positions(text, encoding)
        self._positions[uri] = pos
        return pos

    def forget_document(self, uri: str) -> None:
        """A document was closed: what was kept for it goes (its file on disk is the truth)."""
        self.snapshots.pop(uri, None)
        self._positions.pop(uri, None)
        self.refresher.latest.pop(uri, None)
        pending = self.refresher.pending.pop(uri, None)
        if pending is not None:
            pending.cancel()  # a closed document is not analysed, nor shown
        for hook in self.on_close:
            hook(uri)

    def closed_document(self, uri: str) -> None:
        """A document was closed: what was kept for it goes. Its dependents are analysed again
        only when the file on disk differs from the text they last read (the buffer); with no
        document left open, what was made from every file goes too, and the memory it took is
        given back (a collection, the C heaps trimmed), before the next message is answered."""
        snapshot = self.snapshots.get(uri)
        current = snapshot is not None and snapshot.version == self.refresher.latest.get(uri)
        last = snapshot.analysis if snapshot is not None and current else None
        self.forget_document(uri)
        self.disk_changes += 1  # the file is reported from disk again (workspace diagnostics)
        path = path_of(uri)
        if path is None:
            return
        text = last.text if last is not None else None

        def release() -> tuple[bool, bool]:
            same = text is not None and self.texts.on_disk(path) == text
            if same:
                self.project.release(path)
            self.heap.dirty = True  # (what was freed is given back by the next collection)
            idle = not self.texts.buffers  # (the documents open when this job was scheduled)
            if idle:
                self.texts.clear()
                self.project.release_all()
                self.heap.collect()
            return same, idle

        async def go() -> None:
            same, idle = await self.run(release)
            if idle:
                self._positions.clear()  # (other files' line indexes, for related findings)
            if not same:
                self.files_changed([path])
            self.refresher.collect_when_idle()

        self.spawn(go())

    # -- work on the worker threads ---------------------------------------------------------
    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the analysis thread, with the open documents as they are now (the
        event loop goes on applying the editor's changes meanwhile)."""
        buffers = self.client.open_documents()
        return await self.workers.analysis(fn, lambda: self.texts.given(buffers))

    def in_background(
        self,
        fn: Callable[[], T],
        done: Callable[[T], None] | None = None,
        failed: Callable[[], None] | None = None,
    ) -> None:
        """Run a long job on the background thread (see :meth:`.workers.Workers.in_background`)."""
        self.workers.in_background(fn, done, failed)

    async def reporting(self, fn: Callable[[], T]) -> T:
        """Run report work (pure: an analysis's numbers in, text out) on the reports thread,
        where it cannot delay a keystroke's analysis."""
        return await self.workers.report_job(fn)

    def yield_to_keystrokes(self) -> bool:
        """What a long job calls between steps: waits while an analysis runs; True once the
        server is shutting down (the job should stop)."""
        self.gate.wait()
        return self.closed

    def _analyse(
        self, uri: str, version: int | None, generation: int, before: str | None
    ) -> Snapshot:
        path = path_of(uri)
        if path is None:
            return Snapshot(version, generation, None)
        try:
            if FAULTS and path.name in FAULTS and not self.failures.get(uri):
                raise RuntimeError(f"injected fault for {path.name} ({FAULT_ENV})")
            with self.heap.paused():
                analysis = self.project.analyse(path, defer=True)
            moved = self._moved(path, analysis, before)
        except Exception:  # a bug must not take the editor down: log it, answer without it
            log.error("analysis of %s failed:\n%s", uri, traceback.format_exc())
            self.failures[uri] = self.failures.get(uri, 0) + 1
            attempt = self.failures[uri]
            self.client.report_crash(
                f"analysis of {path.name} failed (attempt {attempt})", traceback.format_exc()
            )
            return Snapshot(version, generation, None, failed=True)
        self.failures.pop(uri, None)
        return Snapshot(version, generation, analysis, moved=moved)

    def _moved(self, path: Path, analysis: Analysis | None, before: str | None) -> bool:
        """Whether other files' analyses may read something else of this one than before: the
        reverse links changed (a run now names a golden set, or another), or its text differs
        from the one last analysed (``before``), or, analysed for the first time since it was
        opened, from the file on disk, which they read until then. (An editor restoring a
        session opens hundreds of runs of one golden set as they are on disk: each analysed
        all the others again.)"""
        links, self._links_seen = self._links_seen, self.project.links.generation
        if links != self._links_seen:
            return True
        text = analysis.text if analysis is not None else None
        if before is None:
            before = self.texts.on_disk(path)
        return text is not before and text != before

    async def analysis_on_disk(self, path: Path) -> Analysis | None:
        """The findings of a file the editor has not opened, as `check` makes them (runs not
        scored), on the analysis thread; kept nowhere (it is not a document's snapshot)."""

        def analyse() -> Analysis | None:
            try:
                with self.heap.paused():
                    return self.project.analyse(path, with_runs=False)
            except Exception:  # a bug must not fail the workspace's report: log it, skip the file
                log.error("analysis of %s failed:\n%s", path, traceback.format_exc())
                return None
            finally:
                if (
                    uri_of(path) not in self.texts.buffers
                ):  # not open: its spans are not needed again
                    self.project.release(path)

        return await self.run(analyse)

    def _current(self, snapshot: Snapshot | None, uri: str) -> bool:
        return (
            snapshot is not None
            and snapshot.version == self.version(uri)
            and snapshot.generation == self.generation
        )

    async def analysis_if_ours(self, uri: str) -> Analysis | None:
        """What every feature asks first: the current analysis, or None for a file not ours."""
        return await self.analysis(uri) if self.is_ours(uri) else None

    async def analysis(self, uri: str, urgency: int | None = None) -> Analysis | None:
        """The analysis of the document's current version, computed now if need be; with
        ``urgency`` (a refresh's, see gate.py), in its turn, else (a request) at once.

        A document edited (or the configuration changed) while it was being analysed is
        analysed again: the caller labels the result with the current version (diagnostics) or
        reads positions in the current text (every request), so an analysis of an older text
        must never be returned. Only an open document's analysis is kept, and a closed one is
        not analysed for a refresh (None).
        """
        while True:
            if urgency is not None and self.version(uri) is None:
                return None
            snapshot = self.snapshots.get(uri)
            if self._current(snapshot, uri):
                assert snapshot is not None
                return snapshot.analysis
            async with self._turn(urgency):
                snapshot = self.snapshots.get(uri)
                if self._current(snapshot, uri):  # made by a request while this one waited
                    assert snapshot is not None
                    return snapshot.analysis
                version, generation = self.version(uri), self.generation
                last = snapshot.analysis if snapshot is not None else None
                before = last.text if last is not None else None
                job = functools.partial(self._analyse, uri, version, generation, before)
                snapshot = await self.run(job)
            if not self._current(snapshot, uri):
                continue  # edited or reconfigured meanwhile: that result is already stale
            if not snapshot.failed and version is not None:
                self.snapshots[uri] = snapshot
            return snapshot.analysis

    @asynccontextmanager
    async def _turn(self, urgency: int | None) -> AsyncIterator[None]:
        """A refresh's turn on the analysis thread (none for a request's analysis). Past a
        keystroke's, it is a long job: the switch interval is short meanwhile, so the event
        loop reads the editor's next messages (the next of 300 files opened, a request) within
        half a millisecond of asking for the interpreter, not five (gate.py)."""
        if urgency is None:
            yield
            return
        async with self._turns.turn(urgency):
            with self.long_jobs.running() if urgency > EDITED else nullcontext():
                yield

    # -- refreshes (lsp/refresh.py) ----------------------------------------------------------
    def changed(self, uri: str, urgency: int = EDITED) -> None:
        self.refresher.changed(uri, urgency)

    def opened_document(self, uri: str) -> None:
        self.refresher.changed(uri, OPENED)

    def reanalyse_open(self) -> None:
        self.refresher.reanalyse_open()

    def files_changed(self, paths: list[Path]) -> None:
        self.refresher.files_changed(paths)

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` on the event loop, held until it ends (asyncio keeps only weak refs)."""
        self.workers.hold(asyncio.ensure_future(work))

    def shutdown(self) -> None:
        self.closed = True
        self.client.closed = True
        self.refresher.shutdown()
        self.workers.shutdown()
