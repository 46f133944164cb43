"""Keystrokes first: long jobs (a BM25 index build) step aside while the editor is being answered.

The server runs long jobs on a thread of their own, beside the event loop and the analysis
thread, and all three share one interpreter lock. Left alone, a CPU-bound build holds that lock
for the interpreter's switch interval (5 ms) each time another thread asks for it, and for the
whole of each long C call: a keystroke on a 100,000-document corpus waited 60-170 ms for its
diagnostics during the build, against 7 ms without one. So:

- the :class:`Gate` is closed from the moment bytes arrive from the editor until they are
  handled, and from a document's change until its results are sent; a long job calls
  :meth:`Gate.wait` every couple of milliseconds (``core/search/bm25.py``'s ``_TICK``) and
  blocks, releasing the lock, while the gate is closed;
- while a long job runs (:class:`LongJobs`), the switch interval is shorter, so the event loop
  gets the lock back within half a millisecond instead of five when the job holds it.

``tests/bench`` measures a keystroke during a 100,000-document build against one without it.

The analysis thread has a queue of its own (:class:`Turns`): an editor that restores a session
opens hundreds of files at once, and their analyses, queued one behind the other, kept every
request waiting until the last was made (300 runs: 14 s). Document refreshes take turns,
edits before opens before everything else, one at a time on the analysis thread, and a
request's work goes in between, behind at most the one analysis under way.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

EDITED, OPENED, AGAIN = 0, 1, 2
"""How urgent a document's refresh is: a keystroke, a document opened, everything analysed
again (the settings changed, an index was built, files changed on disk)."""

SWITCH_INTERVAL_S = 0.0005

PATIENCE_S = 0.05
"""The longest a long job waits at a time for the gate to open. A keystroke is answered in a
few milliseconds; a gate closed for longer is a stream of requests (an editor asking for lenses
again and again while the comparison they wait for is being made), and a job that waited out
its patience then runs as long without waiting: half the time at worst, never starved."""


class Gate:
    """Open when nothing is being answered; long jobs wait at their yield points while it is
    closed. Closed once per :meth:`enter` until the matching :meth:`leave`, from any thread."""

    def __init__(self) -> None:
        self._idle = threading.Event()
        self._idle.set()
        self._busy = 0
        self._lock = threading.Lock()
        self._turn = threading.local()  # per job thread: until when it runs without waiting

    def enter(self) -> None:
        with self._lock:
            self._busy += 1
            self._idle.clear()

    def leave(self) -> None:
        with self._lock:
            self._busy -= 1
            if self._busy == 0:
                self._idle.set()

    @property
    def closed(self) -> bool:
        return not self._idle.is_set()

    def wait(self, timeout: float = PATIENCE_S) -> None:
        """Called by long jobs between steps: returns once the gate is open, or after
        ``timeout``, and then without waiting for as long again (see :data:`PATIENCE_S`)."""
        if time.monotonic() < getattr(self._turn, "until", 0.0):
            return
        if not self._idle.wait(timeout):
            self._turn.until = time.monotonic() + timeout


class LongJobs:
    """Counts the long jobs running: while there is one, the interpreter's switch interval is
    :data:`SWITCH_INTERVAL_S`, so the event loop waits at most that long for the lock a job holds
    (the default, 5 ms, is restored when the last one ends: a shorter interval costs a little
    everywhere else, e.g. some 30 ms of the server's start)."""

    def __init__(self) -> None:
        self._running = 0
        self._default = sys.getswitchinterval()
        self._lock = threading.Lock()

    @contextmanager
    def running(self) -> Iterator[None]:
        with self._lock:
            if self._running == 0:
                self._default = sys.getswitchinterval()
                sys.setswitchinterval(SWITCH_INTERVAL_S)
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    sys.setswitchinterval(self._default)


class Turns:
    """Refresh analyses one at a time, the most urgent first (then in the order they asked), on
    the event loop: what holds a turn has the analysis thread to itself but for requests."""

    def __init__(self) -> None:
        self._held = False
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @asynccontextmanager
    async def turn(self, urgency: int) -> AsyncIterator[None]:
        if self._held:
            given: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiting, (urgency, next(self._order), given))
            try:
                await given
            except asyncio.CancelledError:
                if given.done() and not given.cancelled():
                    self._pass()  # given the turn as it was cancelled: the next one has it
                raise
        self._held = True
        try:
            yield
        finally:
            self._pass()

    def _pass(self) -> None:
        """The turn to the most urgent refresh still waiting (those cancelled are skipped)."""
        while self._waiting:
            _urgency, _order, given = heapq.heappop(self._waiting)
            if not given.done():
                given.set_result(None)
                return
        self._held = False
