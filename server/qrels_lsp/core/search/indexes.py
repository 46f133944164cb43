"""BM25 indexes of the project's corpora: built once per corpus content, shared by completion and
the baseline run, and kept for the session (and on disk, by :func:`index_cache.load_or_build`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..formats.corpus import Corpus

if TYPE_CHECKING:  # numpy stays out of the import path until an index is built
    from .bm25 import BM25Index


MAX_INDEXES = 4
"""Indexes kept in memory (the most recently used ones): each may be hundreds of megabytes, and
a session that opens one corpus after another, or a folder corpus whose files keep changing
(each change is new content, hence a new index), had kept every one of them."""


class IndexCache:
    """One BM25 index per corpus content, built once (on the analysis thread) and kept: the
    latest content of each corpus path, and at most :data:`MAX_INDEXES` in all."""

    def __init__(self, cache_dir: str | Path | None = None) -> None:
        self.cache_dir = cache_dir
        self._ready: OrderedDict[tuple[str, str], BM25Index] = OrderedDict()
        self._building: set[tuple[str, str]] = set()
        self._failed: set[tuple[str, str]] = set()  # builds that raised: nothing to wait for
        self._lock = threading.Lock()

    @staticmethod
    def key(corpus: Corpus) -> tuple[str, str]:
        return str(corpus.path), corpus.fingerprint

    def get(self, corpus: Corpus) -> BM25Index | None:
        """The index if it is ready; never builds."""
        key = self.key(corpus)
        with self._lock:
            index = self._ready.get(key)
            if index is not None:
                self._ready.move_to_end(key)
            return index

    def _keep(self, key: tuple[str, str], index: BM25Index) -> None:
        """Keep ``index``: older contents of the same path go, then the least recently used."""
        with self._lock:
            for old in [k for k in self._ready if k[0] == key[0] and k != key]:
                del self._ready[old]
            self._ready[key] = index
            self._ready.move_to_end(key)
            while len(self._ready) > MAX_INDEXES:
                self._ready.popitem(last=False)

    def pending(self, corpus: Corpus) -> bool:
        """Whether this corpus's index is still to come: not ready, and no build of it failed
        (what a comparison with the baseline waits for, rather than compare with another run)."""
        key = self.key(corpus)
        with self._lock:
            return key not in self._ready and key not in self._failed

    def claim(self, corpus: Corpus) -> bool:
        """True for the one caller that should build this corpus's index now."""
        key = self.key(corpus)
        with self._lock:
            if key in self._ready or key in self._building:
                return False
            self._building.add(key)
            return True

    def build(
        self,
        corpus: Corpus,
        progress: Callable[[int, int], None] | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> BM25Index | None:
        """Load or build the index (slow: the server runs it on its background thread, and
        ``cancel``, asked every few milliseconds, is where it gives way to a keystroke)."""
        key = self.key(corpus)
        try:
            from .index_cache import load_or_build  # numpy, only once an index is wanted

            index = self.get(corpus) or load_or_build(
                corpus, self.cache_dir, progress=progress, cancel=cancel
            )
            if index is not None:
                self._keep(key, index)
            return index
        except BaseException:
            with self._lock:
                self._failed.add(key)
            raise
        finally:
            with self._lock:
                self._building.discard(key)
