"""`qrels-lsp pool` and `qrels-lsp score --bounds`, run for real on files written to disk; the
queue is checked against a pooling written out here, the bounds against pytrec_eval on qrels with
the unjudged documents added."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import pytrec_eval
import yaml
from qrels_lsp.core.formats.golden import parse_golden
from test_cli import qrels_lsp, qrels_lsp_many, write

DOCS = [f"d{i:02d}" for i in range(30)]


def golden(rng: random.Random, queries: int = 6) -> tuple[str, dict[str, dict[str, int]]]:
    grades = {
        f"q{q}": {d: rng.choice([0, 1, 1, 2]) for d in rng.sample(DOCS, 3)} for q in range(queries)
    }
    lines = ["k: 5", "runs: [runs/*.trec]", "queries:"]
    for qid, judged in grades.items():
        inner = ", ".join(f"{d}: {g}" for d, g in judged.items())
        lines += [f"  {qid}:", f"    question: question {qid}", f"    relevant: {{{inner}}}"]
    return "\n".join(lines) + "\n", grades


def trec_run(
    rng: random.Random, name: str, grades: dict[str, dict[str, int]]
) -> tuple[str, dict[str, list[str]]]:
    """A run with distinct scores, so its order is plain; and that order."""
    ranked = {q: rng.sample(DOCS, rng.randint(3, 12)) for q in grades if rng.random() < 0.9}
    lines = [
        f"{q} Q0 {d} {i} {100 - i} {name}"
        for q, ids in ranked.items()
        for i, d in enumerate(ids, start=1)
    ]
    return "\n".join(lines) + "\n", ranked


def project(
    tmp_path: Path, seed: int
) -> tuple[Path, dict[str, dict[str, int]], dict[str, dict[str, list[str]]]]:
    rng = random.Random(seed)
    text, grades = golden(rng)
    path = write(tmp_path / "g.qrels.yaml", text)
    runs = {}
    for name in ("bm25", "dense", "splade"):
        run_text, runs[name] = trec_run(rng, name, grades)
        write(tmp_path / "runs" / f"{name}.trec", run_text)
    return path, grades, runs


def expected_queue(
    grades: dict[str, dict[str, int]], runs: dict[str, dict[str, list[str]]], depth: int
) -> list[dict[str, object]]:
    """Depth-k pooling as COMPARE.md says it, written out plainly."""
    pairs: dict[tuple[str, str], dict[str, object]] = {}
    for name in sorted(runs):  # the golden set's runs: `runs/*.trec`, in path order
        for qid, ids in runs[name].items():
            for rank, doc in enumerate(ids[:depth], start=1):
                if doc in grades[qid]:
                    continue
                entry = pairs.setdefault(
                    (qid, doc), {"query": qid, "doc": doc, "runs": [], "best_rank": rank}
                )
                entry["runs"].append(name)  # type: ignore[attr-defined]
                entry["best_rank"] = min(entry["best_rank"], rank)  # type: ignore[type-var]
    return sorted(
        pairs.values(), key=lambda e: (-len(e["runs"]), e["best_rank"], e["query"], e["doc"])
    )  # type: ignore[arg-type, operator]


@pytest.mark.parametrize("seed", [1, 2])
def test_pool_json_is_the_queue_in_order(tmp_path: Path, seed: int) -> None:
    path, grades, runs = project(tmp_path, seed)
    default, deep, limited, named = qrels_lsp_many(
        [
            ["pool", path, "--format", "json"],
            ["pool", path, "--format", "json", "--depth", "3"],
            ["pool", path, "--format", "json", "--limit", "4"],
            ["pool", path, "dense", tmp_path / "runs" / "bm25.trec", "--format", "json"],
        ],
        cwd=tmp_path,
    )
    for r in (default, deep, limited, named):
        assert r.returncode == 0, r.stderr
    assert json.loads(default.stdout) == expected_queue(grades, runs, 10)  # pool_depth: 10
    assert json.loads(deep.stdout) == expected_queue(grades, runs, 3)
    assert json.loads(limited.stdout) == expected_queue(grades, runs, 10)[:4]
    two = {"bm25": runs["bm25"], "dense": runs["dense"]}
    got = json.loads(named.stdout)
    assert sorted(map(json.dumps, got)) == sorted(
        map(json.dumps, _renamed(expected_queue(grades, two, 10), ["dense", "bm25"]))
    )


def _renamed(queue: list[dict[str, object]], order: list[str]) -> list[dict[str, object]]:
    """The queue with each pair's runs in the order the runs were named."""
    return [{**e, "runs": [r for r in order if r in e["runs"]]} for e in queue]  # type: ignore[operator]


def test_pool_yaml_pastes_into_the_golden_set(tmp_path: Path) -> None:
    path, grades, runs = project(tmp_path, 3)
    r = qrels_lsp("pool", path, "--format", "yaml", "--limit", "5", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    pasted = yaml.safe_load(r.stdout)["queries"]
    queue = expected_queue(grades, runs, 10)[:5]
    assert {(q, d) for q, e in pasted.items() for d in e["relevant"]} == {
        (e["query"], e["doc"]) for e in queue
    }
    assert all(
        g is None for e in pasted.values() for g in e["relevant"].values()
    )  # left to the judge
    # The judge writes the grades and adds the entries: those pairs leave the queue.
    text = path.read_text()
    for qid, entry in pasted.items():
        old = "    relevant: {" + ", ".join(f"{d}: {g}" for d, g in grades[qid].items()) + "}"
        new = (
            "    relevant: {"
            + ", ".join(
                [f"{d}: {g}" for d, g in grades[qid].items()]
                + [f"{d}: 0" for d in entry["relevant"]]
            )
            + "}"
        )
        assert old in text
        text = text.replace(old, new)
    assert not parse_golden(text).findings
    path.write_text(text)
    after = json.loads(qrels_lsp("pool", path, "--format", "json", cwd=tmp_path).stdout)
    judged = {(q, d) for q, e in pasted.items() for d in e["relevant"]}
    assert not judged & {(e["query"], e["doc"]) for e in after}
    assert len(after) == len(expected_queue(grades, runs, 10)) - 5


def test_pool_table_and_usage(tmp_path: Path) -> None:
    path, grades, runs = project(tmp_path, 4)
    table, bad_depth, unknown = qrels_lsp_many(
        [
            ["pool", path, "--limit", "3"],
            ["pool", path, "--depth", "0"],
            ["pool", path, "nosuchrun"],
        ],
        cwd=tmp_path,
    )
    assert table.returncode == 0, table.stderr
    total = len(expected_queue(grades, runs, 10))
    assert (
        table.stdout.splitlines()[-1]
        == f"{total} unjudged in the top 10 of bm25, dense, splade; the first 3."
    )
    assert len(table.stdout.splitlines()) == 5  # header, 3 pairs, the summary
    assert bad_depth.returncode == 2 and "--depth" in bad_depth.stderr
    assert unknown.returncode == 2 and "its runs: bm25, dense, splade" in unknown.stderr


def test_pool_output_cannot_forge_workflow_commands(tmp_path: Path) -> None:
    write(
        tmp_path / "g.qrels.yaml",
        'runs: [r.trec]\nqueries:\n  "::add-mask::q":\n    question: x\n    relevant: [a]\n',
    )
    write(
        tmp_path / "r.trec",
        "::add-mask::q Q0 ::error::x 1 2 t\n::add-mask::q Q0 ##[group]y 2 1 t\n",
    )
    for fmt in ("table", "yaml", "json"):
        r = qrels_lsp("pool", tmp_path / "g.qrels.yaml", "--format", fmt, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        for line in r.stdout.splitlines():
            assert not line.lstrip().startswith("::") and "##[" not in line, (fmt, line)
    pasted = yaml.safe_load(
        qrels_lsp("pool", tmp_path / "g.qrels.yaml", "--format", "yaml", cwd=tmp_path).stdout
    )
    assert set(pasted["queries"]["::add-mask::q"]["relevant"]) == {"::error::x", "##[group]y"}


# -- score --bounds ------------------------------------------------------------------------------


def test_score_bounds_equal_pytrec_eval_on_the_qrels_with_the_unjudged_added(
    tmp_path: Path,
) -> None:
    path, grades, runs = project(tmp_path, 5)
    r = qrels_lsp("score", path, "--bounds", "--format", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = {run["name"]: run for run in json.loads(r.stdout)["runs"]}
    for name, ranked in runs.items():
        doc = out[name]
        assert set(doc["upper"]) == {
            "recall@5",
            "precision@5",
            "mrr",
            "ndcg@5",
            "map",
            "hit_rate@5",
        }
        extended = {
            q: {**g, **{d: 1 for d in ranked.get(q, [])[:5] if d not in g}}
            for q, g in grades.items()
        }
        scored = {q: {d: float(100 - i) for i, d in enumerate(ids)} for q, ids in ranked.items()}
        expected = pytrec_eval.RelevanceEvaluator(extended, {"recall.5", "P.5"}).evaluate(scored)
        for qid in grades:
            upper = doc["queries"][qid]["upper"]
            if qid in expected:
                assert upper["recall@5"] == pytest.approx(expected[qid]["recall_5"], abs=1e-12)
                assert upper["precision@5"] == pytest.approx(expected[qid]["P_5"], abs=1e-12)
            else:  # missing from the run: nothing unjudged retrieved
                assert upper["recall@5"] == doc["queries"][qid]["recall@5"] == 0.0
        mean = sum(doc["queries"][q]["upper"]["recall@5"] for q in grades) / len(grades)
        assert doc["upper"]["recall@5"] == pytest.approx(mean, abs=1e-12)
    plain = json.loads(qrels_lsp("score", path, "--format", "json", cwd=tmp_path).stdout)["runs"][0]
    assert "upper" not in plain and "upper" not in next(iter(plain["queries"].values()))


def test_score_bounds_in_tables_and_not_in_trec_format(tmp_path: Path) -> None:
    path, _grades, _runs = project(tmp_path, 6)
    table, summary, trec = qrels_lsp_many(
        [
            ["score", path, "dense", "--bounds"],
            ["score", path, "--bounds", "--summary", "--format", "markdown"],
            ["score", path, "--bounds", "--format", "trec"],
        ],
        cwd=tmp_path,
    )
    assert table.returncode == 0, table.stderr
    rows = [line.split() for line in table.stdout.splitlines()]
    mean = next(r for r in rows if r and r[0] == "mean")
    up = next(r for r in rows if r[:2] == ["up", "to"])
    assert len(up) == len(mean) and up[-1] == "-"  # judged@5 has no bound
    assert summary.returncode == 0, summary.stderr
    assert sum(line.startswith("|   up to |") for line in summary.stdout.splitlines()) == 3
    assert trec.returncode == 2 and "--bounds" in trec.stderr


def test_score_trec_prints_unj_as_trec_eval_computes_it(tmp_path: Path) -> None:
    """trec_eval prints unj_k = unjudged / k: one unjudged document in the top 160 is 1/160,
    which %6.4f prints 0.0063, where 1 - judged@160 (1 - (1 - 1/160)) would print 0.0062."""
    write(
        tmp_path / "q.qrels", "".join(f"q1 0 d{i} {i % 2}\n" for i in range(1, 160)) + "q2 0 e1 1\n"
    )
    run = "".join(f"q1 Q0 d{i} {i} {1000 - i} t\n" for i in range(1, 160)) + "q1 Q0 x 160 1 t\n"
    write(tmp_path / "r.trec", run + "q2 Q0 e1 1 1 t\n")
    r = qrels_lsp(
        "score",
        tmp_path / "q.qrels",
        tmp_path / "r.trec",
        "--metrics",
        "judged@160",
        "--format",
        "trec",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    rows = {(line.split()[0], line.split()[1]): line.split()[2] for line in r.stdout.splitlines()}
    assert rows[("unj_160", "q1")] == f"{1 / 160:6.4f}".strip() == "0.0063"
    assert rows[("unj_160", "q2")] == "0.0000"
    assert rows[("unj_160", "all")] == f"{(1 / 160 + 0.0) / 2:6.4f}".strip()
