"""Runs of chunks scored against a golden set of documents (docs/compare.md, "Runs of chunks").

A RAG system retrieves chunks (passages) while its golden set judges documents. A chunk rule
says which document a retrieved id belongs to: a separator (with ``#``, `kb/x.md#3` is part of
`kb/x.md`: the document is what comes before the first separator) or a regular expression whose
named group ``doc`` is the document's id (the first match anywhere in the id). An id the rule
does not split (no separator, no match) is a document id already, so runs of documents and runs
of chunks can answer one golden set.

A ranking of chunks becomes a ranking of documents by the first occurrence of each document
(MaxP: the best chunk stands for its document); its later chunks are dropped before any cutoff,
so `k` counts documents. A regex comes from the workspace, which may be hostile: it is matched
by RE2, in time linear in the id's length, so no pattern can make matching backtrack for ever.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .base.text import Span

MAX_PATTERN = 1000
"""Characters of a chunk pattern (RE2 also caps what a compiled pattern may take: 8 MB)."""
MAX_SEPARATOR = 100
MAX_PROGRAM = 2000
"""RE2 program size of a pattern: matching is linear in the id, with this as its constant
(`.{1000}.{1000}.{1000}` is 24,006 and costs 900 times a plain rule per id)."""
MAX_MATCHED = 512
"""Characters of a chunk id matched against a pattern; a longer id is its own document."""
DocOf = Callable[[str], str]


@dataclass(frozen=True, slots=True)
class ChunkRule:
    """How a run's ids map to the golden set's documents: one of ``separator`` and ``pattern``.

    ``span`` is where the rule is written (a golden set's `chunks:` value; ``Span(0, 0)`` when it
    comes from the configuration or the command line) and ``origin`` how messages name it."""

    separator: str | None = None
    pattern: str | None = None
    span: Span = field(default=Span(0, 0), compare=False)
    origin: str = field(default="`chunks:`", compare=False)

    def describe(self) -> str:
        if self.separator is not None:
            return f"separator `{self.separator}`"
        return f"pattern `{self.pattern}`"

    def document(self, chunk_id: str) -> str:
        """The document ``chunk_id`` is a chunk of (itself when the rule does not split it)."""
        return mapper(self)(chunk_id)

    def shifted(self, at: int, delta: int) -> ChunkRule:
        """The rule as written ``delta`` characters later, when it is written after ``at``."""
        if self.span.start < at or not delta:
            return self
        span = Span(self.span.start + delta, self.span.end + delta)
        return ChunkRule(self.separator, self.pattern, span, self.origin)


def rule_problem(separator: object, pattern: object) -> str | None:
    """Why these values make no chunk rule (None: they make one); for the golden set's and the
    configuration's findings and the command line's usage errors."""
    if (separator is None) == (pattern is None):
        return 'give exactly one of `separator` (such as "#") and `pattern` (a regex with a group `doc`)'
    if separator is not None:
        if not isinstance(separator, str) or not separator or "\0" in separator:
            return '`separator` must be a non-empty text, such as "#" or "::"'
        if len(separator) > MAX_SEPARATOR:
            return f"`separator` is longer than {MAX_SEPARATOR} characters"
        return None
    if not isinstance(pattern, str) or not pattern or "\0" in pattern:
        return "`pattern` must be a non-empty regular expression with a named group `doc`"
    if len(pattern) > MAX_PATTERN:
        return f"`pattern` is longer than {MAX_PATTERN:,} characters"
    compiled = _compile(pattern)
    if isinstance(compiled, str):
        return f"`pattern` is not a regular expression RE2 reads ({compiled})"
    if compiled.programsize > MAX_PROGRAM:
        return (
            f"`pattern` is too large a program for RE2 ({compiled.programsize:,} > "
            f"{MAX_PROGRAM:,}): a rule that splits an id needs no counted repeats"
        )
    if "doc" not in compiled.groupindex:
        return "`pattern` needs a named group `doc`, the document's id: `(?P<doc>.+)#\\d+`"
    return None


@functools.lru_cache(maxsize=64)
def _compile(pattern: str) -> Any:
    """The compiled pattern, or why it cannot be compiled. RE2 only: it never backtracks."""
    import re2  # only when a golden set has a pattern

    options = re2.Options()
    options.log_errors = False  # (it would write to the server's stderr)
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        return detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)


MAX_REMEMBERED = 1_000_000
"""Chunk ids whose document is remembered per rule (runs repeat ids across queries and edits)."""


@functools.lru_cache(maxsize=16)
def mapper(rule: ChunkRule) -> DocOf:
    """``rule.document``, remembering each id's document: a run is mapped again on every edit."""
    if rule.separator is not None:
        sep = rule.separator

        def split(chunk_id: str) -> str:
            doc = chunk_id.split(sep, 1)[0]
            return doc if doc and doc != chunk_id else chunk_id

        return split
    compiled = _compile(rule.pattern or "")
    if isinstance(compiled, str):
        return lambda chunk_id: chunk_id
    known: dict[str, str] = {}

    def match(chunk_id: str) -> str:
        doc = known.get(chunk_id)
        if doc is None:
            try:
                found = compiled.search(chunk_id) if len(chunk_id) <= MAX_MATCHED else None
            except UnicodeEncodeError:  # an id read from invalid UTF-8: no document in it
                found = None
            doc = (found.group("doc") if found is not None else None) or chunk_id
            if len(known) >= MAX_REMEMBERED:
                known.clear()
            known[chunk_id] = doc
        return doc

    return match


