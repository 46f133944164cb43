"""Benchmark presets (core/presets.py, docs/presets.md) on generated ArguAna-like data: the
queries are documents of the corpus, so a run retrieves each query's own document; BEIR's
evaluation drops those self-hits before scoring, and so does the preset, in every scoring path
(the command line, the editor's analysis, the API), numbers held to pytrec_eval."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
import pytrec_eval
from qrels_lsp import api
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.presets import PRESETS, choose, folder_preset
from test_cli import qrels_lsp, write

MEASURES = {
    "recall@1": "recall_1",
    "recall@10": "recall_10",
    "ndcg@10": "ndcg_cut_10",
    "mrr": "recip_rank",
    "map": "map",
}


def arguana_like(seed: int = 7) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """40 arguments, each a query and a document (``a<i>``), judged against its counter-argument
    (``c<i>``); a third of the judgments also judge the query's own id relevant, as a duplicate
    dataset's export may. The run ranks each query's own document first (it is the most similar
    text there is), then the counter-argument somewhere in its top 10."""
    rng = random.Random(seed)
    grades: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(40):
        qid = f"a{i}"
        grades[qid] = {f"c{i}": 1}
        if i % 3 == 0:
            grades[qid][qid] = 1  # the self-hit is judged: it inflates every measure
        others = [f"c{j}" for j in rng.sample(range(40), 12) if j != i][:9]
        ranked = [qid, *others]
        ranked.insert(rng.randint(1, len(ranked)), f"c{i}")
        run[qid] = {d: 100.0 - r for r, d in enumerate(ranked)}
    return grades, run


def pytrec(
    grades: dict[str, dict[str, int]], run: dict[str, dict[str, float]], level: int = 1
) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(
        grades, {"recall.1,10", "ndcg_cut.10", "recip_rank", "map"}, relevance_level=level
    )
    return evaluator.evaluate(run)  # type: ignore[no-any-return]


def without_self(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """What BEIR's EvaluateRetrieval.evaluate does with ignore_identical_ids=True."""
    return {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}


def assert_equals(doc: dict[str, object], expected: dict[str, dict[str, float]]) -> None:
    queries: dict[str, dict[str, float]] = doc["queries"]  # type: ignore[assignment]
    assert set(queries) == set(expected)
    for qid, values in queries.items():
        for ours, theirs in MEASURES.items():
            assert math.isclose(
                values[ours], expected[qid][theirs], rel_tol=1e-12, abs_tol=1e-12
            ), (qid, ours)


def dataset(
    root: Path, name: str
) -> tuple[Path, Path, dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """The data as a BEIR dataset folder ``name`` (qrels/test.tsv, queries, corpus) and a run."""
    grades, run = arguana_like()
    folder = root / name
    write(
        folder / "qrels/test.tsv",
        "query-id\tcorpus-id\tscore\n"
        + "".join(f"{q}\t{d}\t{g}\n" for q, ds in grades.items() for d, g in ds.items()),
    )
    write(
        folder / "queries.jsonl",
        "".join(json.dumps({"_id": q, "text": f"argument {q}"}) + "\n" for q in grades),
    )
    docs = [f"a{i}" for i in range(40)] + [f"c{i}" for i in range(40)]
    write(
        folder / "corpus.jsonl",
        "".join(json.dumps({"_id": d, "text": f"text of {d}"}) + "\n" for d in docs),
    )
    runs = write(
        root / f"{name}.trec",
        "".join(
            f"{q} Q0 {d} {r} {s!r} dense\n"
            for q, ds in run.items()
            for r, (d, s) in enumerate(ds.items(), 1)
        ),
    )
    return folder / "qrels/test.tsv", runs, grades, run


def score(*args: str | Path, cwd: Path) -> dict[str, object]:
    r = qrels_lsp("score", *args, "--format", "json", "--metrics", ",".join(MEASURES), cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["runs"][0]  # type: ignore[no-any-return]


def test_an_arguana_folder_drops_self_hits_as_beir_does(tmp_path: Path) -> None:
    qrels, run_file, grades, run = dataset(tmp_path, "arguana")
    plain_qrels, plain_run, _, _ = dataset(tmp_path, "debates")
    after = score(qrels.relative_to(tmp_path), run_file.name, cwd=tmp_path)
    before = score(plain_qrels.relative_to(tmp_path), plain_run.name, cwd=tmp_path)
    assert_equals(after, pytrec(grades, without_self(run)))
    assert_equals(before, pytrec(grades, run))
    # The judged self-hits inflated recall before; the others took the first place from the
    # counter-argument. After, neither: every query's recall@1 is its counter-argument's.
    means_before, means_after = before["mean"], after["mean"]
    assert means_before["recall@1"] > 0 and means_before["recall@1"] != means_after["recall@1"]  # type: ignore[index]
    inflated = [q for q in grades if q in grades[q]]
    recall_at_1 = [
        (before["queries"][q]["recall@1"], after["queries"][q]["recall@1"]) for q in inflated
    ]  # type: ignore[index]
    assert all(b == 0.5 and a <= 0.5 for b, a in recall_at_1)  # the own id was the hit at 1
    assert sum(a for _, a in recall_at_1) < sum(b for b, _ in recall_at_1)
    # The API: the file, and the same data in memory with the preset named
    got = api.evaluate(qrels, run_file, list(MEASURES))
    assert got.per_query == after["queries"] and got.mean == after["mean"]
    named = api.evaluate(grades, run, list(MEASURES), preset="arguana")
    assert named.per_query == after["queries"]
    assert api.evaluate(grades, run, list(MEASURES)).per_query == before["queries"]


def test_the_preset_is_said_and_can_be_refused(tmp_path: Path) -> None:
    qrels, run_file, grades, run = dataset(tmp_path, "arguana")
    r = qrels_lsp("check", qrels.relative_to(tmp_path), "--format", "json", cwd=tmp_path)
    said = [f["message"] for f in json.loads(r.stdout)["findings"] if f["code"] == "QR140"]
    assert len(said) == 1 and "BEIR ArguAna" in said[0] and "`arguana`" in said[0]
    write(
        tmp_path / "qrels-lsp.toml", '[[qrels]]\npath = "arguana/qrels/test.tsv"\npreset = "none"\n'
    )
    plain = score(qrels.relative_to(tmp_path), run_file.name, cwd=tmp_path)
    assert_equals(plain, pytrec(grades, run))
    r = qrels_lsp("check", qrels.relative_to(tmp_path), "--format", "json", cwd=tmp_path)
    assert not [f for f in json.loads(r.stdout)["findings"] if f["code"] == "QR140"]


def test_a_golden_sets_preset_key_its_differences_and_the_runs_self_hits(tmp_path: Path) -> None:
    grades, run = arguana_like()
    body = "".join(
        f"  {q}:\n    relevant: {{{', '.join(f'{d}: {g}' for d, g in ds.items())}}}\n"
        for q, ds in grades.items()
    )
    write(
        tmp_path / "g.qrels.yaml",
        f"judgments: exhaustive\npreset: arguana\nk: 5\nruns: [dense.trec]\nqueries:\n{body}",
    )
    write(
        tmp_path / "dense.trec",
        "".join(
            f"{q} Q0 {d} {r} {s!r} dense\n"
            for q, ds in run.items()
            for r, (d, s) in enumerate(ds.items(), 1)
        ),
    )
    assert_equals(
        score("g.qrels.yaml", "dense.trec", cwd=tmp_path), pytrec(grades, without_self(run))
    )
    found = {
        f["code"]: f
        for f in json.loads(
            qrels_lsp(
                "check", "g.qrels.yaml", "dense.trec", "--format", "json", cwd=tmp_path
            ).stdout
        )["findings"]
    }
    assert (
        found["QR140"]["line"] == 3
        and "differs from BEIR ArguAna's 10" in found["QR140"]["message"]
    )
    assert found["QR140"]["fixes"] == ["Use BEIR ArguAna's k: 10"]
    assert (
        found["QR142"]["path"] == "dense.trec"
        and "40 queries retrieve" in found["QR142"]["message"]
    )
    write(tmp_path / "g.qrels.yaml", f"preset: arguanna\nqueries:\n{body}")
    found = {
        f["code"]: f
        for f in json.loads(
            qrels_lsp("check", "g.qrels.yaml", "--format", "json", cwd=tmp_path).stdout
        )["findings"]
    }
    assert found["QR141"]["fixes"] == ["Use `arguana`"]


def test_trec_dl_counts_grade_2_as_relevant(tmp_path: Path) -> None:
    grades = {"q1": {"d1": 1, "d2": 2, "d3": 3, "d4": 0}, "q2": {"d5": 1, "d6": 2}}
    run = {"q1": {"d1": 4.0, "d2": 3.0, "d9": 2.0, "d3": 1.0}, "q2": {"d5": 2.0, "d6": 1.0}}
    body = "".join(
        f"  {q}:\n    relevant: {{{', '.join(f'{d}: {g}' for d, g in ds.items())}}}\n"
        for q, ds in grades.items()
    )
    write(
        tmp_path / "dl19" / "g.qrels.yaml",
        f"judgments: pooled\npreset: trec-dl-2019\nqueries:\n{body}",
    )
    write(tmp_path / "run.json", json.dumps(run))
    got = score("dl19/g.qrels.yaml", "run.json", cwd=tmp_path)
    assert_equals(got, pytrec(grades, run, level=2))
    assert (
        got["queries"] != score("dl19/g.qrels.yaml", "run.json", "-l", "1", cwd=tmp_path)["queries"]
    )


def test_folder_names_and_choices() -> None:
    assert folder_preset(Path("/data/beir/quora/qrels/dev.tsv")) == (PRESETS["quora"], "quora")
    assert folder_preset(Path("/data/ArguAna/qrels/test.parquet")) == (
        PRESETS["arguana"],
        "ArguAna",
    )
    assert folder_preset(Path("/data/scifact/qrels/test.tsv")) is None
    path = Path("/x/arguana/qrels/test.tsv")
    assert choose(None, None, None, path, by_folder=False) is None  # a golden set names its own
    chosen = choose(None, "quora", "msmarco", path, by_folder=True)
    assert chosen is not None and (chosen.preset.name, chosen.origin) == ("quora", "table")
    assert choose(None, "none", None, path, by_folder=True) is None
    assert parse_golden("preset: quora\nqueries: {}\n").preset is not None


@pytest.mark.parametrize("value", ['"arguanna"', "3"])
def test_a_bad_configured_preset_is_reported(tmp_path: Path, value: str) -> None:
    write(tmp_path / "qrels-lsp.toml", f"preset = {value}\n")
    write(
        tmp_path / "g.qrels.yaml",
        "judgments: exhaustive\nqueries:\n  q:\n    question: x\n    relevant: [d]\n",
    )
    r = qrels_lsp("check", "g.qrels.yaml", "--format", "json", cwd=tmp_path)
    codes = [f["code"] for f in json.loads(r.stdout)["findings"]]
    assert "QR402" in codes or "QR401" in codes
