"""The parsed model: judgments (golden sets, TREC/BEIR qrels) and runs, with spans.

Every format parses into these few classes, so checks, metrics, the CLI and the language server
work the same whatever the file looked like. They are plain data: no I/O, no LSP.
"""

from __future__ import annotations

import bisect
import sys
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, overload

from .base.findings import Finding
from .base.text import Ref as Ref  # (written where spans are: fusion/spec.py needs it too)
from .base.text import Span

if TYPE_CHECKING:
    from .chunks import ChunkRule
    from .fusion.spec import Fusion

FileKind = str
"""The name of a format a file can be read as (``golden``, ``trec-run``...): the formats'
registry (``core/formats/__init__.py``) is the one list of them, and a model says which one it
came from."""
QrelsFormat = FileKind  # a format whose role is judgments (``Format.role``)
RunFormat = FileKind  # a format whose role is a ranking
OtherKind = str
"""Files of the TREC family that are neither judgments nor a ranking (topics, a corpus): content
detection recognises them so that they are never read as a run, and says what they are."""


INT_LIMIT = 2**53
"""The largest integer read from a file or an option as a grade (in magnitude), a cutoff or a
depth: the integers a double holds exactly (the gains, P@k's k and every mean are doubles, here
and in trec_eval). Past it a value can only be a mistake, and ``float()`` of a 309-digit one
raises; each reader says so where it is written (``formats/grades.py`` for grades)."""

CRITICAL_TAG = "critical"
"""The tag of questions that must not get worse: `qrels-lsp gate --critical` looks for it."""


@dataclass(slots=True)
class Judgment:
    doc_id: str
    grade: int
    span: Span  # of the document id
    grade_span: Span | None = None


@dataclass(slots=True, eq=False)
class Query:
    """One query of a golden set or qrels file: its judgments and, when known, its text."""

    qid: str
    span: Span  # of the query id (its first occurrence)
    block: Span  # the whole entry: used to re-parse and to place lenses
    judgments: list[Judgment] = field(default_factory=list)
    question: str | None = None
    question_span: Span | None = None
    unanswerable: bool = False
    unanswerable_span: Span | None = None
    relevant_span: Span | None = None  # `relevant:` and its value (golden sets): folded, selected
    tags: tuple[str, ...] = ()  # labels such as CRITICAL_TAG (`gate --critical TAG`)

    def grades(self) -> dict[str, int]:
        """doc id -> grade; the first judgment of a document wins, as the checks report."""
        out: dict[str, int] = {}
        for j in self.judgments:
            out.setdefault(j.doc_id, j.grade)
        return out

    def shifted(self, delta: int) -> Query:
        """This query as it reads ``delta`` characters later in the text.

        A keystroke moves every entry after it. Building each later query's spans and judgments
        anew cost more than the rest of an edit's analysis together; a shifted query is made in
        constant time and works out its spans when they are read, which after an edit is for a
        few queries only (the lenses near the cursor, a hover, a rename).
        """
        return _ShiftedQuery(self, delta) if delta else self

    def _values(self) -> tuple[object, ...]:
        return (
            self.qid,
            self.span,
            self.block,
            self.judgments,
            self.question,
            self.question_span,
            self.unanswerable,
            self.unanswerable_span,
            self.relevant_span,
            self.tags,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Query):
            return NotImplemented
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was


def _moved(span: Span | None, delta: int) -> Span | None:
    return None if span is None else Span(span.start + delta, span.end + delta)


