"""The parsed model: judgments (golden sets, TREC/BEIR qrels) and runs, with spans.

Every format parses into these few classes, so checks, metrics, the CLI and the language server
work the same whatever the file looked like. They are plain data: no I/O, no LSP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from .findings import Finding
from .text import Span

QrelsFormat = Literal["golden", "trec", "beir"]
RunFormat = Literal["yaml", "trec"]


@dataclass(frozen=True, slots=True)
class Ref:
    """A string value as written in a file (a path, a glob, a name) and where it was written."""

    value: str
    span: Span


@dataclass(slots=True)
class Judgment:
    doc_id: str
    grade: int
    span: Span  # of the document id
    grade_span: Span | None = None


@dataclass(slots=True)
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

    def grades(self) -> dict[str, int]:
        """doc id -> grade; the first judgment of a document wins, as the checks report."""
        out: dict[str, int] = {}
        for j in self.judgments:
            out.setdefault(j.doc_id, j.grade)
        return out


@dataclass(slots=True)
class Qrels:
    """A golden set YAML, a TREC qrels file or a BEIR qrels TSV."""

    format: QrelsFormat
    queries: dict[str, Query] = field(default_factory=dict)  # in file order
    corpus: Ref | None = None
    k: int | None = None
    k_span: Span | None = None
    relevance_level: int | None = None
    runs: list[Ref] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def grades(self) -> dict[str, dict[str, int]]:
        return {qid: q.grades() for qid, q in self.queries.items()}

    def unanswerable(self) -> set[str]:
        return {qid for qid, q in self.queries.items() if q.unanswerable}


@dataclass(slots=True)
class Retrieved:
    doc_id: str
    span: Span  # of the document id
    score: float | None = None
    rank: int | None = None  # the rank column as written (TREC), not the evaluation rank


@dataclass(slots=True)
class Ranking:
    """One query's results in evaluation order (trec_eval's for TREC), first occurrences only."""

    qid: str
    span: Span  # of the query id (first occurrence)
    block: Span
    docs: list[Retrieved] = field(default_factory=list)

    def doc_ids(self) -> list[str]:
        return [d.doc_id for d in self.docs]


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
