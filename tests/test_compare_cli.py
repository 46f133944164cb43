"""`qrels-lsp compare`, run for real on the Vaswani collection (its qrels, the BM25 run of
tests/data and two runs made from it with known differences), each number checked against an
independent oracle: per-query values from pytrec_eval, then scipy's ttest_rel, permutation_test
and bootstrap, statsmodels' Holm and TTestPower (the contract: docs/compare.md)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from conftest import EXAMPLES, TEST_DATA
from test_cli import qrels_lsp, write

VASWANI = TEST_DATA / "vaswani"
METRICS = "recall@10,mrr,ndcg@10"
ORACLE_MEASURES = {"recall@10": "recall_10", "mrr": "recip_rank", "ndcg@10": "ndcg_cut_10"}
RESAMPLES = 10_000
KEYS = [
    "run",
    "metric",
    "base_mean",
    "run_mean",
    "delta",
    "ci95",
    "p_randomization",
    "p_ttest",
    "p_adjusted",
    "significant",
    "verdict",
    "verdict_needed",
    "wins",
    "ties",
    "losses",
    "questions_needed",
    "detectable_difference",
    "undefined",
]


def read_run(path: Path) -> dict[str, list[tuple[str, float]]]:
    out: dict[str, list[tuple[str, float]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _q0, doc, _rank, score, _tag = line.split()
        out.setdefault(qid, []).append((doc, float(score)))
    return out


def write_run(path: Path, run: dict[str, list[tuple[str, float]]], tag: str) -> Path:
    lines = []
    for qid, docs in run.items():
        ranked = sorted(docs, key=lambda d: -d[1])
        lines += [f"{qid} Q0 {d} {i + 1} {s:.6f} {tag}" for i, (d, s) in enumerate(ranked)]
    return write(path, "\n".join(lines) + "\n")


def relevant(qrels: Path) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for line in qrels.read_text(encoding="utf-8").splitlines():
        qid, _it, doc, grade = line.split()
        if int(grade) > 0:
            out.setdefault(qid, set()).add(doc)
    return out


def demoted(run: dict[str, list[tuple[str, float]]], share: float, seed: int) -> dict:
    """The run with every relevant document pushed below the others in a seeded share of the
    queries: worse there, equal elsewhere (a known difference)."""
    rel = relevant(VASWANI / "qrels")
    rng = random.Random(seed)
    out = {}
    for qid, docs in run.items():
        if rng.random() < share:
            low = min(s for _d, s in docs) - 1
            docs = [(d, (low - i) if d in rel.get(qid, ()) else s) for i, (d, s) in enumerate(docs)]
        out[qid] = docs
    return out


@pytest.fixture(scope="module")
def vaswani(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("vaswani")
    qrels = write(folder / "vaswani.qrels", (VASWANI / "qrels").read_text(encoding="utf-8"))
    bm25 = read_run(VASWANI / "bm25_top100.run")
    return {
        "qrels": qrels,
        "bm25": write_run(folder / "bm25.trec", bm25, "bm25"),
        "worse": write_run(folder / "worse.trec", demoted(bm25, 0.3, 7), "worse"),
        "same": write_run(folder / "same.trec", bm25, "same"),
    }


def oracle_values(qrels: Path, run: Path) -> dict[str, dict[str, float]]:
    """Per query and metric, pytrec_eval's values, every judged query present (0 if missing)."""
    judged = {}
    for line in qrels.read_text(encoding="utf-8").splitlines():
        qid, _it, doc, grade = line.split()
        judged.setdefault(qid, {})[doc] = int(grade)
    ranked = {q: {d: s for d, s in docs} for q, docs in read_run(run).items()}
    ev = pytrec_eval.RelevanceEvaluator(judged, set(ORACLE_MEASURES.values())).evaluate(ranked)
    return {q: {m: ev.get(q, {}).get(te, 0.0) for m, te in ORACLE_MEASURES.items()} for q in judged}


