"""Real per-query values for the comparison tests: the Vaswani BM25 run scored with our evaluator
against the Vaswani judgments, and runs generated from it with known differences."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
from conftest import TEST_DATA
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels
from qrels_lsp.core.formats.trec_run import parse_trec_run
from qrels_lsp.core.metrics import Evaluation, evaluate, parse_metric

METRICS = ["recall@10", "ndcg@10", "mrr", "precision@5"]
PerQuery = dict[str, dict[str, float]]


@cache
def grades() -> dict[str, dict[str, int]]:
    text = (TEST_DATA / "vaswani" / "qrels").read_text(encoding="utf-8")
    return parse_trec_qrels(text).grades()


@cache
def bm25() -> dict[str, list[str]]:
    text = (TEST_DATA / "vaswani" / "bm25_top100.run").read_text(encoding="utf-8")
    return parse_trec_run(text).ranked_ids()


def scored(run: dict[str, list[str]]) -> Evaluation:
    return evaluate(grades(), run, [parse_metric(m) for m in METRICS])


@cache
def demoted_queries(share: float = 0.4, seed: int = 7) -> frozenset[str]:
    """A seeded subset of the judged queries, where the demoted run is made worse."""
    qids = sorted(grades())
    rng = np.random.default_rng(seed)
    return frozenset(q for q in qids if rng.random() < share)


def demoted() -> dict[str, list[str]]:
    """BM25 with every relevant document of its top 10 moved to the bottom, in the seeded subset
    of queries: no metric here can rise anywhere, and most fall where a relevant one was."""
    out = {}
    for qid, ranking in bm25().items():
        if qid in demoted_queries():
            relevant = {d for d, g in grades().get(qid, {}).items() if g > 0}
            top = ranking[:10]
            out[qid] = [d for d in top if d not in relevant] + ranking[10:]
            out[qid] += [d for d in top if d in relevant]
        else:
            out[qid] = list(ranking)
    return out


def shuffled() -> dict[str, list[str]]:
    """BM25 with the top 10 shuffled in a seeded fifth of the queries: differences both ways,
    some significant, some not."""
    rng = np.random.default_rng(3)
    out = {}
    for qid, ranking in bm25().items():
        top = list(ranking[:10])
        if rng.random() < 0.2:
            rng.shuffle(top)
        out[qid] = top + ranking[10:]
    return out


def values(per_query: PerQuery, metric: str, qids: list[str]) -> np.ndarray:
    return np.array([per_query.get(q, {}).get(metric, 0.0) for q in qids])


def looping_case(tmp: Path) -> tuple[Path, Path, Path]:
    """14 questions with ten relevant documents each; the head puts an irrelevant document in
    place of the base's first on every question: precision@10 drops by 0.1 and rbp by 0.2
    everywhere, in floats not quite equally (the rest of each ranking differs)."""
    golden = ["k: 10", "queries:"]
    base, head = [], []
    for q in range(14):
        docs = [f"d{q}-{i}" for i in range(10)]
        golden += [f"  q{q}:", f"    question: question {q}", f"    relevant: [{', '.join(docs)}]"]
        filler = [f"x{q}-{i}" for i in range(10)]
        keep = 3 + q % 7  # a different precision on each question, the same drop
        ranked_base = docs[:keep] + filler[: 10 - keep]
        ranked_head = [filler[0], *docs[1:keep], *filler[1 : 11 - keep]]
        for lines, ranked, tag in ((base, ranked_base, "base"), (head, ranked_head, "head")):
            lines += [f"q{q} Q0 {d} {r + 1} {100 - r} {tag}" for r, d in enumerate(ranked)]
    paths = tmp / "golden.qrels.yaml", tmp / "base.trec", tmp / "head.trec"
    for path, lines in zip(paths, (golden, base, head), strict=True):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths
