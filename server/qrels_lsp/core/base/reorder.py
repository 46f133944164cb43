"""Minimal edits that reorder stretches of a text: what the formatter sends an editor.

Moving a golden set's ``corpus:`` from under its ten thousand questions to the top is one edit
that deletes it there and one that inserts it here, not a new copy of the file: the editor keeps
its cursor, folds and undo history where nothing changed. The stretches that stay are the most
text that can stay in order (a longest increasing subsequence, weighted by length where there
are few), and the edits made inside them (a question's own keys sorted) go out as they are.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .findings import TextEdit
from .text import Span

WEIGHED = 64
"""Up to this many stretches the kept ones are the longest text (quadratic); past it, the most
stretches (n log n): a golden set's dozen top-level keys, one of which holds every question."""


@dataclass(frozen=True, slots=True)
class Unit:
    """A stretch that moves as one, and the edits inside it."""

    span: Span
    edits: Sequence[TextEdit] = field(default_factory=tuple)


def applied(text: str, edits: Sequence[TextEdit], span: Span | None = None) -> str:
    """``text[span]`` (the whole text by default) with ``edits``, which lie inside it and do
    not overlap, made."""
    start, end = (span.start, span.end) if span is not None else (0, len(text))
    out, at = [], start
    for e in sorted(edits, key=lambda e: (e.span.start, e.span.end)):
        out += [text[at : e.span.start], e.new_text]
        at = e.span.end
    out.append(text[at:end])
    return "".join(out)


def trimmed(text: str, span: Span, new: str) -> list[TextEdit]:
    """The edit replacing ``span`` with ``new``, without what they start and end with alike (no
    edit when they are the same)."""
    old = text[span.start : span.end]
    if old == new:
        return []
    head = _alike(old, new, lambda s, n: s[:n])
    tail = _alike(old[head:], new[head:], lambda s, n: s[len(s) - n :])
    return [TextEdit(Span(span.start + head, span.end - tail), new[head : len(new) - tail])]


def _alike(a: str, b: str, part: Callable[[str, int], str]) -> int:
    """The length of the longest ``part`` (a prefix or a suffix) ``a`` and ``b`` share, found by
    comparing slices (a megabyte moved is compared at C speed, not a character at a time)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if part(a, mid) == part(b, mid):
            low = mid
        else:
            high = mid - 1
    return low


def reordered(
    text: str,
    region: Span,
    units: Sequence[Unit],
    order: Sequence[int],
    *,
    attached: bool = False,
) -> list[TextEdit]:
    """The edits that rewrite ``region`` with its ``units`` in ``order`` (the index of the unit
    at each place) and each unit's own edits made. What lies between two units stays at its
    place (the n-th gap stays the n-th); or, ``attached``, moves with the unit under it, but for
    the first gap, which stays first: the unit that takes the first place gives its gap to the
    unit that was first. What comes after the last unit stays last.

    ``units`` lie in ``region`` in text order."""
    kept = _kept(order, [u.span.end - u.span.start for u in units])
    gaps = [Span(region.start, units[0].span.start)] + [
        Span(a.span.end, b.span.start) for a, b in itertools.pairwise(units)
    ]
    if attached:  # the gap above each place: the unit's own, the first's stays, swapped
        gaps = [gaps[0]] + [gaps[order[0] if i == 0 else i] for i in order[1:]]
    edits: list[TextEdit] = []
    old_from, new_parts = region.start, []
    for place, index in enumerate(order):
        new_parts.append(text[gaps[place].start : gaps[place].end])
        if index in kept:
            edits += trimmed(text, Span(old_from, units[index].span.start), "".join(new_parts))
            edits += units[index].edits
            old_from, new_parts = units[index].span.end, []
        else:
            new_parts.append(applied(text, units[index].edits, units[index].span))
    new_parts.append(text[units[-1].span.end : region.end])
    edits += trimmed(text, Span(old_from, region.end), "".join(new_parts))
    return edits


def _kept(order: Sequence[int], weights: Sequence[int]) -> set[int]:
    """The units left where they are: an increasing subsequence of ``order``, the heaviest when
    there are at most :data:`WEIGHED` units, else the longest."""
    if list(order) == sorted(order):
        return set(order)
    if len(order) <= WEIGHED:
        best = [weights[i] for i in order]
        back = [-1] * len(order)
        for j, unit in enumerate(order):
            for i in range(j):
                if order[i] < unit and best[i] + weights[unit] > best[j]:
                    best[j], back[j] = best[i] + weights[unit], i
        j = max(range(len(order)), key=best.__getitem__)
        out = set()
        while j != -1:
            out.add(order[j])
            j = back[j]
        return out
    tails: list[int] = []  # patience sorting: the smallest last unit of each length
    at: list[int] = []  # ... and its place in ``order``
    back = [-1] * len(order)
    for j, unit in enumerate(order):
        k = bisect.bisect_left(tails, unit)
        back[j] = at[k - 1] if k else -1
        if k == len(tails):
            tails.append(unit)
            at.append(j)
        else:
            tails[k], at[k] = unit, j
    out, j = set(), at[-1]
    while j != -1:
        out.add(order[j])
        j = back[j]
    return out
