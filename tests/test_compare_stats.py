"""The comparison statistics (docs/compare.md) against independent oracles on real data.

Per-query values: the Vaswani BM25 run scored by our evaluator, against two generated runs with
known differences (relevant documents demoted in a seeded subset of queries; an exact copy).
Oracles: scipy.stats.permutation_test (exact up to 20 queries: equal; above, within Monte Carlo
error), ttest_rel (1e-9), scipy.stats.bootstrap (percentile, within Monte Carlo error),
statsmodels' multipletests (Holm) and TTestPower, and ranx's compare (slow: ranx imports slowly).
"""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from compare_data import (
    METRICS,
    bm25,
    demoted,
    demoted_queries,
    grades,
    scored,
    shuffled,
    values,
)
from qrels_lsp.core.compare import (
    SEED,
    bootstrap_ci,
    compare,
    detectable_difference,
    holm,
    questions_needed,
    randomization_p,
    ttest_p,
)
from qrels_lsp.core.compare import stats as S
from qrels_lsp.core.metrics import Evaluation
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import TTestPower


def _mean_delta(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x - y, axis=axis)


def permutation_p(run: np.ndarray, base: np.ndarray, resamples: float = 9999) -> float:
    result = stats.permutation_test(
        (run, base),
        _mean_delta,
        permutation_type="samples",
        alternative="two-sided",
        vectorized=True,
        n_resamples=resamples,
        random_state=12345,
    )
    return float(result.pvalue)


def base_and_demoted() -> tuple[Evaluation, Evaluation, list[str]]:
    base, run = scored(bm25()), scored(demoted())
    return base, run, list(base.per_query)


def deltas(n: int | None = None) -> np.ndarray:
    """(metrics, n) real deltas: demoted - BM25 on the first n queries (all by default)."""
    base, run, qids = base_and_demoted()
    qids = qids[:n] if n is not None else qids
    return np.array(
        [values(run.per_query, m, qids) - values(base.per_query, m, qids) for m in METRICS]
    )


def mixed(n: int) -> np.ndarray:
    """Real deltas with both signs: ndcg@10 of demoted vs BM25, and of BM25 vs demoted, and
    recall@10 against ndcg@10 of the same run (different scales, many distinct values)."""
    base, run, qids = base_and_demoted()
    qids = qids[:n]
    b, r = base.per_query, run.per_query
    return np.array(
        [
            values(r, "ndcg@10", qids) - values(b, "ndcg@10", qids),
            values(b, "recall@10", qids) - values(r, "ndcg@10", qids),
            values(b, "mrr", qids) - values(b, "ndcg@10", qids),
        ]
    )


# -- randomization -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 7, 12, 16])
def test_exact_randomization_equals_permutation_test(n: int) -> None:
    D = mixed(n)
    ours = randomization_p(D)
    for c in range(D.shape[0]):
        expected = permutation_p(D[c], np.zeros(n), resamples=np.inf)
        assert ours[c] == expected, (c, ours[c], expected)


@pytest.mark.slow
def test_exact_randomization_at_twenty_queries() -> None:
    D = mixed(20)
    ours = randomization_p(D)
    for c in range(D.shape[0]):
        assert ours[c] == permutation_p(D[c], np.zeros(20), resamples=np.inf)


def _within_monte_carlo(p: float, expected: float, b: int, b_oracle: int) -> bool:
    spread = math.sqrt(p * (1 - p) / b) + math.sqrt(p * (1 - p) / b_oracle)
    return abs(p - expected) <= 4 * spread + 1 / b + 1 / b_oracle


@pytest.mark.parametrize("resamples", [2000, pytest.param(10_000, marks=pytest.mark.slow)])
def test_sampled_randomization_within_monte_carlo_error(resamples: int) -> None:
    D = np.vstack([deltas(), mixed(93)])
    ours = randomization_p(D, resamples=resamples)
    for c in range(D.shape[0]):
        expected = permutation_p(D[c], np.zeros(93))
        assert _within_monte_carlo(ours[c], expected, resamples, 9999), (c, ours[c], expected)
    assert np.all(ours >= 1 / (1 + resamples))


