"""When the server's garbage collector runs: between keystrokes, not during them.

A project with a 10,000-question golden set, a 20,000-document corpus and a million-line run
holds hundreds of thousands of long-lived objects. CPython's cyclic collector walks all of them
in every full collection, and the objects an analysis allocates trigger one every few edits:
measured at 170-180 ms each on the benchmark workspace, on half of the keystrokes, more than the
analysis itself. Nearly all of those objects die by reference counting, not by the collector.

So analyses run with the collector paused, and what is alive after each is frozen out of later
collections (``gc.freeze``: constant time). Cycles that became garbage meanwhile are reclaimed
once the editor has been idle for a while: everything is unfrozen, collected once and frozen
again, on the analysis thread, so that no analysis runs during it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

IDLE_COLLECT_SECONDS = 5.0


@contextmanager
def kept_for_good() -> Iterator[None]:
    """No collection while the body runs, and what it made is frozen out of every later one:
    for imports, whose classes and tables (thousands of objects for lsprotocol, as many for the
    core) live as long as the process, and collecting while they are made only walks them again
    and again (a tenth of the server's start-up)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


class HeapPolicy:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paused = 0
        self.dirty = False  # analyses ran since the last full collection

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No collection while the body runs; what is alive after it is frozen."""
        with self._lock:
            self._paused += 1
            gc.disable()
        try:
            yield
        finally:
            with self._lock:
                self._paused -= 1
                if self._paused == 0:
                    gc.freeze()
                    gc.enable()
                self.dirty = True

    def collect(self) -> None:
        """The full collection deferred by :meth:`paused` (call it when idle)."""
        with self._lock:
            if not self.dirty or self._paused:
                return
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self.dirty = False