class _ShiftedQuery(Query):
    """A query read ``delta`` characters after where it was parsed (see :meth:`Query.shifted`).

    Its id, question and flag are the shifted query's; its spans and judgments are the origin's
    moved, worked out on first read and kept, and cannot be assigned (a golden set's queries are
    never changed after parsing; ``dataclasses.replace`` does not apply). Shifting it again
    shifts the origin, so a chain of edits never builds a chain of objects.
    """

    __slots__ = ("_delta", "_judgments", "_origin", "_spans")
    _origin: Query
    _delta: int

    def __init__(self, query: Query, delta: int) -> None:
        self.qid = query.qid
        self.question = query.question  # (a topic's question may have been given to ``query``)
        self.unanswerable = query.unanswerable
        self.tags = query.tags
        origin = query
        if isinstance(query, _ShiftedQuery):
            delta += query._delta
            origin = query._origin
        self._origin = origin
        self._delta = delta
        self._spans: tuple[Span, Span, Span | None, Span | None, Span | None] | None = None
        self._judgments: list[Judgment] | None = None

    def _moved_spans(self) -> tuple[Span, Span, Span | None, Span | None, Span | None]:
        spans = self._spans  # one read: another thread may be filling it in too
        if spans is None:
            o, d = self._origin, self._delta
            spans = (
                Span(o.span.start + d, o.span.end + d),
                Span(o.block.start + d, o.block.end + d),
                _moved(o.question_span, d),
                _moved(o.unanswerable_span, d),
                _moved(o.relevant_span, d),
            )
            self._spans = spans
        return spans

    @property
    def span(self) -> Span:  # type: ignore[override]
        return self._moved_spans()[0]

    @property
    def block(self) -> Span:  # type: ignore[override]
        return self._moved_spans()[1]

    @property
    def question_span(self) -> Span | None:  # type: ignore[override]
        return self._moved_spans()[2]

    @property
    def unanswerable_span(self) -> Span | None:  # type: ignore[override]
        return self._moved_spans()[3]

    @property
    def relevant_span(self) -> Span | None:  # type: ignore[override]
        return self._moved_spans()[4]

    @property
    def judgments(self) -> list[Judgment]:  # type: ignore[override]
        moved = self._judgments
        if moved is None:
            d = self._delta
            moved = [
                Judgment(
                    j.doc_id,
                    j.grade,
                    Span(j.span.start + d, j.span.end + d),
                    _moved(j.grade_span, d),
                )
                for j in self._origin.judgments
            ]
            self._judgments = moved
        return moved


COMPACT_AT = 256
"""Edited entries and edit places a :class:`MovedQueries` holds before it is made plain again."""


class MovedQueries(Mapping[str, Query]):
    """A golden set's queries after edits that each re-parsed one entry (see
    ``project/incremental.py``): the queries of an earlier parse, the entries parsed again
    since, and how far the edits moved each stretch of the others, applied when a query is read.

    A keystroke moves every entry after it. Making each later query anew, even as a
    constant-time :meth:`Query.shifted` view, cost a keystroke 35 ms at 100,000 questions; an
    edit here copies what the edits since the parse made (the entries re-parsed, the places
    typed at: a few) and a query is moved when it is read, as after an edit a few are (the
    lenses and outline of the edited entry, a hover). Reading them all moves each once.

    Queries keep the order of the parse (an entry edit never adds, removes or renames one);
    a query's place is its index in that order, and every query from ``firsts[j]`` on has moved
    by ``totals[j]`` characters (the last such ``j``: the edits' deltas summed).
    """

    __slots__ = ("_base", "_firsts", "_ids", "_index", "_made", "_replaced", "_totals")

    def __init__(
        self,
        base: Mapping[str, Query],
        index: dict[str, int],
        ids: list[str],
        replaced: dict[str, Query],
        firsts: tuple[int, ...],
        totals: tuple[int, ...],
    ) -> None:
        self._base = base  # the parse's queries, shared by every version made from it
        self._index = index  # query id -> its place
        self._ids = ids  # the ids in order
        self._replaced = replaced  # re-parsed entries, moved back to the base's places
        self._firsts = firsts
        self._totals = totals
        self._made: dict[str, Query] = {}  # the queries read so far, moved

    @classmethod
    def of(cls, queries: Mapping[str, Query]) -> MovedQueries:
        """``queries`` as the start of a chain of edits (itself if it already is one)."""
        if isinstance(queries, MovedQueries):
            return queries
        ids = list(queries)
        return cls(queries, {qid: i for i, qid in enumerate(ids)}, ids, {}, (), ())

    def ids(self) -> list[str]:
        """The query ids in order (shared: do not change it)."""
        return self._ids

    def edited(self, qid: str, query: Query, delta: int) -> Mapping[str, Query]:
        """The queries once the entry of ``qid`` is re-parsed as ``query`` (spans in the new
        text) and every later entry has moved by ``delta``."""
        place = self._index[qid]
        replaced = dict(self._replaced)
        replaced[qid] = query.shifted(-_moved_by(self._firsts, self._totals, place))
        firsts, totals = self._firsts, self._totals
        if delta:
            firsts, totals = _add_move(firsts, totals, place + 1, delta)
        if len(replaced) + len(firsts) > COMPACT_AT:  # lookups slow down: make it plain
            return {q: self._at(q, i, replaced, firsts, totals) for i, q in enumerate(self._ids)}
        return MovedQueries(self._base, self._index, self._ids, replaced, firsts, totals)

    def _at(
        self,
        qid: str,
        place: int,
        replaced: dict[str, Query],
        firsts: tuple[int, ...],
        totals: tuple[int, ...],
    ) -> Query:
        query = replaced.get(qid)
        if query is None:
            query = self._base[qid]
        return query.shifted(_moved_by(firsts, totals, place))

    def __getitem__(self, qid: str) -> Query:
        made = self._made.get(qid)
        if made is None:
            place = self._index[qid]  # KeyError for an unknown id, as a dict's
            made = self._at(qid, place, self._replaced, self._firsts, self._totals)
            self._made[qid] = made  # (two threads may both make it: the same query)
        return made

    def __contains__(self, qid: object) -> bool:
        return qid in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)


