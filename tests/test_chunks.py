"""Runs of chunks scored against documents (docs/compare.md, "Runs of chunks against
documents"): the scores qrels-lsp gives a run of chunks under a rule (`score --chunks`,
`--chunk-pattern`, a golden set's `chunks:`, a `[[qrels]]` table's `chunks`) equal pytrec_eval's
on the same run mapped to documents by the few lines of :func:`to_documents` below, written here
from the contract and sharing nothing with the code under test. Real data: TREC RAG 2024's
MS MARCO v2.1 segments (`doc#segment`) of trec_eval's test files; generated runs of chunks made
from the Vaswani BM25 run; the demo's run of passages.

Also the rule's own edges (ids it does not split, a pattern whose group is empty, invalid UTF-8)
and that a pattern that would backtrack for ever in Python's `re` costs nothing (RE2)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import pytrec_eval
from conftest import ROOT, TEST_DATA
from qrels_lsp.core.chunks import ChunkRule, crowding, documents, places, rule_problem

CLI = [sys.executable, "-m", "qrels_lsp.cli"]
EXAMPLES = ROOT / "server" / "qrels_lsp" / "examples"
MEASURES = {
    "recall_5": "recall@5",
    "recall_10": "recall@10",
    "P_5": "precision@5",
    "recip_rank": "mrr",
    "ndcg_cut_10": "ndcg@10",
    "map": "map",
}
METRICS = ",".join(MEASURES.values())


def to_documents(
    run: dict[str, dict[str, float]], doc_of: Callable[[str], str]
) -> dict[str, dict[str, float]]:
    """The contract, independently: rank each query's chunks as trec_eval does (score
    descending, then id descending), keep each document's first chunk, and give the documents
    scores that keep that order even in pytrec_eval's 32-bit floats."""
    out: dict[str, dict[str, float]] = {}
    for qid, chunks in run.items():
        ranked = sorted(chunks, key=lambda c: (chunks[c], c.encode()), reverse=True)
        docs = list(dict.fromkeys(doc_of(c) for c in ranked))
        out[qid] = {d: float(len(docs) - i) for i, d in enumerate(docs)}
    return out


def read_trec_run(path: Path) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, _q0, doc, _rank, score, _tag = line.split()
        out.setdefault(qid, {}).setdefault(doc, float(score))
    return out


