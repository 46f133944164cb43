"""Incremental re-parsing of a golden set: an edit inside one query's entry re-parses that entry.

A keystroke in a 10,000-question golden set changes one question. Re-parsing the whole megabyte
of YAML for it would cost most of a second; re-parsing the entry costs a millisecond. The edit is
found by comparing the old and new texts (common prefix and suffix); when it lies inside one
entry and the entry still parses as exactly that entry, the entry's new parse replaces the old
one and everything after it moves by the edit's length. Anything else (an edit that touches a
key, spans two entries, breaks the YAML, or lies outside ``queries:``) returns None and the caller
parses the whole file, so the result is always what a full parse would give.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..base.findings import Finding, shift_finding
from ..base.text import Span, line_end_at, line_start_at
from ..formats.golden import parse_query_entry
from ..model import EntryEdit, MovedQueries, Qrels, Query, Ref


@dataclass(frozen=True, slots=True)
class Edit:
    """Old text ``[start, old_end)`` became new text ``[start, start + len)``."""

    start: int
    old_end: int
    delta: int


def diff(old: str, new: str) -> Edit | None:
    """The smallest single region that differs; None when the texts are equal."""
    if old == new:
        return None
    n = min(len(old), len(new))
    prefix = _common_length(old, new, n, lambda s, a, b: s[a:b])
    suffix = _common_length(old, new, n - prefix, lambda s, a, b: s[len(s) - b : len(s) - a])
    return Edit(prefix, len(old) - suffix, len(new) - len(old))


_CHUNK = 1 << 14


def _common_length(old: str, new: str, limit: int, cut: Callable[[str, int, int], str]) -> int:
    """How many characters the texts have in common from one end (``cut(s, a, b)`` is their
    ``[a, b)`` counted from that end), at most ``limit``.

    Chunk by chunk, then by halving inside the first chunk that differs: each comparison is a C
    memcmp of a short slice, where halving over the whole text would copy megabytes of slices.
    """
    at = 0
    while at < limit and cut(old, at, min(at + _CHUNK, limit)) == cut(
        new, at, min(at + _CHUNK, limit)
    ):
        at += _CHUNK
    if at >= limit:
        return limit
    lo, hi = at, min(at + _CHUNK, limit) - 1  # the answer is in [lo, hi]
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if cut(old, at, mid) == cut(new, at, mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def reparse(old_text: str, old: Qrels, new_text: str) -> tuple[Qrels, EntryEdit | None] | None:
    """``parse_golden(new_text)`` by re-parsing one entry, or None when that is not safe; with
    the edit, or None when the texts are equal."""
    edit = diff(old_text, new_text)
    if edit is None:
        return old, None
    if old.format != "golden" or not old.queries:
        return None
    queries = MovedQueries.of(old.queries)
    ids = queries.ids()

    def line_of(qid: str) -> int:  # where an entry starts: its key's line
        return line_start_at(old_text, queries[qid].span.start)

    # Entries are in text order: a binary search reads log2(n) of their lines, not all n.
    i = bisect.bisect_right(ids, edit.start, key=line_of) - 1
    if i < 0:
        return None
    query = queries[ids[i]]
    start = line_of(query.qid)
    end = line_of(ids[i + 1]) if i + 1 < len(ids) else line_end_at(old_text, query.block.end)
    if not (query.span.end < edit.start and edit.old_end <= end):
        return None  # touches the key, or spills over the entry
    if i + 1 == len(ids) and edit.old_end == end and edit.delta > 0:
        return None  # typing at the very end of the last entry may start a new key
    new_end = end + edit.delta
    if not _at_line_end(new_text, new_end, last=i + 1 == len(ids)):
        return None  # the edit removed the line break before the next entry: lines merged
    entry = parse_query_entry(
        new_text[start : end + edit.delta], query.qid, query.span.start - start
    )
    if entry is None:
        return None
    fresh, entry_findings = entry
    shifted = [shift_finding(f, start) for f in entry_findings]
    new = _splice(old, queries, fresh.shifted(start), shifted, start, end, edit)
    return new, EntryEdit(old, query.qid, end, edit.delta)


def _at_line_end(text: str, at: int, *, last: bool) -> bool:
    """Whether an entry's slice ending at ``at`` still ends where its line does: before the
    next entry's line (a break just before) or, for the last entry, at a break or the end."""
    if last:
        return at == len(text) or text[at] in "\r\n"
    return at > 0 and text[at - 1] in "\r\n"


def _splice(
    old: Qrels,
    queries: MovedQueries,
    fresh: Query,
    fresh_findings: list[Finding],
    start: int,
    end: int,
    edit: Edit,
) -> Qrels:
    d = edit.delta
    out = queries.edited(fresh.qid, fresh, d)  # the later entries move when read
    findings = [f for f in old.findings if f.span.start < start]  # before the entry
    findings += fresh_findings
    findings += [shift_finding(f, d, edit.old_end) for f in old.findings if f.span.start >= end]
    findings.sort(key=lambda f: (f.span.start, f.code))
    return replace(
        old,
        queries=out,
        corpus=_shift_ref(old.corpus, end, d),
        k_span=_after(old.k_span, end, d),
        runs=[r for r in (_shift_ref(r, end, d) for r in old.runs) if r is not None],
        compare_to=_shift_ref(old.compare_to, end, d),
        judgments=_shift_ref(old.judgments, end, d),
        queries_span=_after(old.queries_span, end, d),
        fusions=None if old.fusions is None else [f.shifted(end, d) for f in old.fusions],
        chunks=old.chunks.shifted(end, d) if old.chunks is not None else None,
        findings=findings,
    )


def _after(span: Span | None, at: int, d: int) -> Span | None:
    if span is None or span.start < at:
        return span
    return Span(span.start + d, span.end + d)


def _shift_ref(ref: Ref | None, at: int, d: int) -> Ref | None:
    if ref is None or ref.span.start < at:
        return ref
    return Ref(ref.value, Span(ref.span.start + d, ref.span.end + d))