def test_demoted_run_is_significantly_worse_and_the_copy_is_not() -> None:
    D = deltas()
    assert np.all(randomization_p(D, resamples=1000) < 0.01)
    assert np.all(randomization_p(np.zeros_like(D), resamples=1000) == 1.0)


def test_resampled_sums_are_exact() -> None:
    """The sign-flip and bootstrap sums equal the same sums in exact rational arithmetic."""
    D = mixed(40)
    Q, scale = S.grid(D)
    assert np.all(np.abs(Q).sum(axis=1) <= 2.0**52)
    assert np.all(np.abs(Q / scale[:, None] - D) <= 0.5 / scale[:, None])
    kept = S.Resamples.empty(40, 130)
    sums, boots = S.resampled_sums(Q, 130, keep=kept)
    signs = kept.sign_columns(np.arange(40)).astype(int)  # (n, B)
    counts = kept.count_columns(np.arange(40)).astype(int)  # (n, B)
    rows = [[Fraction(int(q)) for q in row] for row in Q]
    for c, row in enumerate(rows):
        for b in (0, 1, 63, 64, 129):
            assert sums[c, b] == sum(s * q for s, q in zip(signs[:, b], row, strict=True))
            assert boots[c, b] == sum(k * q for k, q in zip(counts[:, b], row, strict=True))
    assert np.all(counts.sum(axis=0) == 40)  # each resample draws n queries


