"""Real per-query values for the comparison tests: the Vaswani BM25 run scored with our evaluator
against the Vaswani judgments, and runs generated from it with known differences."""

from __future__ import annotations

from functools import cache

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
