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
- :func:`keystrokes_first` shortens the switch interval, so the event loop gets the lock back
  within half a millisecond instead of five when a job holds it.

``tests/bench`` measures a keystroke during a 100,000-document build against one without it.
"""

from __future__ import annotations

import sys
import threading

SWITCH_INTERVAL_S = 0.0005


class Gate:
    """Open when nothing is being answered; long jobs wait at their yield points while it is
    closed. Closed once per :meth:`enter` until the matching :meth:`leave`, from any thread."""

    def __init__(self) -> None:
        self._idle = threading.Event()
        self._idle.set()
        self._busy = 0
        self._lock = threading.Lock()

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

    def wait(self, timeout: float = 5.0) -> None:
        """Called by long jobs between steps: returns once the gate is open (or after
        ``timeout``, so that a job is slowed down, never starved)."""
        self._idle.wait(timeout)


def keystrokes_first() -> None:
    """Let a thread waiting for the interpreter lock have it within half a millisecond (the
    default is 5 ms): the server's event loop never waits long behind a long job. Costs nothing
    while only one thread runs."""
    sys.setswitchinterval(SWITCH_INTERVAL_S)
