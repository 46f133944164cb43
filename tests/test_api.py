"""The Python API (``qrels_lsp.api``, docs/api.md) against the real command line's JSON and
against pytrec_eval, for every kind of input it takes, on the embedded example and tests/data."""

from __future__ import annotations

import functools
import json
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ir_measures
import pandas as pd
import pytest
import pytrec_eval
import qrels_lsp
import ranx
from conftest import EXAMPLES, TEST_DATA
from qrels_lsp import api
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels
from qrels_lsp.core.formats.trec_run import parse_trec_run
from test_cli import qrels_lsp as run_cli

GIVEN = ["recall@10", "nDCG@10", "P@5", "AP", "RR", "R@100"]  # as a notebook writes them
CANONICAL = ["recall@10", "ndcg@10", "precision@5", "map", "mrr", "recall@100"]
PYTREC = ["recall_10", "ndcg_cut_10", "P_5", "map", "recip_rank", "recall_100"]

PAIRS = [  # (qrels, run) in tests/data
    ("trec_eval/qrels.test", "trec_eval/results.test"),
    ("trec_eval/qrels.rel_level", "trec_eval/results.test"),
    ("ir_measures/compat.qrels", "ir_measures/compat.run"),
    ("vaswani/qrels", "vaswani/bm25_top100.run"),
]


def cli_json(*args: str | Path, cwd: Path, exit_code: int = 0) -> Any:
    r = run_cli(*args, "--format", "json", cwd=cwd)
    assert r.returncode == exit_code, r.stderr
    return json.loads(r.stdout)


# -- the command line's numbers ------------------------------------------------------------------

EXAMPLE_RUNS = [
    "runs/bm25.run.yaml",
    "runs/dense.run.yaml",
    "runs/hybrid.trec",
    "runs/passages.run.yaml",
]


@functools.cache
def example_scores() -> Any:
    """`score --format json` of the example's runs (and its fused run), once per process."""
    return cli_json(
        "score", "support.qrels.yaml", *EXAMPLE_RUNS, "--metrics", ",".join(GIVEN), cwd=EXAMPLES
    )


def test_evaluate_equals_score_json_on_the_example() -> None:
    runs = EXAMPLE_RUNS
    doc = example_scores()
    assert [r["name"] for r in doc["runs"]] == ["bm25", "dense", "hybrid", "passages", "rrf"]
    for path, expected in zip(runs, doc["runs"][:4], strict=True):
        got = api.evaluate(EXAMPLES / "support.qrels.yaml", EXAMPLES / path, metrics=GIVEN)
        assert got.run == expected["name"] and got.k == expected["k"] == 5
        assert list(got.mean) == GIVEN  # keys as given, in the order given
        assert [got.mean[g] for g in GIVEN] == [expected["mean"][c] for c in CANONICAL]
        assert got.per_query == {
            q: dict(zip(GIVEN, (v[c] for c in CANONICAL), strict=True))
            for q, v in expected["queries"].items()
        }
        for key in ("n_queries", "missing", "unknown", "unanswerable"):
            assert getattr(got, key) == expected[key], key
    assert doc["runs"][0]["unanswerable"]  # the example has unanswerable questions, left out


def test_evaluate_defaults_are_the_commands() -> None:
    """No metrics and no k: the golden set's k and the project's default metrics, named as
    `score` names them."""
    (expected,) = cli_json("score", "support.qrels.yaml", "runs/dense.run.yaml", cwd=EXAMPLES)[
        "runs"
    ]
    got = api.evaluate(EXAMPLES / "support.qrels.yaml", EXAMPLES / "runs/dense.run.yaml")
    assert got.mean == expected["mean"] and got.per_query == expected["queries"]


@pytest.mark.parametrize(("qrels", "run"), PAIRS)
def test_evaluate_equals_score_json_on_test_data(qrels: str, run: str) -> None:
    (expected,) = cli_json(
        "score",
        qrels,
        run,
        "--metrics",
        ",".join(GIVEN),
        "-l",
        "2" if "rel_level" in qrels else "1",
        cwd=TEST_DATA,
    )["runs"]
    level = 2 if "rel_level" in qrels else None
    got = api.evaluate(TEST_DATA / qrels, TEST_DATA / run, GIVEN, relevance_level=level)
    assert [got.mean[g] for g in GIVEN] == [expected["mean"][c] for c in CANONICAL]
    assert {q: list(v.values()) for q, v in got.per_query.items()} == {
        q: [v[c] for c in CANONICAL] for q, v in expected["queries"].items()
    }


def test_compare_equals_compare_json() -> None:
    runs = ["trec_eval/results.test", "trec_eval/results.trunc"]
    doc = cli_json(
        "compare", "trec_eval/qrels.test", *runs, "--metrics", "nDCG@10,P@5", cwd=TEST_DATA
    )
    got = api.compare(
        TEST_DATA / "trec_eval/qrels.test",
        [TEST_DATA / r for r in runs],
        metrics=["nDCG@10", "P@5"],
    )
    assert (got.base, got.n_queries, got.alpha) == (doc["base"], doc["n_queries"], doc["alpha"])
    assert len(got.items) == len(doc["comparisons"]) == 2
    for mine, theirs in zip(got.items, doc["comparisons"], strict=True):
        assert mine.metric == {"ndcg@10": "nDCG@10", "precision@5": "P@5"}[theirs["metric"]]
        for key in ("run", "base_mean", "run_mean", "delta", "p_randomization", "p_ttest",
                    "p_adjusted", "significant", "verdict", "wins", "ties", "losses",
                    "questions_needed", "detectable_difference"):  # fmt: skip
            assert getattr(mine, key) == theirs[key], key
        assert list(mine.ci95 or ()) == (theirs["ci95"] or [])
    assert list(got.evaluations) == ["results.test", "results.trunc"]
    frame = got.to_pandas()
    assert list(frame["metric"]) == ["nDCG@10", "P@5"]


FUSED = [  # (folder, runs, method, options)
    (EXAMPLES, ["runs/bm25.run.yaml", "runs/dense.run.yaml", "runs/hybrid.trec"], "rrf", {}),
    (TEST_DATA, ["trec_eval/results.test", "trec_eval/results.trunc"], "combmnz", {"norm": "zmuv"}),
    (
        TEST_DATA,
        ["trec_eval/results.test", "ir_measures/compat.run"],
        "wsum",
        {"weights": (0.7, 0.3)},
    ),
]


@pytest.mark.parametrize(("folder", "runs", "method", "options"), FUSED)
def test_fuse_equals_the_commands_file(
    tmp_path: Path, folder: Path, runs: list[str], method: str, options: dict[str, Any]
) -> None:
    out = tmp_path / f"{method}.trec"
    extra = [f"--{key}" for key in options] + [
        ",".join(map(str, v)) if isinstance(v, tuple) else v for v in options.values()
    ]
    extra = [
        x for pair in zip(extra[: len(options)], extra[len(options) :], strict=True) for x in pair
    ]
    r = run_cli("fuse", *runs, "--method", method, *extra, "-o", out, "--allow-outside", cwd=folder)
    assert r.returncode == 0, r.stderr
    fused = api.fuse([folder / p for p in runs], method, **options)
    assert fused.to_trec() == out.read_text(encoding="utf-8")
    # the fused run is a run: it scores as the file it equals
    golden = (
        EXAMPLES / "support.qrels.yaml"
        if folder == EXAMPLES
        else TEST_DATA / "trec_eval/qrels.test"
    )
    assert (
        api.evaluate(golden, fused, ["nDCG@10"]).per_query
        == api.evaluate(golden, out, ["nDCG@10"]).per_query
    )


def test_pool_equals_pool_json() -> None:
    runs = ["runs/bm25.run.yaml", "runs/dense.run.yaml"]
    doc = cli_json("pool", "support.qrels.yaml", *runs, "--depth", "5", cwd=EXAMPLES)
    got = api.pool(EXAMPLES / "support.qrels.yaml", [EXAMPLES / r for r in runs], depth=5)
    assert [vars_of(p) for p in got.pairs] == doc
    assert got.runs == ["bm25", "dense"] and got.depth == 5


def test_check_equals_check_json() -> None:
    doc = cli_json("check", "support.qrels.yaml", "runs", cwd=EXAMPLES, exit_code=1)
    got = api.check(EXAMPLES / "support.qrels.yaml", EXAMPLES / "runs")
    assert got.findings and got.errors
    rows = [{**vars_of(f), "path": str(Path(f.path).relative_to(EXAMPLES))} for f in got.findings]
    assert rows == doc["findings"]
    assert {str(Path(p).relative_to(EXAMPLES)): k for p, k in got.files.items()} == {
        f["path"]: f["format"] for f in doc["files"]
    }


def vars_of(item: object) -> dict[str, object]:
    return {name: getattr(item, name) for name in item.__slots__}  # type: ignore[attr-defined]


# -- pytrec_eval, for every kind of input --------------------------------------------------------


def read_pair(
    qrels: str, run: str
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    grades = parse_trec_qrels((TEST_DATA / qrels).read_text(encoding="utf-8")).grades()
    model = parse_trec_run((TEST_DATA / run).read_text(encoding="utf-8"))
    scores = {
        q: {d.doc_id: float(d.score or 0.0) for d in r.docs} for q, r in model.rankings.items()
    }
    return grades, scores


def ranked_lists(scores: dict[str, dict[str, float]]) -> dict[str, list[str]]:
    """Each query's documents in trec_eval's order: a ranked list that must score the same."""
    return {
        q: sorted(docs, key=lambda d: (docs[d], d.encode()), reverse=True)
        for q, docs in scores.items()
    }


def qrels_frame(grades: dict[str, dict[str, int]]) -> pd.DataFrame:
    rows = [(q, d, g) for q, docs in grades.items() for d, g in docs.items()]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def run_frame(scores: dict[str, dict[str, float]]) -> pd.DataFrame:
    rows = [(q, d, s) for q, docs in scores.items() for d, s in docs.items()]
    return pd.DataFrame(rows, columns=["qid", "docno", "score"])


KINDS: dict[
    str,
    Callable[[str, str, dict[str, dict[str, int]], dict[str, dict[str, float]]], tuple[Any, Any]],
] = {
    "files": lambda q, r, g, s: (TEST_DATA / q, str(TEST_DATA / r)),
    "dicts": lambda q, r, g, s: (g, s),
    "ranked lists": lambda q, r, g, s: (g, ranked_lists(s)),
    "dataframes": lambda q, r, g, s: (qrels_frame(g), run_frame(s)),
    "ranx": lambda q, r, g, s: (ranx.Qrels(g), ranx.Run(s, name="ranx-run")),
    "ir_measures": lambda q, r, g, s: (
        list(ir_measures.read_trec_qrels(str(TEST_DATA / q))),
        list(ir_measures.read_trec_run(str(TEST_DATA / r))),
    ),
}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize(("qrels", "run"), PAIRS[::2] + PAIRS[3:])
def test_every_input_kind_equals_pytrec_eval(kind: str, qrels: str, run: str) -> None:
    grades, scores = read_pair(qrels, run)
    golden, ranked = KINDS[kind](qrels, run, grades, scores)
    got = api.evaluate(golden, ranked, GIVEN)
    evaluator = pytrec_eval.RelevanceEvaluator(
        grades, {"recall.10,100", "ndcg_cut.10", "P.5", "map", "recip_rank"}
    )
    expected = evaluator.evaluate({q: d for q, d in scores.items() if q in grades})
    for qid, values in got.per_query.items():
        want = expected.get(qid)
        if want is None:  # not in the run: 0, as docs/metrics.md says (pytrec_eval drops it)
            assert set(values.values()) == {0.0}
            continue
        for given, theirs in zip(GIVEN, PYTREC, strict=True):
            assert math.isclose(values[given], want[theirs], rel_tol=1e-12, abs_tol=1e-12), (
                qid,
                given,
            )
    for given, theirs in zip(GIVEN, PYTREC, strict=True):
        mean = sum(v[theirs] for v in expected.values()) / len(grades)
        assert math.isclose(got.mean[given], mean, rel_tol=1e-12, abs_tol=1e-15), given
    if kind == "ranx":
        assert got.run == "ranx-run"


def test_to_pandas() -> None:
    got = api.evaluate(
        EXAMPLES / "support.qrels.yaml", EXAMPLES / "runs/bm25.run.yaml", ["nDCG@10", "mrr"]
    )
    frame = got.to_pandas()
    assert list(frame.columns) == ["nDCG@10", "mrr"] and frame.index.name == "query"
    assert frame.loc["cant-login-app", "nDCG@10"] == got.per_query["cant-login-app"]["nDCG@10"]
    assert frame["mrr"].sum() / got.n_queries == pytest.approx(got.mean["mrr"], rel=1e-12)
    fused = api.fuse({"a": {"q": {"d1": 2.0, "d2": 1.0}}, "b": {"q": ["d2", "d3"]}})
    assert fused.to_pandas().values.tolist() == [
        ["q", d, i, s]
        for i, (d, s) in enumerate(zip(fused.rankings["q"], fused.scores["q"], strict=True), 1)
    ]


def test_in_memory_orders_and_refusals() -> None:
    # ties broken by document id descending, byte-wise (trec_eval's order): d9 before d10
    got = api.evaluate({"q": {"d10": 1}}, {"q": {"d10": 1.0, "d9": 1.0}}, ["mrr"])
    assert got.per_query["q"]["mrr"] == 0.5
    got = api.evaluate({"q": ["d10"]}, {"q": ["d10", "d9", "d10"]}, ["mrr", "recall@1"])
    assert got.per_query["q"] == {"mrr": 1.0, "recall@1": 1.0}  # a list keeps its order
    with pytest.raises(ValueError, match="not an integer"):
        api.evaluate({"q": {"d": 2.5}}, {"q": ["d"]})
    with pytest.raises(ValueError, match="NaN"):
        api.evaluate({"q": {"d": 1}}, {"q": {"d": float("nan")}})
    with pytest.raises(ValueError, match="unknown metric"):
        api.evaluate({"q": {"d": 1}}, {"q": ["d"]}, ["nope@3"])
    with pytest.raises(ValueError, match="two runs"):
        api.compare({"q": {"d": 1}}, {"a": {"q": ["d"]}})


# -- importing it ---------------------------------------------------------------------------------


def modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys; print('\\n'.join(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    return set(out.stdout.split())


def test_importing_the_api_loads_no_more_than_the_commands_start() -> None:
    bare = modules_after("")
    root = modules_after("import qrels_lsp")
    assert {m for m in root - bare if m.startswith("qrels_lsp")} == {"qrels_lsp"}
    cli = modules_after(
        "import qrels_lsp.cli as c\ntry:\n    c.main(['--help'])\nexcept SystemExit:\n    pass"
    )
    api_modules = modules_after("from qrels_lsp import evaluate")
    ours = {m for m in api_modules - cli if not m.startswith("qrels_lsp.api")}
    assert ours == set(), ours  # nothing the command line's start does not load already
    assert not any(
        m.split(".")[0] in ("pandas", "pyarrow", "ranx", "ir_measures") for m in api_modules
    )


def test_the_root_re_exports_the_api() -> None:
    assert qrels_lsp.evaluate is api.evaluate and "evaluate" in qrels_lsp.__all__
    with pytest.raises(AttributeError):
        _ = qrels_lsp.nothing_here  # type: ignore[attr-defined]


# -- the documentation's example -----------------------------------------------------------------


def test_the_notebook_example_of_docs_api_runs(tmp_path: Path) -> None:
    """docs/api.md's first Python block, run as written in a copy of the example (where its
    relative paths lead), with its printed lines checked against the command line's."""
    import shutil

    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text(encoding="utf-8")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) <= 10
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    r = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path / "examples",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    (expected,) = cli_json(
        "score",
        "support.qrels.yaml",
        "runs/dense.run.yaml",
        "--metrics",
        "recall@10,nDCG@10",
        cwd=tmp_path / "examples",
    )["runs"]
    assert f"{expected['mean']['ndcg@10']:.4f}" in r.stdout


def test_every_result_has_a_frame_and_a_missing_pandas_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    golden, runs = (
        EXAMPLES / "support.qrels.yaml",
        [EXAMPLES / "runs/bm25.run.yaml", EXAMPLES / "runs/dense.run.yaml"],
    )
    queue = api.pool(golden, runs)
    assert queue.to_pandas().to_dict("records")[0] == vars_of(queue.pairs[0])
    checked = api.check(golden)
    assert list(checked.to_pandas()["code"]) == [f.code for f in checked.findings]
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"qrels-lsp\[pandas\]"):
        queue.to_pandas()


RUN_KINDS: dict[str, Callable[[dict[str, list[str]]], Any]] = {
    "ranked lists": lambda ranked: ranked,
    "dicts of scores": lambda ranked: scored(ranked),
    "dataframe by score": lambda ranked: run_frame(scored(ranked)),
    "dataframe by rank": lambda ranked: pd.DataFrame(
        [(q, d, r) for q, ds in ranked.items() for r, d in enumerate(ds, 1)],
        columns=["query_id", "doc_id", "rank"],
    ),
    "ranx": lambda ranked: ranx.Run(scored(ranked)),
    "ir_measures": lambda ranked: [
        ir_measures.ScoredDoc(q, d, s) for q, ds in scored(ranked).items() for d, s in ds.items()
    ],
}


def scored(ranked: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """Strictly decreasing scores: any tool ranks them in the order given."""
    return {q: {d: float(len(ds) - i) for i, d in enumerate(ds)} for q, ds in ranked.items()}


@pytest.mark.parametrize("kind", list(RUN_KINDS))
def test_every_run_kind_equals_score_json_on_the_example(kind: str) -> None:
    """The example's golden set (its k, chunks rule, unanswerable questions) with each of its
    runs given in memory: the command's numbers for the run file, query for query."""
    from qrels_lsp.core.base.boundary import Boundary
    from qrels_lsp.core.project.config import Config
    from qrels_lsp.core.project.project import Project

    runs = EXAMPLE_RUNS
    doc = example_scores()
    project = Project(Config(), boundary=Boundary.of([EXAMPLES]))
    for path, expected in zip(runs, doc["runs"], strict=False):
        # the ids as the file ranks them
        ranked = project.runs.read_run(EXAMPLES / path, fast=True)[1]
        got = api.evaluate(EXAMPLES / "support.qrels.yaml", RUN_KINDS[kind](ranked), GIVEN)
        assert got.per_query == {
            q: dict(zip(GIVEN, (v[c] for c in CANONICAL), strict=True))
            for q, v in expected["queries"].items()
        }, path
        assert (got.missing, got.unanswerable) == (expected["missing"], expected["unanswerable"])