def compare(golden: Path, *args: str | Path) -> dict:
    """`compare` run from the golden set's folder: the command line's workspace."""
    result = qrels_lsp(
        "compare", golden, *args, "--format", "json", "--metrics", METRICS, cwd=golden.parent
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_every_number_agrees_with_the_oracles(vaswani: dict[str, Path]) -> None:
    from scipy import stats
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.power import TTestPower

    doc = compare(vaswani["qrels"], vaswani["bm25"], vaswani["worse"], "--base", "bm25")
    assert list(doc) == ["base", "n_queries", "alpha", "comparisons"]
    assert doc["base"] == "bm25" and doc["n_queries"] == 93 and doc["alpha"] == 0.05
    assert [(c["run"], c["metric"]) for c in doc["comparisons"]] == [
        ("worse", m) for m in METRICS.split(",")
    ]
    base = oracle_values(vaswani["qrels"], vaswani["bm25"])
    run = oracle_values(vaswani["qrels"], vaswani["worse"])
    qids = list(base)
    for c in doc["comparisons"]:
        assert list(c) == KEYS
        m = c["metric"]
        x = np.array([run[q][m] for q in qids])
        y = np.array([base[q][m] for q in qids])
        d = x - y
        assert c["base_mean"] == pytest.approx(y.mean(), abs=1e-12)
        assert c["run_mean"] == pytest.approx(x.mean(), abs=1e-12)
        assert c["delta"] == pytest.approx(d.mean(), abs=1e-12)
        assert (c["wins"], c["ties"], c["losses"]) == (
            int((d > 0).sum()),
            int((d == 0).sum()),
            int((d < 0).sum()),
        )
        assert c["p_ttest"] == pytest.approx(stats.ttest_rel(x, y).pvalue, abs=1e-9)
        perm = stats.permutation_test(
            (x, y),
            lambda a, b: np.mean(a - b),
            permutation_type="samples",
            alternative="two-sided",
            n_resamples=RESAMPLES,
            random_state=1,
        )
        p = perm.pvalue
        assert abs(c["p_randomization"] - p) <= 4 * math.sqrt(p * (1 - p) / RESAMPLES) + 2e-4
        boot = stats.bootstrap(
            (d,), np.mean, method="percentile", n_resamples=RESAMPLES, random_state=1
        ).confidence_interval
        # Monte Carlo error of a 2.5% quantile of 10,000 resamples: about 0.027 standard errors
        # of the mean per estimate; two independent estimates, four of those: 0.15.
        spread = d.std(ddof=1) / math.sqrt(len(d))
        assert c["ci95"][0] == pytest.approx(boot.low, abs=0.15 * spread + 1e-12)
        assert c["ci95"][1] == pytest.approx(boot.high, abs=0.15 * spread + 1e-12)
        sd = d.std(ddof=1)
        needed = TTestPower().solve_power(
            effect_size=0.05 / sd, alpha=0.05, power=0.8, alternative="two-sided"
        )
        assert c["questions_needed"] == math.ceil(needed)
        detectable = TTestPower().solve_power(
            nobs=len(d), alpha=0.05, power=0.8, alternative="two-sided"
        )
        assert c["detectable_difference"] == pytest.approx(detectable * sd, rel=1e-6)
    ps = [c["p_randomization"] for c in doc["comparisons"]]
    holm = multipletests(ps, alpha=0.05, method="holm")[1]
    for c, adjusted in zip(doc["comparisons"], holm, strict=True):
        assert c["p_adjusted"] == pytest.approx(adjusted, abs=1e-12)
        assert c["significant"] == (c["p_adjusted"] < 0.05)
        assert_one_verdict(c, doc["n_queries"])
    # Demoting every relevant document in 30% of the queries is a real loss: it must show.
    recall = doc["comparisons"][0]
    assert recall["delta"] < 0 and recall["wins"] == 0 and recall["significant"]


def assert_one_verdict(c: dict, n: int) -> None:
    """docs/compare.md, "One verdict": Holm's p at alpha decides better and worse; short of it,
    the power analysis decides whether the questions were enough to see min_difference."""
    if c["significant"]:
        assert c["verdict"] == ("better" if c["delta"] > 0 else "worse"), c
    elif c["questions_needed"] is not None and n >= c["questions_needed"]:
        assert c["verdict"] == "no difference detected", c
    elif c["questions_needed"] is not None:
        assert c["verdict"] == "too few questions to tell", c
        assert c["verdict_needed"] == c["questions_needed"] > n, c


def test_a_copy_of_the_base_ties_everywhere(vaswani: dict[str, Path]) -> None:
    doc = compare(vaswani["qrels"], vaswani["bm25"], vaswani["same"], "--base", "bm25")
    for c in doc["comparisons"]:
        assert c["delta"] == 0 and c["ties"] == 93 and c["wins"] == c["losses"] == 0
        assert c["p_randomization"] == 1.0 and c["p_adjusted"] == 1.0
        assert c["p_ttest"] is None and c["questions_needed"] is None
        assert c["ci95"] == [0.0, 0.0] and not c["significant"]
        assert c["verdict"] == "no difference detected"


def test_the_base_by_file_name_by_path_and_by_default(vaswani: dict[str, Path]) -> None:
    by_path = compare(vaswani["qrels"], vaswani["worse"], "--base", vaswani["bm25"])
    by_name = compare(vaswani["qrels"], vaswani["worse"], vaswani["bm25"], "--base", "bm25.trec")
    first = compare(vaswani["qrels"], vaswani["bm25"], vaswani["worse"])  # no corpus: the first
    assert by_path == by_name == first
    assert first["base"] == "bm25"
    swapped = compare(vaswani["qrels"], vaswani["bm25"], vaswani["worse"], "--base", "worse")
    assert [c["delta"] for c in swapped["comparisons"]] == [
        -c["delta"] for c in first["comparisons"]
    ]


def test_usage_errors_exit_2(vaswani: dict[str, Path]) -> None:
    here = vaswani["qrels"].parent
    unknown = qrels_lsp(
        "compare", vaswani["qrels"], vaswani["bm25"], vaswani["worse"], "--base", "x", cwd=here
    )
    assert unknown.returncode == 2 and "`x` names no run" in unknown.stderr
    assert "`bm25`" in unknown.stderr and "`worse`" in unknown.stderr
    alone = qrels_lsp("compare", vaswani["qrels"], vaswani["bm25"], cwd=here)
    assert alone.returncode == 2 and "needs two runs" in alone.stderr
    alpha = qrels_lsp("compare", vaswani["qrels"], vaswani["bm25"], "--alpha", "5", cwd=here)
    assert alpha.returncode == 2 and "--alpha" in alpha.stderr


def test_the_golden_sets_compare_to_and_the_baseline_on_the_demo(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(EXAMPLES, tmp_path / "demo")
    golden = tmp_path / "demo" / "support.qrels.yaml"
    default = compare(golden)  # a corpus: the BM25 baseline is the base
    assert default["base"] == "bm25 (built-in)"
    assert {c["run"] for c in default["comparisons"]} == {
        "bm25",
        "dense",
        "passages",
        "hybrid",
        "rrf",
    }
    text = golden.read_text(encoding="utf-8")
    golden.write_text(text.replace("queries:", "compare_to: dense\nqueries:", 1), encoding="utf-8")
    chosen = compare(golden)
    assert chosen["base"] == "dense"
    assert {c["run"] for c in chosen["comparisons"]} == {
        "bm25",
        "passages",
        "hybrid",
        "bm25 (built-in)",
        "rrf",
    }
    table = qrels_lsp("compare", golden, "--metrics", METRICS, cwd=golden.parent)
    assert table.returncode == 0 and "Compared with dense over" in table.stdout
    markdown = qrels_lsp("compare", golden, "--format", "markdown", cwd=golden.parent)
    assert (
        markdown.returncode == 0 and "| metric | verdict | base | run | delta |" in markdown.stdout
    )


def test_compare_to_from_a_qrels_table_and_from_the_settings(
    vaswani: dict[str, Path], tmp_path: Path
) -> None:
    folder = vaswani["qrels"].parent  # (paths in a [[qrels]] table: from the config's folder)
    table = (
        f'[[qrels]]\npath = "{vaswani["qrels"]}"\n'
        f'runs = ["{folder}/bm25.trec", "{folder}/worse.trec"]\ncompare_to = "worse"\n'
    )
    config = write(tmp_path / "table.toml", table)
    bound = compare(vaswani["qrels"], "--config", config)
    assert bound["base"] == "worse"
    assert {c["run"] for c in bound["comparisons"]} == {"bm25"}
    setting = write(tmp_path / "setting.toml", 'compare_to = "worse"\n')
    chosen = compare(vaswani["qrels"], vaswani["bm25"], vaswani["worse"], "--config", setting)
    assert chosen["base"] == "worse"
