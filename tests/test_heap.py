"""The server's collector policy: paused during analyses, never left off, cycles reclaimed when idle."""

from __future__ import annotations

import gc
import weakref

import pytest
from qrels_lsp.lsp.heap import HeapPolicy


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector can reclaim it


def test_paused_turns_the_collector_back_on_even_after_an_error() -> None:
    heap = HeapPolicy()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), heap.paused():
        assert not gc.isenabled()
        with heap.paused():  # nested: still off until the outer one ends
            pass
        assert not gc.isenabled()
        raise RuntimeError("an analysis crashed")
    assert gc.isenabled()
    gc.unfreeze()


def test_cycles_made_during_an_analysis_are_reclaimed_by_the_idle_collection() -> None:
    heap = HeapPolicy()
    heap.collect()  # nothing to do: no analysis ran
    with heap.paused():
        node = Node()
        ref = weakref.ref(node)
        del node
    gc.collect()
    assert ref() is not None, "frozen after the analysis: an ordinary collection skips it"
    assert heap.dirty
    heap.collect()
    assert ref() is None and not heap.dirty
    gc.unfreeze()
