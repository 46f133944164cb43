"""Independent numbers for end-to-end tests: the files read with yaml.safe_load / str.split and
scored by pytrec_eval (trec_eval 9), never by qrels-lsp's own parsers or metrics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytrec_eval
import yaml
from qrels_lsp.core.formats.corpus import Corpus
from qrels_lsp.core.search.tokens import tokenize
from rank_bm25 import BM25Okapi


def golden_qrels(path: Path) -> tuple[dict[str, dict[str, int]], set[str], int]:
    """(qrels, unanswerable ids, k) of a golden set; non-integer grades are dropped, as reported."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    qrels: dict[str, dict[str, int]] = {}
    unanswerable = set()
    for qid, entry in (data.get("queries") or {}).items():
        entry = entry or {}
        rel = entry.get("relevant") or []
        grades: dict[str, int] = {}
        if isinstance(rel, list):
            for d in rel:
                grades.setdefault(str(d), 1)
        else:
            for d, g in rel.items():
                if isinstance(g, int) and not isinstance(g, bool):
                    grades.setdefault(str(d), g)
        qrels[str(qid)] = grades
        if entry.get("unanswerable") is True:
            unanswerable.add(str(qid))
    return qrels, unanswerable, int(data.get("k", 10))


def run_scores(path: Path) -> dict[str, dict[str, float]]:
    """A run as pytrec_eval wants it: YAML lists get descending scores in list order."""
    if path.suffix in (".yaml", ".yml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        out: dict[str, dict[str, float]] = {}
        for qid, ranking in (data.get("results") or {}).items():
            if isinstance(ranking, list):
                n = len(ranking)
                out[str(qid)] = {}
                for i, d in enumerate(ranking):
                    out[str(qid)].setdefault(str(d), float(n - i))
            else:
                out[str(qid)] = {str(d): float(s) for d, s in ranking.items()}
        return out
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 6:
            out.setdefault(parts[0], {})[parts[2]] = float(parts[4])
    return out


def per_query(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], k: int
) -> dict[str, dict[str, float]]:
    """recall@k and reciprocal rank per query; queries missing from the run score 0."""
    judged = {q: g for q, g in qrels.items() if g}
    ev = pytrec_eval.RelevanceEvaluator(judged, {f"recall.{k}", "recip_rank"})
    res = ev.evaluate({q: r for q, r in run.items() if q in judged})
    out = {}
    for q in qrels:
        got = res.get(q, {})
        out[q] = {f"recall@{k}": got.get(f"recall_{k}", 0.0), "mrr": got.get("recip_rank", 0.0)}
    return out


def bm25_run(corpus: Corpus, questions: dict[str, str], depth: int) -> dict[str, dict[str, float]]:
    """rank_bm25's get_scores over every document; the top ``depth`` with a query term."""
    ids = list(corpus.ids)
    docs = [
        tokenize(doc.searchable_text) for doc in (corpus.get(i) for i in ids) if doc is not None
    ]
    bm25 = BM25Okapi(docs)
    run = {}
    for qid, question in questions.items():
        q = tokenize(question)
        scores = bm25.get_scores(q)
        has_term = np.array([any(t in bm25.doc_freqs[i] for t in q) for i in range(len(ids))])
        order = sorted((i for i in range(len(ids)) if has_term[i]), key=lambda i: (-scores[i], i))
        run[qid] = {ids[i]: float(scores[i]) for i in order[:depth]}
    return run


def by_rank(ranking: list[str]) -> dict[str, float]:
    """A ranking as pytrec_eval scores that keep its order even in 32-bit floats."""
    return {d: float(len(ranking) - i) for i, d in enumerate(ranking)}


def trec_order(scores: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, then document id descending (as bytes)."""
    return sorted(scores, key=lambda d: (scores[d], d.encode()), reverse=True)


def chunks_to_documents(run: dict[str, dict[str, float]], sep: str) -> dict[str, dict[str, float]]:
    """A run of chunks `doc<sep>n` as the run of their documents: each at its first chunk in
    trec_eval's order (docs/compare.md, "Runs of chunks")."""
    return {
        q: by_rank(list(dict.fromkeys(c.split(sep)[0] for c in trec_order(chunks))))
        for q, chunks in run.items()
    }


def rrf(runs: list[dict[str, dict[str, float]]], k: int = 60) -> dict[str, dict[str, float]]:
    """Reciprocal rank fusion (Cormack et al. 2009), written again from the paper: each run adds
    1 / (k + rank) for each document it ranks, ranks in trec_eval's order."""
    fused: dict[str, dict[str, float]] = {}
    for run in runs:
        for q, scores in run.items():
            for rank, d in enumerate(trec_order(scores), start=1):
                fused.setdefault(q, {})
                fused[q][d] = fused[q].get(d, 0.0) + 1 / (k + rank)
    return {q: by_rank(trec_order(s)) for q, s in fused.items()}


def demo_runs(root: Path) -> dict[str, dict[str, dict[str, float]]]:
    """Every run of the demo's golden set, in the order the server lists them (its `runs:`
    globs, then its `fusions:`), at the level of documents: `passages` by its `chunks:` rule
    (`#`), `rrf` fused from bm25 and dense."""
    runs = {
        name: run_scores(root / "runs" / file)
        for name, file in (
            ("bm25", "bm25.run.yaml"),
            ("dense", "dense.run.yaml"),
            ("passages", "passages.run.yaml"),
            ("hybrid", "hybrid.trec"),
        )
    }
    runs["passages"] = chunks_to_documents(runs["passages"], "#")
    runs["rrf"] = rrf([runs["bm25"], runs["dense"]])
    return runs
