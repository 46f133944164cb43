"""The server's state: settings, the core :class:`Project`, and the latest analysis of each file.

Who owns what (see docs/architecture.md):

- The **event loop** owns this object's dictionaries (snapshots, pending refreshes, positions):
  only handlers and callbacks on the loop touch them.
- The **analysis thread** (one worker) runs every analysis, so the project's caches (and the
  disk cache of file texts it reads through) need no locks; it is handed what it needs as
  arguments and returns a :class:`Snapshot`. Refreshes take turns for it (``gate.Turns``).
- The **background thread** (one more worker) runs long jobs, such as building a corpus's BM25
  index or reading the large runs an analysis deferred. It gives way to the analysis thread:
  while an analysis runs, a long job waits at its next yield point (a few milliseconds away),
  so a keystroke never waits behind an index build.
- The **reports thread** (one more worker) makes comparisons of runs, so that a keystroke's
  analysis never waits behind one either.

A result is kept only for the document version and the configuration generation it was
computed from: a slow analysis of version 3, or of the settings before a change, is never
published after version 4's.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import threading
import traceback
from collections.abc import AsyncIterator, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from ..core.base.boundary import Boundary
from ..core.base.files import read_text
from ..core.formats import detect_by_name
from ..core.project.analysis import Analysis, Loaded, Pending, Project, read_pending
from ..core.project.config import Config, config_from_mapping, load_config
from ..core.search.indexes import IndexCache
from .client import Client
from .convert import Positions, path_of, uri_of
from .gate import AGAIN, EDITED, OPENED, Gate, LongJobs, Turns
from .heap import IDLE_COLLECT_SECONDS, HeapPolicy

log = logging.getLogger(__name__)
T = TypeVar("T")

RETRY_SECONDS = 1.0
# Fault injection for the robustness tests: file names whose first analysis raises, so that
# the crash report and the retry can be seen end to end. Empty in normal use.
FAULT_ENV = "QRELS_LSP_INJECT_FAULT"
_FAULTS = frozenset(filter(None, os.environ.get(FAULT_ENV, "").split(",")))
MAX_RETRIES = 2


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
        self.project = self._new_project()
        self.snapshots: dict[str, Snapshot] = {}
        self.failures: dict[str, int] = {}
        self._positions: dict[str, Positions] = {}  # one line index per document text
        # Per golden set: the (question, document) pair judge-next went to, being judged.
        self.judging: dict[str, tuple[str, str]] = {}
        # The open documents as the analysis running now was given them (analysis thread only).
        self._buffers: dict[str, tuple[str, int | None]] = {}
        self._disk: dict[Path, tuple[tuple[int, int, int, int], tuple[str | None, str | None]]] = {}
        self._pending: dict[str, asyncio.Task[None]] = {}
        self._latest: dict[str, int | None] = {}  # each open document's version at its last change
        self._background: set[asyncio.Future[Any]] = set()
        self._reading: set[str] = set()  # documents whose pending reads are on the way
        self._turns = Turns()  # refreshes take turns on the analysis thread (see gate.py)
        self._views_owed = False  # a refresh ended while others were still on the way
        self._links_seen = 0  # the project's reverse links as the last analysis left them
        self._analysis = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qrels-analysis")
        self._long_jobs = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qrels-background")
        # Comparisons of runs, on a thread of their own (not behind an index build).
        self._reports = ThreadPoolExecutor(max_workers=1, thread_name_prefix="qrels-reports")
        self._comparing: dict[int, tuple[Analysis, asyncio.Future[Any], list[bool]]] = {}
        self.gate = gate or Gate()
        self.long_jobs = LongJobs()
        self.heap = HeapPolicy()
        self._idle_collect: asyncio.TimerHandle | None = None
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
        return Project(
            self.config,
            self._read,
            self.client.progress,
            boundary=self.boundary(),
            lens_metrics=True,
            indexes=self.indexes,
            peek=self._peek,
        )

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
        if path is not None and not self.project.boundary.allows(path.parent):
            self.project.boundary = self.project.boundary.widened([path.parent])

    # -- documents ------------------------------------------------------------------------
    def _read(self, path: Path, *, keep: bool = True) -> tuple[str | None, str | None]:
        """An open buffer wins over the file on disk. On the analysis thread the buffers are
        those the job was given (a snapshot taken when it was scheduled); on the loop, the
        editor's current ones."""
        uri = uri_of(path)
        on_loop = threading.current_thread() is threading.main_thread()
        opened = self.client.open_document(uri) if on_loop else self._buffers.get(uri)
        if opened is not None:
            return opened[0], None
        return self._read_disk(path, keep=keep) if not on_loop else read_text(path)

    def _peek(self, path: Path) -> tuple[str | None, str | None]:
        """:meth:`_read` for a look taken once: a file on disk read is not kept (the reverse
        links read every run of the workspace for its `qrels:`, and kept a copy of each)."""
        return self._read(path, keep=False)

    def _on_disk(self, path: Path) -> str | None:
        """A file's text on disk (what was read of it is not kept), on the analysis thread."""
        return self._read_disk(path, keep=False)[0]

    def _read_disk(self, path: Path, *, keep: bool = True) -> tuple[str | None, str | None]:
        """A file on disk, read again only when its size, mtime or inode change: a 1M-line run
        beside the golden set being edited is read once, not on every keystroke (and the same
        text object keeps the project's caches valid by identity). ``keep=False``: read for a
        look taken once, and not kept (the copy kept is still used if it is current)."""
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            self._disk.pop(path, None)
            return read_text(path)
        key = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_mode)
        hit = self._disk.get(path)
        if hit is not None and hit[0] == key:
            return hit[1]
        result = read_text(path)
        if keep:
            self._disk[path] = (key, result)
        return result

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
        if uri not in self.client.open_uris() and not self.project.boundary.allows(path):
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
                text = (self._read(path)[0] if path else None) or ""
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
        self._latest.pop(uri, None)
        pending = self._pending.pop(uri, None)
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
        current = snapshot is not None and snapshot.version == self._latest.get(uri)
        last = snapshot.analysis if snapshot is not None and current else None
        self.forget_document(uri)
        self.disk_changes += 1  # the file is reported from disk again (workspace diagnostics)
        path = path_of(uri)
        if path is None:
            return
        text = last.text if last is not None else None

        def release() -> tuple[bool, bool]:
            same = text is not None and self._on_disk(path) == text
            if same:
                self.project.release(path)
            self.heap.dirty = True  # (what was freed is given back by the next collection)
            idle = not self._buffers  # (the documents open when this job was scheduled)
            if idle:
                self._disk.clear()
                self.project.release_all()
                self.heap.collect()
            return same, idle

        async def go() -> None:
            same, idle = await self.run(release)
            if idle:
                self._positions.clear()  # (other files' line indexes, for related findings)
            if not same:
                self.files_changed([path])
            self._collect_when_idle()

        self._in_background(go())

    # -- work on the worker threads ---------------------------------------------------------
    async def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn`` on the analysis thread, with the open documents as they are now (the
        event loop goes on applying the editor's changes meanwhile); long jobs wait for it
        (see :class:`~.gate.Gate`)."""
        buffers = self.client.open_documents()

        def gated() -> T:
            self.gate.enter()
            try:
                self._buffers = buffers
                return fn()
            finally:
                self.gate.leave()

        return await asyncio.get_running_loop().run_in_executor(self._analysis, gated)

    def in_background(
        self,
        fn: Callable[[], T],
        done: Callable[[T], None] | None = None,
        failed: Callable[[], None] | None = None,
    ) -> None:
        """Run a long job on the background thread; ``done`` gets its result on the loop
        (``failed`` is called instead when it raised or was cancelled)."""

        def job() -> T:
            with self.long_jobs.running():
                return fn()

        future = asyncio.get_running_loop().run_in_executor(self._long_jobs, job)
        self._background.add(future)
        future.add_done_callback(self._background.discard)

        def finished(f: asyncio.Future[T]) -> None:
            if f.cancelled():
                if failed is not None:
                    failed()
                return
            if f.exception() is not None:
                error = f.exception()
                trace = "".join(traceback.format_exception(error)) if error else ""
                self.client.report_crash("a background job failed", trace)
                if failed is not None:
                    failed()
            elif done is not None:
                done(f.result())

        future.add_done_callback(finished)

    async def compared(
        self, analysis: Analysis, wait: float | None = None, stale_wait: float | None = None
    ) -> bool:
        """Make ``analysis``'s comparison of runs on the reports thread (the first one takes
        seconds at ten thousand questions, and a keystroke's analysis must not wait behind it);
        True once it is made. With ``wait``, give up waiting after that many seconds (False):
        the editor's views are refreshed when it is ready. With ``stale_wait``, wait that long
        instead when the golden set's last comparison can be shown meanwhile
        (``analysis.previous``, marked as being updated), or when one for an earlier text is
        still being made (the first, at a hundred thousand questions, takes a while)."""
        if analysis.compared or analysis.context is None:
            return True
        future = await self._comparison(analysis)
        if future is None:
            return analysis.compared
        if stale_wait is not None and (analysis.previous is not None or self._busy(analysis)):
            wait = stale_wait
        try:
            await asyncio.wait_for(asyncio.shield(future), wait)
        except asyncio.TimeoutError:
            entry = self._comparing.get(id(analysis))
            if entry is not None:
                entry[2].append(True)  # someone gave up waiting: refresh when it is made
            return analysis.compared
        return analysis.compared

    def _busy(self, analysis: Analysis) -> bool:
        """Whether the golden set's comparison for an earlier text is still being made: a lens
        request has already waited for it (and said `comparing with …`), so the next keystroke's
        lenses are not held for it again."""
        ctx = analysis.context
        return ctx is not None and any(
            other.path == analysis.path
            and other.text is not analysis.text
            and other.text != analysis.text  # (asked again for the same text: it waits)
            and other.context is not None
            and other.context.path == ctx.path
            for other, _future, _gave_up in self._comparing.values()
        )

    async def _comparison(self, analysis: Analysis) -> asyncio.Future[Any] | None:
        """The job making ``analysis``'s comparison, started if it is not under way; None when
        it is already made."""
        key = id(analysis)
        if key not in self._comparing:
            project = self.project
            job = await self.run(lambda: project.compare_job(analysis, self.yield_to_keystrokes))
            if key not in self._comparing and not analysis.compared:

                def made() -> Any:
                    with self.long_jobs.running():
                        return job()

                future = asyncio.get_running_loop().run_in_executor(self._reports, made)
                self._comparing[key] = (analysis, future, [])
                future.add_done_callback(lambda f: self._compared(key, f))
        entry = self._comparing.get(key)
        return entry[1] if entry is not None else None

    def compare_ahead(self, analysis: Analysis) -> None:
        """Bring a golden set's comparison up to date as soon as an edit is analysed, when one is
        being shown: the lens request that follows the diagnostics then finds it made (an
        update after an edit takes milliseconds) instead of starting it."""
        if analysis.compared or not self.project.compared_before(analysis.context):
            return
        self._in_background(self._started(analysis))

    async def _started(self, analysis: Analysis) -> None:
        await self._comparison(analysis)

    async def reporting(self, fn: Callable[[], T]) -> T:
        """Run report work (pure: an analysis's numbers in, text out) on the reports thread,
        where it cannot delay a keystroke's analysis."""
        return await asyncio.get_running_loop().run_in_executor(self._reports, fn)

    def _compared(self, key: int, future: asyncio.Future[Any]) -> None:
        entry = self._comparing.pop(key, None)
        if future.cancelled() or self.closed:
            return
        error = future.exception()
        if error is not None:
            trace = "".join(traceback.format_exception(error))
            self.client.report_crash("comparing runs failed", trace)
        elif entry is not None and entry[2]:
            self.client.refresh_views()

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
            if _FAULTS and path.name in _FAULTS and not self.failures.get(uri):
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
        links, self._links_seen = self._links_seen, self.project.links
        if links != self.project.links:
            return True
        text = analysis.text if analysis is not None else None
        if before is None:
            before = self._on_disk(path)
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
                if uri_of(path) not in self._buffers:  # not open: its spans are not needed again
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

    def changed(self, uri: str, urgency: int = EDITED) -> None:
        """A document changed (``urgency``: or was opened, or everything is analysed again):
        re-analyse it and what depends on it.

        At once, with no debounce delay: keystrokes that arrive while an analysis runs cancel
        each other's refresh still queued for the analysis thread, so a burst costs one more
        analysis, of its last version, and a single keystroke waits for nothing. Refreshes
        take turns, a keystroke's first (gate.py), and requests are answered in between."""
        if self.closed:  # after shutdown nothing more is sent
            return
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        self._latest[uri] = self.version(uri)
        # Long jobs step aside from now until this keystroke's results are sent.
        self.gate.enter()
        task = asyncio.ensure_future(self._refresh(uri, urgency))
        task.add_done_callback(lambda _task: self.gate.leave())
        self._pending[uri] = task

    def opened_document(self, uri: str) -> None:
        """A document of ours was opened: analysed in its turn, after the keystrokes."""
        self.changed(uri, OPENED)

    async def _refresh(self, uri: str, urgency: int = EDITED) -> None:
        try:
            analysis = await self.analysis(uri, urgency)
            if analysis is None:
                attempts = self.failures.get(uri, 0)
                if 0 < attempts <= MAX_RETRIES:  # a crash is retried, not silently dropped
                    self._retry(uri, RETRY_SECONDS * attempts)
                    return
                self._result(uri, None)
                return
            self._result(uri, analysis)
            self.compare_ahead(analysis)
            if analysis.pending:
                self._read_pending(uri, analysis.pending)
            for hook in self.on_analysis:
                hook(uri, analysis)
            snapshot = self.snapshots.get(uri)
            if snapshot is None or snapshot.moved:
                for dependent in self.dependents(uri, analysis):
                    # (one not analysed yet is analysed by its own refresh, after this one)
                    if self.snapshots.pop(dependent, None) is not None:
                        self._result(dependent, await self.analysis(dependent, urgency))
            self._views_owed = True
            self._collect_when_idle()
        except asyncio.CancelledError:
            raise
        except Exception:
            self.client.report_crash(f"refreshing {uri} failed", traceback.format_exc())
        finally:
            if self._pending.get(uri) is asyncio.current_task():
                self._pending.pop(uri, None)
            self._refresh_views()

    def _refresh_views(self) -> None:
        """Ask the editor to request lenses and hints again once no refresh is on the way: one
        request after a burst of opened documents, not one per document (each makes the editor
        ask for the lenses of every visible file)."""
        if self._views_owed and not self._pending:
            self._views_owed = False
            self.client.refresh_views()

    def _read_pending(self, uri: str, pending: Pending) -> None:
        """Read what an analysis left unread (large runs, the reverse links' run YAML files) on
        the background thread, stepping aside while keystrokes are answered; then hand it to the
        project on the analysis thread and analyse the document again, whole this time. One job
        per document at a time: the analyses meanwhile leave the same work pending."""
        if uri in self._reading:
            return
        self._reading.add(uri)
        project = self.project

        def read() -> Loaded | None:
            with self.heap.paused():
                return read_pending(pending, self.yield_to_keystrokes)

        async def provide(loaded: Loaded | None) -> None:
            try:
                if loaded is not None and project is self.project and not self.closed:
                    await self.run(lambda: project.provide(loaded))
                    self.snapshots.pop(uri, None)
                    if uri in self.client.open_uris():
                        self.changed(uri)
            finally:
                self._reading.discard(uri)

        def failed() -> None:
            self._reading.discard(uri)

        self.in_background(read, lambda loaded: self._in_background(provide(loaded)), failed)

    def _result(self, uri: str, analysis: Analysis | None) -> None:
        if analysis is not None and self.client.open_document(uri) is None:
            return  # closed while it was analysed: nothing is shown for it
        for hook in self.on_result:
            hook(uri, analysis)

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
        self._reanalyse(self._open_ours())

    def _open_ours(self) -> list[str]:
        """The open documents that are ours, asked before their snapshots go: a file known by
        its content only (a TREC run named `results.test`) is ours because it was analysed."""
        return [uri for uri in self.client.open_uris() if self.is_ours(uri)]

    def _reanalyse(self, uris: list[str]) -> None:
        self.snapshots.clear()
        open_uris = set(self.client.open_uris())
        for uri in uris:
            if uri in open_uris:  # (one closed meanwhile is not analysed, nor shown)
                self.changed(uri, AGAIN)

    def _retry(self, uri: str, delay: float) -> None:
        def again() -> None:
            if not self.closed and uri in self.client.open_uris():
                self.changed(uri)

        asyncio.get_running_loop().call_later(delay, again)

    def dependents(self, uri: str, analysis: Analysis) -> list[str]:
        """Open documents whose numbers or findings depend on ``uri``: a golden set's runs, a
        run's golden set (and, through it, the other runs it is compared with)."""
        open_uris = set(self.client.open_uris())
        out: list[str] = []
        ctx = analysis.context
        if ctx is not None:
            candidates = [uri_of(p) for p in ctx.run_paths] + [uri_of(ctx.path)]
            out = [u for u in candidates if u != uri and u in open_uris]
        path = path_of(uri)
        resolved = path.resolve() if path is not None else None
        for other, snapshot in self.snapshots.items():
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
        self.disk_changes += 1
        ours = self._open_ours()  # asked now: what was ours stays so, and new settings may add

        def forget() -> None:
            for p in paths:
                self.project.forget(p)

        async def go() -> None:
            if config_touched:
                self.configure(None)
                for hook in self.on_config:
                    hook()
            else:
                await self.run(forget)
            self._reanalyse(list(dict.fromkeys([*ours, *self._open_ours()])))

        self._in_background(go())

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` on the event loop, held until it ends (asyncio keeps only weak refs)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def shutdown(self) -> None:
        self.closed = True
        self.client.closed = True
        if self._idle_collect is not None:
            self._idle_collect.cancel()
        for task in self._pending.values():
            task.cancel()
        self._analysis.shutdown(wait=False, cancel_futures=True)
        self._long_jobs.shutdown(wait=False, cancel_futures=True)
        self._reports.shutdown(wait=False, cancel_futures=True)
