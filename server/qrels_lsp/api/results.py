"""What the API returns: frozen dataclasses of plain values (dictionaries, lists, floats), each
with ``to_pandas()`` for a notebook. pandas is imported only when that is called, and a missing
pandas says which extra brings it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.compare import Comparison


def pandas() -> Any:
    """pandas, or an ImportError that says how to install it."""
    try:
        import pandas as pd
    except ImportError as exc:
        raise ImportError(
            "to_pandas() needs pandas: pip install 'qrels-lsp[pandas]' (or pip install pandas)"
        ) from exc
    return pd


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One run scored against a golden set: each metric per query and its mean, keyed by the
    metric names as given. The values are ``qrels-lsp score --format json``'s (docs/metrics.md:
    trec_eval's per-query values; means over ``n_queries``, summed in trec_eval's order)."""

    run: str  # the run's name (a file's name without .run/.trec, a YAML run's `name:`)
    k: int  # the cutoff in force (the golden set's, the configuration's, or 10)
    per_query: dict[str, dict[str, float]]  # query -> metric -> value
    mean: dict[str, float]  # metric -> mean over the counted queries
    n_queries: int  # what every mean is over
    missing: list[str]  # golden queries the run does not answer: scored 0, in the means
    unknown: list[str]  # the run's queries the golden set does not have: ignored
    unanswerable: list[str]  # questions marked unanswerable: out of the means

    def to_pandas(self) -> Any:
        """One row per query, one column per metric (the query id as the index)."""
        pd = pandas()
        frame = pd.DataFrame.from_dict(self.per_query, orient="index", columns=list(self.mean))
        frame.index.name = "query"
        return frame


@dataclass(frozen=True, slots=True)
class Comparisons:
    """Runs compared with a base run, per metric (``qrels-lsp compare --format json``): each
    item holds the means, the delta, the paired tests, the interval, wins/ties/losses and the
    per-query deltas (``Comparison.deltas``); see docs/compare.md."""

    base: str
    n_queries: int
    alpha: float
    min_difference: float | None
    items: list[Comparison]
    evaluations: dict[str, Evaluation]  # each run's scores, the base's first

    def get(self, run: str, metric: str) -> Comparison | None:
        return next((c for c in self.items if c.run == run and c.metric == metric), None)

    def to_pandas(self) -> Any:
        """One row per (run, metric): the figures `compare` prints."""
        pd = pandas()
        rows = [
            {k: v for k, v in _fields(c).items() if k not in ("deltas", "undefined")}
            for c in self.items
        ]
        return pd.DataFrame(rows)


@dataclass(frozen=True, slots=True)
class Run:
    """A ranking of documents per query with their scores (a fused run): in trec_eval's order,
    so it scores, compares and writes like a run read from a file. It is itself a run the other
    functions take."""

    name: str
    rankings: dict[str, list[str]]  # query -> documents, best first
    scores: dict[str, list[float]]  # query -> their scores, in the same order

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {doc: score}}``: a ranx or pytrec_eval run."""
        return {
            q: dict(zip(docs, self.scores[q], strict=True)) for q, docs in self.rankings.items()
        }

    def to_trec(self) -> str:
        """TREC run lines as ``qrels-lsp fuse -o`` writes them (queries by id as bytes, scores to
        the last bit, the name as the tag)."""
        from ..core.formats.trec_run import run_tag, run_text

        return run_text(self.rankings, self.scores, run_tag(self.name))

    def to_pandas(self) -> Any:
        """One row per retrieved document: query, doc, rank (from 1), score."""
        pd = pandas()
        rows = [
            (q, d, rank, s)
            for q, docs in self.rankings.items()
            for rank, (d, s) in enumerate(zip(docs, self.scores[q], strict=True), start=1)
        ]
        return pd.DataFrame(rows, columns=["query", "doc", "rank", "score"])


@dataclass(frozen=True, slots=True)
class Pair:
    """An unjudged (question, document) pair of the judging queue."""

    query: str
    doc: str
    runs: list[str]  # the runs that put it in their top depth
    best_rank: int  # the best rank any of them gives it


@dataclass(frozen=True, slots=True)
class Pool:
    """The judging queue (``qrels-lsp pool --format json``): the unjudged pairs of the runs' top
    ``depth``, most shared first (docs/compare.md, "Which documents to judge next")."""

    depth: int
    runs: list[str]
    pairs: list[Pair]

    def to_pandas(self) -> Any:
        pd = pandas()
        return pd.DataFrame([_fields(p) for p in self.pairs], columns=list(Pair.__slots__))


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding of `check` (``qrels-lsp check --format json``): lines and columns from 1."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    severity: str  # error, warning, info or hint
    code: str  # QR...: README's table of codes
    message: str
    fixes: list[str]  # the titles of the fixes the editor offers


@dataclass(frozen=True, slots=True)
class Check:
    """The findings of every file checked, and what each file was read as."""

    findings: list[Finding]
    files: dict[str, str | None]  # path -> the format it was read as (None: not ours)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def to_pandas(self) -> Any:
        pd = pandas()
        return pd.DataFrame([_fields(f) for f in self.findings], columns=list(Finding.__slots__))


def _fields(item: object) -> dict[str, Any]:
    """A slotted dataclass's fields as a dictionary, values as they are (no deep copy)."""
    from dataclasses import fields

    return {f.name: getattr(item, f.name) for f in fields(item)}  # type: ignore[arg-type]


def rekeyed(values: Mapping[str, float], keys: Mapping[str, str]) -> dict[str, float]:
    """``values`` (keyed by the project's metric names) keyed by the names as given."""
    return {given: values[ours] for given, ours in keys.items()}