def _moved_by(firsts: tuple[int, ...], totals: tuple[int, ...], place: int) -> int:
    """How far the query at ``place`` has moved: the total of the last move at or before it."""
    j = bisect.bisect_right(firsts, place) - 1
    return totals[j] if j >= 0 else 0


def _add_move(
    firsts: tuple[int, ...], totals: tuple[int, ...], first: int, delta: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The moves with every query from place ``first`` on moved by ``delta`` more."""
    j = bisect.bisect_left(firsts, first)
    if j < len(firsts) and firsts[j] == first:
        return firsts, totals[:j] + tuple(t + delta for t in totals[j:])
    before = totals[j - 1] if j > 0 else 0
    return (
        (*firsts[:j], first, *firsts[j:]),
        (*totals[:j], before + delta, *(t + delta for t in totals[j:])),
    )


@dataclass(slots=True)
class Qrels:
    """A golden set YAML, a TREC qrels file or a BEIR qrels TSV."""

    format: QrelsFormat
    queries: Mapping[str, Query] = field(default_factory=dict)  # in file order (MovedQueries)
    corpus: Ref | None = None
    k: int | None = None
    k_span: Span | None = None
    queries_span: Span | None = None  # the `queries` key of a golden set YAML (a key goes above)
    relevance_level: int | None = None
    runs: list[Ref] = field(default_factory=list)
    compare_to: Ref | None = None  # the base run of comparisons, by name
    judgments: Ref | None = None  # `judgments:` exhaustive or pooled (core/coverage/judgments)
    fusions: list[Fusion] | None = None  # `fusions:` (None: not written; the config's apply)
    chunks: ChunkRule | None = None  # `chunks:`: how its runs' ids map to its documents
    findings: list[Finding] = field(default_factory=list)

    def grades(self) -> dict[str, dict[str, int]]:
        return {qid: q.grades() for qid, q in self.queries.items()}

    def unanswerable(self) -> set[str]:
        return {qid for qid, q in self.queries.items() if q.unanswerable}


@dataclass(frozen=True, slots=True)
class EntryEdit:
    """What a re-parse changed, for the caches that derive a new analysis from the last one:
    the entry of query ``qid`` of ``before`` was re-parsed, and every span from the entry's old
    end on moved by ``delta``. The other queries' judgments and questions are as they were."""

    before: Qrels
    qid: str
    end: int
    delta: int


@dataclass(slots=True)
class Retrieved:
    doc_id: str
    span: Span  # of the document id
    score: float | None = None
    rank: int | None = None  # the rank column as written (TREC), not the evaluation rank


class Docs(Sequence[Retrieved]):
    """A ranking's documents held as columns: the ids, where each is written, and the scores and
    ranks as machine numbers; a :class:`Retrieved` is made when one is read.

    An open run YAML of 100 queries x 60 documents held as ``Retrieved`` and ``Span`` objects
    took 13 times its text (some 270 bytes a document, written in 20), and an editor opens
    hundreds of them. As columns, with the ids interned (the runs of one golden set rank the
    same corpus: each id is held once), a document costs 16 to 24 bytes.
    """

    __slots__ = ("_ends", "_ranks", "_scores", "_starts", "ids")

    def __init__(
        self,
        ids: list[str],
        starts: array[int],
        ends: array[int] | None = None,
        scores: array[float] | None = None,
        ranks: Sequence[int] | None = None,
    ) -> None:
        self.ids = ids  # (shared with what reads them: never changed)
        self._starts = starts
        self._ends = ends  # None: each span is as long as its id
        self._scores = scores
        self._ranks = ranks  # an array, or a range when the rank is the place plus one

    @classmethod
    def of(cls, entries: Sequence[Retrieved]) -> Sequence[Retrieved]:
        """``entries`` as columns; as they are when some have a score (or a rank) and others not,
        which no column can say."""
        if isinstance(entries, Docs):
            return entries
        scores = [r.score for r in entries]
        ranks = [r.rank for r in entries]
        scored, ranked = _column(scores), _column(ranks)
        if scored is None or ranked is None or (ranked and not _fits(ranks)):  # type: ignore[arg-type]
            return entries
        ids = [sys.intern(r.doc_id) for r in entries]
        starts = array("q", [r.span.start for r in entries])
        ends = [r.span.end for r in entries]
        sized = all(e == s + len(d) for d, s, e in zip(ids, starts, ends, strict=True))
        return cls(
            ids,
            starts,
            None if sized else array("q", ends),
            array("d", scores) if scored else None,  # type: ignore[arg-type]
            _ranks(ranks) if ranked else None,  # type: ignore[arg-type]
        )

    def __len__(self) -> int:
        return len(self.ids)

    def _at(self, i: int) -> Retrieved:
        doc, start = self.ids[i], self._starts[i]
        end = self._ends[i] if self._ends is not None else start + len(doc)
        return Retrieved(
            doc,
            Span(start, end),
            self._scores[i] if self._scores is not None else None,
            self._ranks[i] if self._ranks is not None else None,
        )

    @overload
    def __getitem__(self, i: int) -> Retrieved: ...
    @overload
    def __getitem__(self, i: slice) -> list[Retrieved]: ...
    def __getitem__(self, i: int | slice) -> Retrieved | list[Retrieved]:
        if isinstance(i, slice):
            return [self._at(j) for j in range(*i.indices(len(self.ids)))]
        return self._at(range(len(self.ids))[i])  # (negative indexes, IndexError)

    def __iter__(self) -> Iterator[Retrieved]:
        return map(self._at, range(len(self.ids)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]


def _column(values: list[float | None] | list[int | None]) -> bool | None:
    """Whether every value is given (True) or none is (False); None when some are."""
    given = sum(v is not None for v in values)
    return True if given == len(values) and values else False if not given else None


def _fits(ranks: list[int]) -> bool:
    """Whether every rank fits a machine integer (a TREC rank column may hold any number)."""
    return all(-(1 << 63) <= r < 1 << 63 for r in ranks)


def _ranks(ranks: list[int]) -> Sequence[int]:
    """A rank column: a range when each rank is its place plus one (a listed ranking)."""
    if all(r == i for i, r in enumerate(ranks, start=1)):
        return range(1, len(ranks) + 1)
    return array("q", ranks)


@dataclass(slots=True)
class Ranking:
    """One query's results in evaluation order (trec_eval's for TREC), first occurrences only."""

    qid: str
    span: Span  # of the query id (first occurrence)
    block: Span
    docs: Sequence[Retrieved] = field(default_factory=list)  # a Docs, as run YAML is read

    def doc_ids(self) -> list[str]:
        """The ids in order (shared with a :class:`Docs`: do not change it)."""
        docs = self.docs
        return docs.ids if isinstance(docs, Docs) else [d.doc_id for d in docs]


@dataclass(slots=True)
class Run:
    format: RunFormat
    name: str | None = None
    name_span: Span | None = None
    qrels: Ref | None = None
    results_span: Span | None = None  # the `results:` key of a YAML run
    rankings: dict[str, Ranking] = field(default_factory=dict)  # in file order
    findings: list[Finding] = field(default_factory=list)

    def ranked_ids(self) -> dict[str, list[str]]:
        return {qid: r.doc_ids() for qid, r in self.rankings.items()}


def rank_in_list(ranking: Sequence[str], doc_id: str) -> int | None:
    """1-based rank of ``doc_id`` in a ranking (evaluation order); None if it is not there."""
    try:
        return ranking.index(doc_id) + 1
    except ValueError:
        return None
