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

What is freed is not given back to the system by itself: glibc keeps freed blocks in its heaps
(one per thread that allocated), so an editor that closed 300 run files stayed at the size it
had with them open. After a collection the heaps are trimmed (``malloc_trim``, where the C
library has it).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache

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
        """The full collection deferred by :meth:`paused` (call it when idle), and what it
        freed given back to the system."""
        with self._lock:
            if not self.dirty or self._paused:
                return
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self.dirty = False
        trim = _malloc_trim()
        if trim is not None:
            trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, which returns the free pages of every heap to the system; None
    for another C library (musl, macOS), whose free differs anyway."""
    import ctypes  # (not before initialize is answered: a few milliseconds)

    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the interpreter already runs on
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim
