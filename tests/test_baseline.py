"""The BM25 baseline run: rankings from rank_bm25's own get_scores, numbers from pytrec_eval."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from conftest import EXAMPLES, TEST_DATA
from lsp.oracle import bm25_run
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.formats.corpus import Corpus
from qrels_lsp.core.model import Qrels
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project
from qrels_lsp.core.search.baseline import BASELINE_NAME

ANYWHERE = Boundary.everywhere()  # these tests are not about the workspace boundary

VASWANI = TEST_DATA / "vaswani"
MEASURES = {"recall@10": "recall_10", "mrr": "recip_rank", "ndcg@10": "ndcg_cut_10", "map": "map"}


@pytest.fixture(scope="module")
def vaswani_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vaswani")
    (root / "qrels-lsp.toml").write_text(
        'k = 10\nmetrics = ["recall@10", "mrr", "ndcg@10", "map"]\n'
        f'[[qrels]]\npath = "{VASWANI / "qrels"}"\ntopics = "{VASWANI / "query-text.trec"}"\n'
        f'corpus = "{VASWANI / "corpus"}"\n',
        encoding="utf-8",
    )
    return root


@pytest.mark.slow
def test_vaswani_baseline_equals_rank_bm25_and_pytrec_eval(
    vaswani_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = Project(load_config(vaswani_project), build_indexes=True, boundary=ANYWHERE)
    kind, _text, model, _error = project.load(VASWANI / "qrels")
    assert kind == "trec-qrels" and isinstance(model, Qrels)
    ctx = project.context(VASWANI / "qrels", kind, model)
    assert isinstance(ctx.corpus, Corpus) and len(ctx.corpus) == 11429
    base = project.derived.baseline(ctx, build=True)
    assert base is not None and base.name == BASELINE_NAME
    questions = {qid: q.question or "" for qid, q in model.queries.items()}
    assert all(questions.values())  # every topic got its text from the topics file
    oracle = bm25_run(ctx.corpus, questions, 100)
    for qid, scored in oracle.items():
        assert set(base.rankings[qid]) == set(scored), qid
    evaluator = pytrec_eval.RelevanceEvaluator(model.grades(), set(MEASURES.values()))
    expected = evaluator.evaluate(oracle)
    differing = []
    for qid, values in expected.items():
        got = base.evaluation.per_query[qid]
        if any(abs(got[ours] - values[theirs]) > 1e-12 for ours, theirs in MEASURES.items()):
            differing.append(qid)
    # trec_eval 9 reads scores as float32: only queries whose top 100 holds scores that tie in
    # float32 but not in float64 may be ordered differently there.
    for qid in differing:
        scores = list(oracle[qid].values())
        as32 = np.array(scores, dtype=np.float32)
        assert len(set(as32.tolist())) < len(set(scores)), qid
    assert len(differing) <= 3, differing


def run_cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def test_exported_baseline_scores_as_the_baseline(tmp_path: Path) -> None:
    """`qrels-lsp bm25` writes the run whose numbers `score --baseline bm25` shows."""
    shutil.copytree(EXAMPLES, tmp_path, dirs_exist_ok=True)  # the workspace: the current folder
    golden = tmp_path / "support.qrels.yaml"
    out = tmp_path / "bm25.trec"
    r = run_cli("bm25", golden, "-o", out, "--depth", "100", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    shown = run_cli("score", golden, "--baseline", "bm25", "--format", "json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    runs = {run["name"]: run for run in json.loads(shown.stdout)["runs"]}
    baseline = runs[BASELINE_NAME]
    exported = run_cli("score", golden, out, "--format", "json", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    [as_file] = json.loads(exported.stdout)["runs"]
    assert as_file["queries"] == baseline["queries"]
    assert as_file["mean"] == baseline["mean"]
    # And pytrec_eval agrees on the exported file.
    run: dict[str, dict[str, float]] = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        qid, _q0, doc, _rank, score, _tag = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    import yaml

    data = yaml.safe_load(golden.read_text(encoding="utf-8"))
    qrels = {}
    for qid, entry in data["queries"].items():
        rel = entry.get("relevant") or []
        grades = (
            dict.fromkeys(rel, 1)
            if isinstance(rel, list)
            else {d: g for d, g in rel.items() if isinstance(g, int)}
        )
        if grades and not entry.get("unanswerable"):
            qrels[qid] = grades
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recall.5", "recip_rank"}).evaluate(run)
    for qid, values in expected.items():
        assert baseline["queries"][qid]["recall@5"] == values["recall_5"], qid
        assert baseline["queries"][qid]["mrr"] == values["recip_rank"], qid


def test_baseline_needs_a_corpus(tmp_path: Path) -> None:
    golden = tmp_path / "g.qrels.yaml"
    golden.write_text("queries:\n  q:\n    question: hi\n    relevant: [a]\n", encoding="utf-8")
    r = run_cli("score", golden, "--baseline", "bm25", cwd=tmp_path)
    assert r.returncode == 2 and "needs a corpus" in r.stderr
    r = run_cli("bm25", golden, "-o", tmp_path / "x.trec", cwd=tmp_path)
    assert r.returncode == 2 and "no corpus" in r.stderr


def test_baseline_rankings_of_edited_questions_do_not_pile_up() -> None:
    """Every keystroke in a question is a new question to rank; the old ones must not be kept."""
    from qrels_lsp.core.formats.corpus import load_corpus
    from qrels_lsp.core.formats.golden import parse_golden
    from qrels_lsp.core.search.baseline import BaselineCache
    from qrels_lsp.core.search.bm25 import build_index

    corpus = load_corpus(EXAMPLES / "corpus")
    assert isinstance(corpus, Corpus)
    index = build_index(corpus)
    golden = parse_golden((EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8"))
    cache = BaselineCache()
    query = next(q for q in golden.queries.values() if q.question)
    typed = ""
    for ch in "how do i reset the hub to factory settings when the app is stuck " * 4:
        typed += ch
        query.question = typed
        rankings, _ = cache.rankings(golden, index)
        assert rankings[query.qid] == cache.rankings(golden, index)[0][query.qid]
    assert len(cache._rankings) <= 2 * len(golden.queries) + 64


def test_exported_baseline_keeps_invalid_utf8_query_ids(tmp_path: Path) -> None:
    """TREC qrels may hold query ids that are not UTF-8 (trec_eval reads bytes): the exported
    run names them with the same bytes, so trec_eval matches it with the qrels."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.txt").write_text("reset the router\n")
    (tmp_path / "corpus" / "b.txt").write_text("pair the phone\n")
    (tmp_path / "g.qrels").write_bytes(b"q\xff 0 a.txt 1\n")
    (tmp_path / "topics.tsv").write_bytes(b"q\xff\treset router\n")
    (tmp_path / "qrels-lsp.toml").write_text(
        '[[qrels]]\npath = "g.qrels"\ncorpus = "corpus"\ntopics = "topics.tsv"\n'
    )
    r = run_cli("bm25", "g.qrels", "-o", "out.trec", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.trec").read_bytes().startswith(b"q\xff Q0 a.txt 1 ")