@pytest.mark.parametrize("n", [1, 7, 40])
def test_counts_kept_two_a_byte_read_back_as_drawn(n: int) -> None:
    """The counts are kept two queries a byte while they fit, else whole: either way each
    query's column reads back as the plain array drawn, odd n and a count past 15 included."""
    rng = np.random.default_rng(3)
    drawn = rng.integers(0, 16, size=(12, n))
    kept = S.Resamples.empty(n, 24)
    kept.keep(0, np.zeros((12, -(-n // 8)), dtype=np.uint8), drawn)
    assert kept.packed and kept.counts.nbytes == 24 * -(-n // 2)
    queries = np.arange(n)[::-1].copy()
    assert np.array_equal(kept.count_columns(queries)[:, :12], drawn[:, queries].T)
    more = rng.integers(0, 300, size=(12, n))
    kept.keep(12, np.zeros((12, -(-n // 8)), dtype=np.uint8), more)
    assert not kept.packed
    both = np.concatenate([drawn, more])
    assert np.array_equal(kept.count_columns(queries), both[:, queries].T)


def test_the_stream_does_not_depend_on_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks are for memory only: the same sign vectors and resamples whatever their size."""
    D = mixed(93)
    p, ci = randomization_p(D, resamples=700), bootstrap_ci(D, resamples=700)
    monkeypatch.setattr(S, "_CHUNK_BYTES", 1)
    assert np.array_equal(randomization_p(D, resamples=700), p)
    assert np.array_equal(bootstrap_ci(D, resamples=700), ci)
    assert not np.array_equal(randomization_p(D, resamples=700, seed=SEED + 1), p)


# -- t-test --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 5, 30, None])
def test_ttest_equals_ttest_rel(n: int | None) -> None:
    base, run, qids = base_and_demoted()
    qids = qids[:n] if n is not None else qids
    D = []
    expected = []
    for m in METRICS:
        r, b = values(run.per_query, m, qids), values(base.per_query, m, qids)
        D.append(r - b)
        expected.append(stats.ttest_rel(r, b).pvalue)
    ours = ttest_p(np.array(D))
    for o, e in zip(ours, expected, strict=True):
        if math.isnan(e):
            assert math.isnan(o)
        else:
            assert abs(o - e) <= 1e-9


def test_ttest_undefined_for_one_query_and_equal_deltas() -> None:
    assert np.isnan(ttest_p(np.array([[0.3]]))).all()
    same = np.array([[0.25] * 9, [0.0] * 9, [0.1, 0.2] + [0.1] * 7])
    p = ttest_p(same)
    assert np.isnan(p[0]) and np.isnan(p[1]) and not np.isnan(p[2])


# -- bootstrap -----------------------------------------------------------------------------------


def test_bootstrap_interval_within_monte_carlo_error() -> None:
    D = np.vstack([deltas(), mixed(93)])
    ours = bootstrap_ci(D)
    for c in range(D.shape[0]):
        oracle = stats.bootstrap(
            (D[c],), np.mean, method="percentile", n_resamples=10_000, random_state=5
        ).confidence_interval
        # Each end is a 2.5% quantile of 10,000 resampled means: its standard error is about
        # 0.027 times the standard error of the mean; two independent estimates, 5 of those.
        se = D[c].std(ddof=1) / math.sqrt(D.shape[1])
        assert abs(ours[c, 0] - oracle.low) <= 0.2 * se, (c, ours[c], oracle)
        assert abs(ours[c, 1] - oracle.high) <= 0.2 * se, (c, ours[c], oracle)
        assert ours[c, 0] <= D[c].mean() <= ours[c, 1]


def test_bootstrap_of_ties_and_of_one_query() -> None:
    assert bootstrap_ci(np.zeros((2, 50)), resamples=300).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert bootstrap_ci(np.array([[0.375]]), resamples=300).tolist() == [[0.375, 0.375]]


# -- Holm ----------------------------------------------------------------------------------------


def test_holm_equals_multipletests() -> None:
    p = np.concatenate([ttest_p(mixed(93)), ttest_p(deltas()), ttest_p(mixed(30))])
    assert np.array_equal(holm(p), multipletests(p, method="holm")[1])


def test_holm_skips_nan_and_keeps_it() -> None:
    p = np.array([0.01, np.nan, 0.04, 0.03, np.nan, 0.2, 0.01])
    known = ~np.isnan(p)
    ours = holm(p)
    assert np.isnan(ours[~known]).all()
    assert np.array_equal(ours[known], multipletests(p[known], method="holm")[1])
    assert holm(np.array([])).size == 0


# -- questions needed ----------------------------------------------------------------------------


def _real_sds() -> list[float]:
    return [float(s) for s in np.vstack([deltas(), mixed(93)]).std(axis=1, ddof=1)]


@pytest.mark.parametrize("d", [0.01, 0.05, 0.1, 0.3])
def test_questions_needed_equals_ttestpower(d: float) -> None:
    power = TTestPower()
    for sd in _real_sds():
        expected = power.solve_power(
            effect_size=d / sd, alpha=0.05, power=0.8, alternative="two-sided"
        )
        assert questions_needed(sd, d) == math.ceil(expected), (sd, d, expected)
        assert questions_needed(sd, -d) == questions_needed(sd, d)


def test_questions_needed_at_other_alpha_and_power() -> None:
    expected = TTestPower().solve_power(
        effect_size=0.05 / 0.2, alpha=0.01, power=0.9, alternative="two-sided"
    )
    assert questions_needed(0.2, 0.05, alpha=0.01, power=0.9) == math.ceil(expected)


def test_questions_needed_undefined() -> None:
    assert questions_needed(0.0, 0.05) is None
    assert questions_needed(0.2, 0.0) is None
    assert questions_needed(float("nan"), 0.05) is None


@pytest.mark.parametrize("n", [2, 3, 10, 36, 93, 10_000])
def test_detectable_difference_equals_ttestpower(n: int) -> None:
    effect = TTestPower().solve_power(nobs=n, alpha=0.05, power=0.8, alternative="two-sided")
    for sd in _real_sds():
        ours = detectable_difference(sd, n)
        assert ours is not None
        assert ours == pytest.approx(effect * sd, rel=1e-5)


def test_detectable_difference_undefined() -> None:
    assert detectable_difference(0.2, 1) is None
    assert detectable_difference(0.0, 50) is None


# -- compare -------------------------------------------------------------------------------------


def test_compare_on_real_runs() -> None:
    base, run, qids = base_and_demoted()
    family = compare(
        "bm25",
        base.per_query,
        [("demoted", run.per_query), ("copy", scored(bm25()).per_query), ("bm25", run.per_query)],
        METRICS,
        resamples=2000,
    )
    assert family.base == "bm25" and family.n_queries == 93 and family.alpha == 0.05
    assert [(c.run, c.metric) for c in family.items] == [
        (r, m) for r in ("demoted", "copy") for m in METRICS
    ]  # the base's namesake is skipped; run-major
    D = deltas()
    p = randomization_p(np.vstack([D, np.zeros_like(D)]), resamples=2000)
    assert [c.p_randomization for c in family.items] == p.tolist()
    assert [c.p_adjusted for c in family.items] == multipletests(p, method="holm")[1].tolist()
    for c in family.for_run("demoted"):
        r, b = values(run.per_query, c.metric, qids), values(base.per_query, c.metric, qids)
        assert c.base_mean == base.mean[c.metric]  # the very number the scores show
        assert c.run_mean == run.mean[c.metric]
        assert c.delta == run.mean[c.metric] - base.mean[c.metric]
        assert c.n_queries == 93
        assert c.wins == 0 and c.losses == int(np.sum(r < b)) > 20
        assert c.ties == 93 - c.losses
        assert set(q for q, v in c.deltas.items() if v < 0) <= demoted_queries()
        assert list(c.deltas) == qids
        assert c.significant and c.p_adjusted < 0.05
        assert c.ci95[0] <= c.delta <= c.ci95[1] < 0
        assert c.p_ttest is not None and abs(c.p_ttest - stats.ttest_rel(r, b).pvalue) <= 1e-9
        sd = float(np.std(r - b, ddof=1))
        assert c.questions_needed == questions_needed(sd, 0.05)
        assert c.detectable_difference == detectable_difference(sd, 93)
    assert family.get("demoted", "mrr") is family.items[2]
    assert family.get("bm25", "mrr") is None


def test_compare_with_a_copy_is_all_ties() -> None:
    base = scored(bm25())
    family = compare("bm25", base.per_query, [("copy", scored(bm25()).per_query)], METRICS)
    for c in family.items:
        assert (c.wins, c.ties, c.losses) == (0, 93, 0)
        assert c.delta == 0.0 and c.ci95 == (0.0, 0.0)
        assert c.p_randomization == 1.0 and c.p_adjusted == 1.0 and not c.significant
        assert c.p_ttest is None and c.questions_needed is None
        assert c.detectable_difference is None


def test_questions_needed_uses_the_observed_delta_without_min_difference() -> None:
    base, run, _ = base_and_demoted()
    family = compare(
        "bm25", base.per_query, [("demoted", run.per_query)], METRICS, min_difference=None,
        resamples=500,
    )  # fmt: skip
    assert family.min_difference is None
    for c in family.items:
        sd = float(np.std(np.array(list(c.deltas.values())), ddof=1))
        assert c.questions_needed == questions_needed(sd, abs(c.delta))


def test_missing_queries_count_zero_and_extra_queries_are_ignored() -> None:
    base, run, qids = base_and_demoted()
    gone = qids[::5]
    partial = {q: v for q, v in run.per_query.items() if q not in gone}
    partial["not-a-golden-query"] = dict.fromkeys(METRICS, 1.0)
    zeroed = {
        q: (dict.fromkeys(METRICS, 0.0) if q in gone else v) for q, v in run.per_query.items()
    }
    a = compare("bm25", base.per_query, [("r", partial)], METRICS, resamples=500)
    b = compare("bm25", base.per_query, [("r", zeroed)], METRICS, resamples=500)
    assert a == b
    assert a.items[0].n_queries == 93 and "not-a-golden-query" not in a.items[0].deltas


def test_unanswerable_queries_are_left_out() -> None:
    """The evaluation leaves unanswerable questions out of per_query: so does the comparison."""
    from qrels_lsp.core.metrics import evaluate, parse_metric

    metrics = [parse_metric(m) for m in METRICS]
    out = sorted(grades())[:10]
    base = evaluate(grades(), bm25(), metrics, unanswerable=out)
    run = evaluate(grades(), demoted(), metrics, unanswerable=out)
    family = compare("bm25", base.per_query, [("d", run.per_query)], METRICS, resamples=300)
    assert family.n_queries == base.n_queries == 83
    assert not set(out) & set(family.items[0].deltas)
    assert family.items[1].base_mean == base.mean["ndcg@10"]


@pytest.mark.parametrize("n", [0, 1, 2])
def test_tiny_query_sets(n: int) -> None:
    base, run, qids = base_and_demoted()
    chosen = [q for q in qids if q in demoted_queries()][:n]
    family = compare(
        "bm25",
        {q: base.per_query[q] for q in chosen},
        [("d", run.per_query)],
        ["ndcg@10"],
        resamples=300,
    )
    (c,) = family.items
    assert c.n_queries == n
    assert (c.detectable_difference is None) == (n < 2)
    if n == 0:  # nothing to test: no made-up p of 1 or interval of [0, 0], but why
        assert (c.delta, c.ci95, c.p_randomization, c.p_ttest) == (0.0, None, None, None)
        assert c.undefined["p_randomization"] == c.undefined["ci95"] == "no question to compare on"
    if n == 1:
        (d,) = c.deltas.values()
        # the interval is computed on the grid of 2**-52 at n = 1 (stats.grid)
        assert c.ci95 == pytest.approx((d, d), abs=2.0**-53)
        assert c.p_randomization == 1.0 and c.p_ttest is None
        assert c.questions_needed is None
    if n == 2:
        D = np.array([list(c.deltas.values())])
        assert c.p_randomization == randomization_p(D)[0] in (0.5, 1.0)
        assert c.p_ttest is not None or D[0, 0] == D[0, 1]


# -- ranx ----------------------------------------------------------------------------------------


@pytest.mark.slow
def test_unadjusted_ttest_decisions_agree_with_ranx() -> None:
    """ranx's report with the paired t-test, without correction, at the same alpha: the same
    differences are significant as by our unadjusted t-test p (ranx has no Holm)."""
    import ranx

    runs = {"bm25": bm25(), "demoted": demoted(), "shuffled": shuffled()}
    qrels = ranx.Qrels({q: dict(g) for q, g in grades().items()})

    def ranx_run(ranking: dict[str, list[str]]) -> ranx.Run:
        return ranx.Run(
            {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in ranking.items()}
        )

    names = list(runs)
    ranx_runs = []
    for name in names:
        r = ranx_run(runs[name])
        r.name = name
        ranx_runs.append(r)
    ranx_metrics = {"ndcg@10": "ndcg@10", "recall@10": "recall@10", "precision@5": "precision@5"}
    decided = set()
    for alpha in (0.05, 0.01):
        report = ranx.compare(
            qrels, ranx_runs, list(ranx_metrics.values()), stat_test="student", max_p=alpha
        )
        per_query = {name: scored(runs[name]).per_query for name in names}
        family = compare(
            "bm25", per_query["bm25"], [(n, per_query[n]) for n in names[1:]], list(ranx_metrics),
            alpha=alpha, resamples=200,
        )  # fmt: skip
        for c in family.items:
            theirs = report.comparisons[{c.run, "bm25"}][ranx_metrics[c.metric]]
            ours = c.p_ttest is not None and c.p_ttest < alpha
            assert ours == theirs["significant"], (c.run, c.metric, c.p_ttest, theirs)
            if c.p_ttest is None:  # every delta equal: scipy's t-test (ranx's) answers NaN
                assert math.isnan(theirs["p_value"])
            else:
                assert c.p_ttest == pytest.approx(theirs["p_value"], rel=1e-6)
            decided.add(ours)
    assert decided == {True, False}  # both kinds of decision were checked


def test_a_comparison_loads_neither_scipy_stats_nor_optimize() -> None:
    """The server imports scipy on its first comparison: scipy.special carries the t and
    noncentral t (stats.py), scipy.stats and scipy.optimize would add about 50 MB to it."""
    code = (
        "import sys\n"
        "from compare_data import METRICS, bm25, demoted, scored\n"
        "from qrels_lsp.core.compare import compare\n"
        "base, run = scored(bm25()), scored(demoted())\n"
        "family = compare('bm25', base.per_query, [('demoted', run.per_query)], METRICS)\n"
        "assert all(c.p_ttest is not None and c.detectable_difference for c in family.items)\n"
        "print(sorted(m for m in ('scipy.stats', 'scipy.optimize') if m in sys.modules))\n"
    )
    here = Path(__file__).parent
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=here, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
