"""Comparison rows of the benchmark table (issue 15): a family of 10 runs x 6 metrics against a
base over 10,000 queries with 10,000 resamples.

Workload: seeded per-query tables in the shape of ``Evaluation.per_query`` (11 runs: a base and
10 others drifting from it by a few points, values on the grids metrics produce). Measured in one
process, after a warm-up call (scipy imported, caches filled):

- ``compare`` from scratch (median of R), against scipy doing the same statistics one
  comparison at a time: ``scipy.stats.permutation_test`` (samples, two-sided, 9,999 resamples)
  plus ``scipy.stats.bootstrap`` (percentile, 10,000 resamples) plus ``ttest_rel``. scipy takes
  seconds per comparison, so it is timed on a few comparisons and scaled to the 60 of the family
  (the note says how many).
- ``Comparer.compare`` after an edit that re-scores one query in every run (what a judgment edit
  does): p50 / p95 over E edits, against ``compare`` from scratch on the same family; every
  corrected answer is checked equal to the fresh one on the first edits.
- the memory the Comparer keeps between edits (the arrays it holds), and tracemalloc's peak
  during a fresh ``compare``.

    python tests/bench/bench_compare.py [--queries 10000] [--edits 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import tracemalloc
from typing import Any

import numpy as np

METRICS = ["recall@5", "recall@10", "ndcg@10", "mrr", "precision@5", "map"]
LEVELS = np.array([0.0, 0.1, 0.2, 0.25, 1 / 3, 0.5, 2 / 3, 0.75, 1.0])


def family(
    queries: int, runs: int, seed: int = 15
) -> tuple[dict[str, dict[str, float]], list[tuple[str, dict[str, dict[str, float]]]]]:
    rng = np.random.default_rng(seed)
    qids = [f"q{i:05d}" for i in range(queries)]
    base_idx = rng.integers(0, len(LEVELS), size=(queries, len(METRICS)))
    base = {
        q: dict(zip(METRICS, LEVELS[row].tolist(), strict=True))
        for q, row in zip(qids, base_idx, strict=True)
    }
    out = []
    for r in range(runs):
        drift = rng.integers(-2, 3, size=base_idx.shape) * (rng.random(base_idx.shape) < 0.3)
        idx = np.clip(
            base_idx + drift + (rng.random(base_idx.shape) < 0.02 * r), 0, len(LEVELS) - 1
        )
        out.append(
            (
                f"run{r}",
                {
                    q: dict(zip(METRICS, LEVELS[row].tolist(), strict=True))
                    for q, row in zip(qids, idx, strict=True)
                },
            )
        )
    return base, out


def _scipy_one(run: np.ndarray, base: np.ndarray, resamples: int) -> None:
    from scipy import stats

    stats.permutation_test(
        (run, base),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        alternative="two-sided",
        vectorized=True,
        n_resamples=resamples - 1,
        random_state=1,
    )
    stats.bootstrap(
        (run - base,), np.mean, method="percentile", n_resamples=resamples, random_state=1
    )
    stats.ttest_rel(run, base)


def run(
    queries: int = 10_000,
    runs: int = 10,
    resamples: int = 10_000,
    edits: int = 30,
    repeats: int = 3,
    scipy_comparisons: int = 2,
) -> dict[str, Any]:
    from qrels_lsp.core.compare import Comparer, compare

    base, others = family(queries, runs)
    qids = list(base)
    compare("base", base, others[:1], METRICS[:1], resamples=100)  # import scipy, warm caches

    fresh = []
    for _ in range(repeats):
        t = time.perf_counter()
        compare("base", base, others, METRICS, resamples=resamples)
        fresh.append(time.perf_counter() - t)
    tracemalloc.start()
    compare("base", base, others, METRICS, resamples=resamples)
    _, fresh_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    scipy_s = []
    for c in range(scipy_comparisons):
        _name, per_query = others[c % runs]
        metric = METRICS[c % len(METRICS)]
        r = np.array([per_query[q][metric] for q in qids])
        b = np.array([base[q][metric] for q in qids])
        t = time.perf_counter()
        _scipy_one(r, b, resamples)
        scipy_s.append(time.perf_counter() - t)
    comparisons = runs * len(METRICS)

    comparer = Comparer()
    t = time.perf_counter()
    comparer.compare("base", base, others, METRICS, resamples=resamples)
    first = time.perf_counter() - t
    state = comparer._state
    assert state is not None and state.kept is not None and state.sums is not None
    kept = (
        state.kept.signs.nbytes
        + state.kept.counts.nbytes
        + sum(a.nbytes for a in state.sums)
        + state.Q.nbytes
        + state.family.values.nbytes
    )
    rng = np.random.default_rng(7)
    edit_s = []
    equal = True
    for e in range(edits):
        qid = qids[int(rng.integers(queries))]
        base = {
            **base,
            qid: dict(zip(METRICS, rng.choice(LEVELS, len(METRICS)).tolist(), strict=True)),
        }
        others = [
            (
                n,
                {
                    **pq,
                    qid: dict(zip(METRICS, rng.choice(LEVELS, len(METRICS)).tolist(), strict=True)),
                },
            )
            for n, pq in others
        ]
        t = time.perf_counter()
        ours = comparer.compare("base", base, others, METRICS, resamples=resamples)
        edit_s.append(time.perf_counter() - t)
        if e < 2:
            equal &= ours == compare("base", base, others, METRICS, resamples=resamples)
    edit_s.sort()
    return {
        "queries": queries,
        "runs": runs,
        "metrics": len(METRICS),
        "resamples": resamples,
        "fresh_s": fresh,
        "fresh_median_s": statistics.median(fresh),
        "fresh_peak_mb": fresh_peak / 2**20,
        "scipy_per_comparison_s": scipy_s,
        "scipy_family_s": statistics.mean(scipy_s) * comparisons,
        "scipy_comparisons_timed": scipy_comparisons,
        "comparer_first_s": first,
        "edit_s": edit_s,
        "edit_p50_s": edit_s[len(edit_s) // 2],
        "edit_p95_s": edit_s[min(len(edit_s) - 1, int(0.95 * len(edit_s)))],
        "corrected": comparer.corrected,
        "recomputed": comparer.recomputed,
        "corrections_equal_fresh": equal,
        "kept_mb": kept / 2**20,
    }


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=10_000)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--resamples", type=int, default=10_000)
    p.add_argument("--edits", type=int, default=30)
    p.add_argument("--scipy", type=int, default=2, help="comparisons timed with scipy")
    a = p.parse_args()
    print(
        json.dumps(
            run(a.queries, a.runs, a.resamples, a.edits, scipy_comparisons=a.scipy), indent=2
        )
    )