def read_trec_qrels(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            qid, _it, doc, grade = line.split()
            out.setdefault(qid, {}).setdefault(doc, int(grade))
    return out


def write_trec_run(run: dict[str, dict[str, float]], path: Path) -> Path:
    lines = [
        f"{q} Q0 {d} {i} {s!r} test"
        for q, docs in run.items()
        for i, (d, s) in enumerate(docs.items(), start=1)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_trec_qrels(qrels: dict[str, dict[str, int]], path: Path) -> Path:
    lines = [f"{q} 0 {d} {g}" for q, docs in qrels.items() for d, g in docs.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def pytrec(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> dict[str, dict[str, float]]:
    measures = {"recall.5,10", "P.5", "recip_rank", "ndcg_cut.10", "map"}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)  # type: ignore[no-any-return]


def score(*args: str | Path, cwd: Path | None = None) -> dict[str, dict[str, float]]:
    """`qrels-lsp score ... --format json` run in ``cwd``: run name -> per-query values."""
    proc = subprocess.run(
        [*CLI, "score", *map(str, args), "--metrics", METRICS, "--format", "json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return {r["name"]: r["queries"] for r in json.loads(proc.stdout)["runs"]}


def assert_equal(ours: dict[str, dict[str, float]], oracle: dict[str, dict[str, float]]) -> int:
    """Every query pytrec_eval scores has our values to 1e-12; returns how many values."""
    n = 0
    for qid, values in oracle.items():
        for trec_name, name in MEASURES.items():
            assert ours[qid][name] == pytest.approx(values[trec_name], abs=1e-12), (qid, name)
            n += 1
    return n


def segments() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """TREC RAG 2024: judgments of MS MARCO v2.1 segments (`doc#seg_offset`), lifted to their
    documents (a document's grade: its best segment's), and the run of segments."""
    judged = read_trec_qrels(TEST_DATA / "trec_eval" / "qrels.comment.test")
    qrels: dict[str, dict[str, int]] = {}
    for qid, docs in judged.items():
        for seg, grade in docs.items():
            doc = seg.split("#")[0]
            qrels.setdefault(qid, {})[doc] = max(grade, qrels.get(qid, {}).get(doc, grade))
    return qrels, read_trec_run(TEST_DATA / "trec_eval" / "results.comment.test")


def test_segments_scored_by_document_equal_pytrec_eval(tmp_path: Path) -> None:
    qrels, run = segments()
    golden = write_trec_qrels(qrels, tmp_path / "docs.qrels")
    run_file = shutil.copy(TEST_DATA / "trec_eval" / "results.comment.test", tmp_path)
    ours = score(golden, run_file, "--chunks", "#", cwd=tmp_path)
    mapped = to_documents(run, lambda seg: seg.split("#")[0])
    assert sum(len(r) for r in mapped.values()) < sum(len(r) for r in run.values())  # merged
    assert assert_equal(ours["results.comment.test"], pytrec(qrels, mapped)) > 150


def vaswani_chunks(seed: int) -> dict[str, dict[str, float]]:
    """The Vaswani BM25 run as a run of chunks: each document cut into one to four chunks
    `DOC::pN`, scored around the document's score so that a document's chunks scatter down the
    ranking (a later chunk may outrank another document's first), with ties."""
    rng = random.Random(seed)
    run = read_trec_run(TEST_DATA / "vaswani" / "bm25_top100.run")
    out: dict[str, dict[str, float]] = {}
    for qid, docs in run.items():
        chunks: dict[str, float] = {}
        for doc, s in docs.items():
            for p in rng.sample(range(1, 9), rng.randint(1, 4)):
                chunks[f"{doc}::p{p}"] = round(s - rng.choice([0, 0, 0.5, 1.5, 3.0]), 1)
        out[qid] = chunks
    return out


def test_generated_chunks_by_pattern_equal_pytrec_eval(tmp_path: Path) -> None:
    qrels = read_trec_qrels(TEST_DATA / "vaswani" / "qrels")
    run = vaswani_chunks(18)
    path = write_trec_run(run, tmp_path / "chunks.trec")
    golden = shutil.copy(TEST_DATA / "vaswani" / "qrels", tmp_path)
    ours = score(golden, path, "--chunk-pattern", r"(?P<doc>.+)::p\d+", cwd=tmp_path)
    oracle = pytrec(qrels, to_documents(run, lambda c: c.rsplit("::p", 1)[0]))
    assert assert_equal(ours["chunks"], oracle) == 93 * len(MEASURES)


def test_a_qrels_tables_chunks_and_the_golden_sets_key_map_the_runs_they_bind(
    tmp_path: Path,
) -> None:
    """The configuration's rule (`[[qrels]] chunks`) for TREC qrels, and the demo's
    `chunks: {separator: "#"}` for its run of passages: `score` with no rule on the command
    line scores by document."""
    qrels = read_trec_qrels(TEST_DATA / "vaswani" / "qrels")
    run = vaswani_chunks(19)
    write_trec_run(run, tmp_path / "chunks.trec")
    write_trec_qrels(qrels, tmp_path / "vaswani.qrels")
    (tmp_path / "qrels-lsp.toml").write_text(
        '[[qrels]]\npath = "vaswani.qrels"\nruns = ["chunks.trec"]\n'
        'chunks = {pattern = "(?P<doc>[0-9]+)::"}\n',
        encoding="utf-8",
    )
    ours = score(tmp_path / "vaswani.qrels", cwd=tmp_path)
    oracle = pytrec(qrels, to_documents(run, lambda c: c.split("::")[0]))
    assert assert_equal(ours["chunks"], oracle) == 93 * len(MEASURES)

    import yaml

    golden = yaml.safe_load((EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8"))
    assert golden["chunks"] == {"separator": "#"}
    demo = {
        q: ({d: 1 for d in e["relevant"]} if isinstance(e.get("relevant"), list) else e["relevant"])
        for q, e in golden["queries"].items()
        if (e or {}).get("relevant") and not e.get("unanswerable")
    }
    # (a grade written as text, `"2"`, is a planted QR103: left out of the scores)
    demo = {q: {d: g for d, g in docs.items() if type(g) is int} for q, docs in demo.items()}
    passages = yaml.safe_load((EXAMPLES / "runs" / "passages.run.yaml").read_text("utf-8"))
    chunked = {q: {c: float(s) for c, s in r.items()} for q, r in passages["results"].items()}
    mapped = to_documents(chunked, lambda c: c.split("#")[0])
    ours = score(EXAMPLES / "support.qrels.yaml", EXAMPLES / "runs" / "passages.run.yaml")
    common = set(mapped) & set(demo)
    assert assert_equal(ours["passages"], pytrec(demo, mapped)) == len(common) * len(MEASURES)
    assert len(common) >= 30


def test_without_the_rule_a_run_of_chunks_matches_nothing(tmp_path: Path) -> None:
    """The classic mistake the rule is for: chunk ids never equal document ids, so MAP is 0."""
    qrels = read_trec_qrels(TEST_DATA / "vaswani" / "qrels")
    path = write_trec_run(vaswani_chunks(20), tmp_path / "chunks.trec")
    golden = shutil.copy(TEST_DATA / "vaswani" / "qrels", tmp_path)
    plain = score(golden, path, cwd=tmp_path)["chunks"]
    assert all(v["map"] == 0.0 for v in plain.values()) and len(plain) == len(qrels)


def test_the_rule() -> None:
    sep = ChunkRule(separator="#")
    assert sep.document("kb/x.md#3") == "kb/x.md"
    assert sep.document("kb/x.md#3#1") == "kb/x.md"  # the first separator
    assert sep.document("kb/x.md") == "kb/x.md"  # not split: a document already
    assert sep.document("#3") == "#3"  # nothing before it: no document, the id as it is
    pattern = ChunkRule(pattern=r"(?P<doc>[^:]+)::p\d+$")
    assert pattern.document("a/b::p12") == "a/b"
    assert pattern.document("a/b::x") == "a/b::x"  # no match
    assert pattern.document("a/\udcffb::p1") == "a/\udcffb::p1"  # invalid UTF-8: as it is
    empty = ChunkRule(pattern=r"(?P<doc>x*)-\d")
    assert empty.document("-3") == "-3"  # an empty group names no document
    assert documents(["a#1", "b#1", "a#2", "c", "b#9"], sep.document) == ["a", "b", "c"]
    where = places(["a#1", "b#1", "a#2", "a#3"], sep.document)
    assert [(p.doc_rank, p.sibling, p.siblings, p.counted) for p in where] == [
        (1, 1, 3, True),
        (2, 1, 1, True),
        (1, 2, 3, False),
        (1, 3, 3, False),
    ]
    assert crowding(["a#1", "b#1", "a#2", "a#3", "c"], sep.document, 5) == ("a", 3)
    assert crowding(["a#1", "b#1", "a#2", "c", "d"], sep.document, 5) is None  # 2 of 5
    assert crowding(["a#1"], sep.document, 1) is None  # one chunk is no crowd


@pytest.mark.parametrize(
    ("separator", "pattern", "problem"),
    [
        (None, None, "exactly one"),
        ("#", "(?P<doc>.+)", "exactly one"),
        ("", None, "non-empty"),
        (None, "(?P<doc>.+", "RE2"),
        (None, r"(a)\1", "RE2"),  # a backreference: RE2 has none, and says so
        (None, ".+#", "named group `doc`"),
    ],
)
def test_rules_that_are_refused(separator: str | None, pattern: str | None, problem: str) -> None:
    found = rule_problem(separator, pattern)
    assert found is not None and problem in found


def test_a_pattern_that_backtracks_in_re_is_bounded(tmp_path: Path) -> None:
    """`(a+)+$` on ids of 5,000 a's and a b: Python's `re` would try 2^5000 ways; the
    workspace writes the pattern, so it is matched by RE2, and `check` and `score` end in the
    usual bound of time and memory (tests/bounded.py)."""
    from bounded import CLI as BOUNDED_CLI
    from bounded import run_bounded

    ids = [("a" * 5000) + f"b{i}" for i in range(200)]
    (tmp_path / "golden.qrels.yaml").write_text(
        'chunks: {pattern: "(?P<doc>(a+)+)$"}\nruns: [evil.run.yaml]\n'
        "queries:\n  q1: {question: x, relevant: [d1]}\n",
        encoding="utf-8",
    )
    (tmp_path / "evil.run.yaml").write_text(
        "results:\n  q1:\n" + "".join(f"    - {c}\n" for c in ids), encoding="utf-8"
    )
    for command in ("check", "score"):
        done = run_bounded([*BOUNDED_CLI, command, "golden.qrels.yaml"], cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr
    assert ChunkRule(pattern=r"(?P<doc>(a+)+)$").document(ids[0]) == ids[0]