def documents(ranking: Sequence[str], doc_of: DocOf) -> list[str]:
    """A ranking of chunks as the ranking of their documents: each document once, at its first
    chunk's place."""
    seen: set[str] = set()
    out: list[str] = []
    for chunk_id in ranking:
        doc = doc_of(chunk_id)
        if doc not in seen:
            seen.add(doc)
            out.append(doc)
    return out


def scored_documents(
    ranking: Iterable[tuple[str, float]], doc_of: DocOf
) -> list[tuple[str, float]]:
    """The same for (id, score) pairs in evaluation order: a document keeps its first (best)
    chunk's score."""
    seen: set[str] = set()
    out: list[tuple[str, float]] = []
    for chunk_id, score in ranking:
        doc = doc_of(chunk_id)
        if doc not in seen:
            seen.add(doc)
            out.append((doc, score))
    return out


class ChunkedRankings:
    """A run's rankings mapped to documents, kept between analyses: the same source lists give
    the same mapped lists (the score caches compare rankings by identity)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[ChunkRule, Mapping[str, list[str]], dict[str, list[str]]] | None = None

    def of(self, rankings: Mapping[str, list[str]], rule: ChunkRule) -> dict[str, list[str]]:
        last = self._last
        if last is not None and last[0] == rule and last[1] is rankings:
            return last[2]
        doc_of = mapper(rule)
        before = last[1] if last is not None and last[0] == rule else {}
        mapped_before = last[2] if last is not None and last[0] == rule else {}
        out: dict[str, list[str]] = {}
        for qid, ranking in rankings.items():
            if before.get(qid) is ranking:
                out[qid] = mapped_before[qid]
            else:
                out[qid] = documents(ranking, doc_of)
        self._last = (rule, rankings, out)
        return out


@dataclass(frozen=True, slots=True)
class ChunkPlace:
    """Where one retrieved chunk stands: its document, the document's rank in the ranking of
    documents, and the chunk's place among the document's chunks in this ranking."""

    chunk_id: str
    chunk_rank: int  # 1-based, in the ranking of chunks
    doc_id: str
    doc_rank: int  # 1-based, in the ranking of documents
    sibling: int  # 1-based: the document's how-many-th chunk here
    siblings: int  # how many of the document's chunks this ranking holds
    first_rank: int  # the chunk rank of the document's first chunk (the one that counts)

    @property
    def counted(self) -> bool:
        return self.sibling == 1


def places(ranking: Sequence[str], doc_of: DocOf) -> list[ChunkPlace]:
    """Every chunk of one ranking with its document and siblings (for hover and inlay hints)."""
    order: dict[str, int] = {}
    first: dict[str, int] = {}
    seen: dict[str, int] = {}
    docs = [doc_of(c) for c in ranking]
    total: dict[str, int] = {}
    for doc in docs:
        total[doc] = total.get(doc, 0) + 1
    out = []
    for rank, (chunk_id, doc) in enumerate(zip(ranking, docs, strict=True), start=1):
        if doc not in order:
            order[doc] = len(order) + 1
            first[doc] = rank
        seen[doc] = seen.get(doc, 0) + 1
        out.append(ChunkPlace(chunk_id, rank, doc, order[doc], seen[doc], total[doc], first[doc]))
    return out


def crowding(ranking: Sequence[str], doc_of: DocOf, k: int) -> tuple[str, int] | None:
    """The document that fills half or more of the top ``k`` chunks (two at least), and how
    many it fills: recall@k of such a run says little (a small corpus makes it trivially high)."""
    counts: dict[str, int] = {}
    for chunk_id in ranking[:k]:
        doc = doc_of(chunk_id)
        counts[doc] = counts.get(doc, 0) + 1
    if not counts:
        return None
    doc, n = max(counts.items(), key=lambda item: item[1])
    return (doc, n) if n >= 2 and 2 * n >= k else None
