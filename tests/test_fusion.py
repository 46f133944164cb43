"""Fused runs against ranx's fusion (``ranx.fusion``: ``rrf``, and ``fuse`` with ``sum``, ``mnz``
and ``wsum`` after ``min-max``, ``zmuv`` or ``sum`` normalisation), scores and order, on the
Vaswani runs (the shared BM25 run and qrels-lsp's own BM25 baseline of the Vaswani files, which
tokenizes differently) and on generated runs with score ties, through every way in: the core's
``fuse``, `qrels-lsp fuse`'s TREC file, a golden set's `fusions:` and a configuration's
`[[qrels.fusions]]`, and runs of chunks fused by their documents.

ranx ranks each input by score with numpy's argsort, which leaves equal scores in no set order,
while the contract ranks each run as trec_eval does (score, then document id descending): RRF's
inputs are handed to ranx with scores that encode trec_eval's order, and every fused ranking is
compared with ranx's fused scores put in trec_eval's order. The scores must be equal to the bit
(the sums are made in ranx's order), so ties fall the same way.

The comparisons with ranx are slow: ranx compiles its numba kernels in every process that
imports it. The fast test checks that fusing again after an edit equals fusing afresh.
"""

from __future__ import annotations

import random
import subprocess
import sys
import warnings
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import TEST_DATA
from qrels_lsp.core.formats.trec_run import parse_trec_run
from qrels_lsp.core.fusion import METHODS, Input, Params, fuse
from qrels_lsp.core.metrics import order_by_score

CLI = [sys.executable, "-m", "qrels_lsp.cli"]
Scored = dict[str, dict[str, float]]  # qid -> doc -> score


@cache
def ranx() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's type-safety notes
        import ranx as module
    return module


def scored_run(text: str) -> Scored:
    run = parse_trec_run(text)
    return {q: {d.doc_id: d.score or 0.0 for d in r.docs} for q, r in run.rankings.items()}


@cache
def vaswani() -> tuple[Scored, Scored]:
    """The shared BM25 run and qrels-lsp's BM25 baseline of the same files (`qrels-lsp bm25`)."""
    import tempfile

    shared = scored_run((TEST_DATA / "vaswani" / "bm25_top100.run").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "qrels-lsp.toml"
        config.write_text(
            f'[[qrels]]\npath = "{TEST_DATA / "vaswani" / "qrels"}"\n'
            f'topics = "{TEST_DATA / "vaswani" / "query-text.trec"}"\n'
            f'corpus = "{TEST_DATA / "vaswani" / "corpus" / "doc-text.trec"}"\n',
            encoding="utf-8",
        )
        out = Path(folder) / "ours.trec"
        subprocess.run(
            [
                *CLI,
                "bm25",
                str(TEST_DATA / "vaswani" / "qrels"),
                "-o",
                str(out),
                "--config",
                str(config),
                "--depth",
                "150",
                "--allow-outside",
            ],
            check=True,
            capture_output=True,
        )
        ours = scored_run(out.read_text(encoding="utf-8"))
    assert set(ours) == set(shared) and ours != shared
    return shared, ours


def generated(seed: int, n_runs: int = 3, queries: int = 40) -> list[Scored]:
    """Runs over overlapping pools of documents, scores rounded so that many tie, one run's
    scores negative (a distance), every run answering every query (ranx requires it)."""
    rng = random.Random(seed)
    runs: list[Scored] = [{} for _ in range(n_runs)]
    for q in range(queries):
        pool = [f"d{rng.randrange(400):03d}" for _ in range(120)]
        for i, run in enumerate(runs):
            docs = rng.sample(pool, rng.randint(1, 60))
            sign = -1.0 if i == 1 else 1.0
            run[f"q{q}"] = {
                d: sign * round(rng.uniform(0, 20), rng.choice([0, 1, 3])) for d in docs
            }
    return runs


def trec_ranked(run: Scored) -> dict[str, list[str]]:
    return {q: order_by_score(s) for q, s in run.items()}


def inputs(runs: Sequence[Scored]) -> list[Input]:
    out = []
    for run in runs:
        ranked = trec_ranked(run)
        out.append(Input(ranked, {q: [run[q][d] for d in docs] for q, docs in ranked.items()}))
    return out


def ranx_fused(method: str, runs: Sequence[Scored], params: Params) -> Scored:
    """ranx's fusion of ``runs`` cut at ``params.depth`` (in trec_eval's order): RRF's inputs
    scored by their trec_eval rank (see the module's docstring)."""
    rx = ranx()
    cut = []
    for run in runs:
        kept: Scored = {}
        for q, docs in trec_ranked(run).items():
            docs = docs[: params.depth]
            if method == "rrf":
                kept[q] = {d: float(len(docs) - i) for i, d in enumerate(docs)}
            else:
                kept[q] = {d: run[q][d] for d in docs}
        cut.append(rx.Run(kept))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "rrf":
            fused = rx.fusion.rrf(cut, k=params.k)
        else:
            extra = {"weights": list(params.weights or ())} if method == "wsum" else {}
            fused = rx.fuse(cut, norm=params.norm, method=METHODS[method].oracle, params=extra)
    return {q: dict(d) for q, d in fused.to_dict().items()}


def assert_equal_to_ranx(
    ours: Mapping[str, Sequence[str]], scores: Mapping[str, Sequence[float]], theirs: Scored
) -> int:
    """The same documents with the same scores to the bit, ranked in trec_eval's order of
    ranx's scores; returns how many documents were compared."""
    assert set(ours) == set(theirs)
    n = 0
    for q, docs in ours.items():
        assert dict(zip(docs, scores[q], strict=True)) == theirs[q], q
        assert list(docs) == order_by_score(theirs[q]), q
        n += len(docs)
    return n


CASES = [
    ("rrf", None, None),
    ("rrf", None, 20),
    *(
        (m, norm, None)
        for m in ("combsum", "combmnz", "wsum")
        for norm in ("min-max", "zmuv", "sum")
    ),
    ("combsum", "min-max", 10),
    ("wsum", "zmuv", 25),
]


def params_of(method: str, norm: str | None, depth: int | None, n_runs: int) -> Params:
    weights = tuple(0.25 + 0.5 * i for i in range(n_runs)) if method == "wsum" else None
    return Params(method, 60, weights, norm or "min-max", depth)


@pytest.mark.slow
@pytest.mark.parametrize(("method", "norm", "depth"), CASES)
def test_core_fusion_equals_ranx(method: str, norm: str | None, depth: int | None) -> None:
    # (2,000 queries of up to 60 documents: enough for the rare deviation whose square root C's
    # pow(x, 0.5) rounds the other way from sqrt, which ranx's compiled code uses)
    for runs in (list(vaswani()), generated(7), generated(8, n_runs=2, queries=2000)):
        params = params_of(method, norm, depth, len(runs))
        fused = fuse(params, inputs(runs))
        compared = assert_equal_to_ranx(
            fused.rankings, fused.scores, ranx_fused(method, runs, params)
        )
        assert compared > 500


@pytest.mark.slow
def test_rrf_k_and_a_tie_in_the_inputs() -> None:
    """Another k, and inputs whose tied documents only trec_eval's order separates: a document
    tied at ranks 1-2 in one run is ranked by id, so its RRF share is 1/(k+1) or 1/(k+2)."""
    runs: list[Scored] = [{"q": {"a": 1.0, "b": 1.0, "c": 0.5}}, {"q": {"c": 2.0, "a": 1.0}}]
    params = Params("rrf", 10)
    fused = fuse(params, inputs(runs))
    assert fused.rankings["q"][0] == "c"  # b beats a in run 1 (id descending): a is 2nd there
    assert_equal_to_ranx(fused.rankings, fused.scores, ranx_fused("rrf", runs, params))


@pytest.mark.slow
def test_a_query_some_runs_do_not_answer() -> None:
    """Every query any run answers is fused; a run that lacks it adds nothing (ranx needs every
    run to answer every query: the oracle fuses each query with the runs that answer it)."""
    runs = generated(9)
    for i, run in enumerate(runs):
        for q in list(run)[i::4]:
            del run[q]
    for q in ("q3", "q7"):  # answered by the first run alone
        for run in runs[1:]:
            run.pop(q, None)
    rx = ranx()
    for method, norm, _depth in CASES:
        params = params_of(method, norm, None, len(runs))
        fused = fuse(params, inputs(runs))
        assert set(fused.rankings) == {q for r in runs for q in r}
        for q in fused.rankings:
            answering = [i for i, r in enumerate(runs) if q in r]
            if len(answering) < 2:
                continue
            sub = [{q: runs[i][q]} for i in answering]
            weights = tuple(params.weights[i] for i in answering) if params.weights else None
            oracle = ranx_fused(method, sub, Params(method, 60, weights, params.norm))
            assert dict(zip(fused.rankings[q], fused.scores[q], strict=True)) == oracle[q]
        lone = next(q for q in fused.rankings if sum(q in r for r in runs) == 1)
        alone = next(r for r in runs if lone in r)
        if method == "rrf":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ranked = trec_ranked({lone: alone[lone]})[lone]
                one = rx.fusion.rrf(
                    [rx.Run({lone: {d: float(len(ranked) - i) for i, d in enumerate(ranked)}})]
                )
            assert dict(zip(fused.rankings[lone], fused.scores[lone], strict=True)) == dict(
                one.to_dict()[lone]
            )


def write_trec(run: Scored, path: Path) -> Path:
    lines = [f"{q} Q0 {d} 1 {s!r} t" for q, docs in run.items() for d, s in docs.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("method", "args"),
    [
        ("rrf", []),
        ("rrf", ["--k", "20", "--depth", "30"]),
        ("combsum", ["--norm", "zmuv"]),
        ("combmnz", []),
        ("wsum", ["--weights", "0.3,0.7", "--norm", "sum"]),
    ],
)
@pytest.mark.slow
def test_the_fuse_command_writes_ranxs_fusion(tmp_path: Path, method: str, args: list[str]) -> None:
    runs = list(vaswani())
    paths = [write_trec(r, tmp_path / f"r{i}.trec") for i, r in enumerate(runs)]
    out = tmp_path / "fused.trec"
    subprocess.run(
        [*CLI, "fuse", *map(str, paths), "--method", method, *args, "-o", str(out), "--name", "f"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    lines = [line.split() for line in out.read_text(encoding="utf-8").splitlines()]
    assert {line[5] for line in lines} == {"f"}
    qids = list(dict.fromkeys(line[0] for line in lines))
    assert qids == sorted(qids, key=str.encode)  # trec_eval's order of queries
    got: dict[str, list[str]] = {}
    scores: dict[str, list[float]] = {}
    for qid, _q0, doc, rank, score, _tag in lines:
        got.setdefault(qid, []).append(doc)
        scores.setdefault(qid, []).append(float(score))
        assert int(rank) == len(got[qid])
    option = dict(zip(args[::2], args[1::2], strict=True))
    weights = tuple(map(float, option["--weights"].split(","))) if "--weights" in option else None
    depth = int(option["--depth"]) if "--depth" in option else None
    params = Params(
        method, float(option.get("--k", 60)), weights, option.get("--norm", "min-max"), depth
    )
    assert assert_equal_to_ranx(got, scores, ranx_fused(method, runs, params)) > 2000


def fused_runs(
    root: Path, runs: dict[str, Scored], table: str, golden: str | None = None
) -> dict[str, Any]:
    """The fused runs the project makes of ``runs`` (TREC files named by their keys) for the
    Vaswani qrels bound by a `[[qrels]]` table that ends with ``table``; or, given ``golden``
    (its `fusions:` and `chunks:` keys), for a golden set YAML of the same judgments."""
    from qrels_lsp.core.base.boundary import Boundary
    from qrels_lsp.core.project.config import load_config
    from qrels_lsp.core.project.project import Project

    for name, run in runs.items():
        write_trec(run, root / f"{name}.trec")
    qrels = (TEST_DATA / "vaswani" / "qrels").read_text(encoding="utf-8")
    files = ", ".join(f'"{name}.trec"' for name in runs)
    if golden is None:
        (root / "g.qrels").write_text(qrels, encoding="utf-8")
        (root / "qrels-lsp.toml").write_text(
            f'[[qrels]]\npath = "g.qrels"\nruns = [{files}]\n{table}', encoding="utf-8"
        )
        path = root / "g.qrels"
    else:
        judged: dict[str, list[str]] = {}
        for line in qrels.splitlines():
            qid, _, doc, grade = line.split()
            judged.setdefault(qid, []).extend([doc] if int(grade) > 0 else [])
        entries = "".join(f'  "{q}": {{relevant: [{", ".join(d)}]}}\n' for q, d in judged.items())
        path = root / "g.qrels.yaml"
        path.write_text(f"runs: [{files}]\n{golden}\nqueries:\n{entries}", encoding="utf-8")
    project = Project(load_config(root), boundary=Boundary.of([root]))
    analysis = project.analyse(path)
    assert analysis is not None
    assert not [f for f in analysis.findings if f.code.startswith("QR11")]
    return {r.name: r for r in analysis.runs if r.fusion is not None}


@pytest.mark.slow
@pytest.mark.parametrize("where", ["config", "golden"])
def test_a_golden_sets_fusions_and_the_configurations_equal_ranx(
    tmp_path: Path, where: str
) -> None:
    """The fused runs the project makes (the editor's lenses, `score`, `compare`) for a golden
    set's `fusions:` and for TREC qrels' `[[qrels.fusions]]`."""

    runs = list(vaswani())
    fused = fused_runs(
        tmp_path,
        {"shared": runs[0], "ours": runs[1]},
        '[[qrels.fusions]]\nname = "r"\nmethod = "rrf"\nruns = ["shared", "ours"]\n'
        '[[qrels.fusions]]\nname = "w"\nmethod = "wsum"\nruns = ["shared", "ours"]\n'
        'weights = [0.4, 0.6]\nnorm = "zmuv"\ndepth = 50\n',
        None
        if where == "config"
        else "fusions:\n  - {name: r, method: rrf, runs: [shared, ours]}\n"
        "  - {name: w, method: wsum, runs: [shared, ours], weights: [0.4, 0.6], norm: zmuv, "
        "depth: 50}",
    )
    assert list(fused) == ["r", "w"]
    for name, method, params in (
        ("r", "rrf", Params("rrf")),
        ("w", "wsum", Params("wsum", 60, (0.4, 0.6), "zmuv", 50)),
    ):
        r = fused[name]
        assert r.scores is not None
        assert_equal_to_ranx(r.rankings, r.scores, ranx_fused(method, runs, params))


@pytest.mark.slow
def test_fused_runs_of_chunks_equal_ranx_on_their_documents(tmp_path: Path) -> None:
    """Both together: two runs of chunks, each mapped to documents (first chunk per document,
    keeping its score) by the few lines here, then fused by ranx; qrels-lsp's golden set with
    `chunks:` and `fusions:` must give the same run."""

    rng = random.Random(11)
    chunked: list[Scored] = []
    for run in vaswani():
        chunked.append(
            {
                q: {
                    f"{d}#{p}": s - rng.choice([0.0, 0.25, 2.0])
                    for d, s in docs.items()
                    for p in rng.sample(range(9), 2)
                }
                for q, docs in run.items()
            }
        )

    def documents(run: Scored) -> Scored:
        out: Scored = {}
        for q, chunks in run.items():
            out[q] = {}
            for c in sorted(chunks, key=lambda c: (chunks[c], c.encode()), reverse=True):
                out[q].setdefault(c.split("#")[0], chunks[c])
        return out

    fused = fused_runs(
        tmp_path,
        {"a": chunked[0], "b": chunked[1]},
        'chunks = {separator = "#"}\n'
        '[[qrels.fusions]]\nname = "r"\nmethod = "rrf"\nruns = ["a", "b"]\n'
        '[[qrels.fusions]]\nname = "s"\nmethod = "combmnz"\nruns = ["a", "b"]\n',
    )
    mapped = [documents(r) for r in chunked]
    for name, method in (("r", "rrf"), ("s", "combmnz")):
        r = fused[name]
        assert r.scores is not None
        assert_equal_to_ranx(r.rankings, r.scores, ranx_fused(method, mapped, Params(method)))


def test_fusing_again_after_an_edit_equals_fusing_afresh() -> None:
    """The Fuser fuses again only the queries whose inputs changed (an edited question re-ranks
    one query of the BM25 baseline): its result equals a fresh fusion, says which queries
    changed, and keeps the other queries' lists (the score cache compares them by identity)."""
    from qrels_lsp.core.fusion import Fuser

    runs = generated(12)
    given = inputs(runs)
    for method, norm, depth in CASES:
        params = params_of(method, norm, depth, len(runs))
        fuser = Fuser()
        first = fuser.fuse(params, given)
        assert fuser.fuse(params, given) is first
        edited = list(given)
        scores = dict(given[1].scores or {})
        ranked = dict(given[1].rankings)
        ranked["q5"] = list(reversed(ranked["q5"]))
        scores["q5"] = [s + 1.0 for s in scores["q5"]]
        edited[1] = Input(ranked, scores)
        again = fuser.fuse(params, edited)
        fresh = fuse(params, edited)
        assert again.rankings == fresh.rankings and again.scores == fresh.scores
        assert again.since is not None and again.since.keys == {"q5"}
        assert again.rankings["q1"] is first.rankings["q1"]


@pytest.mark.parametrize("method", ["rrf", "combsum"])
def test_fuse_writes_invalid_utf8_ids_back_byte_for_byte(tmp_path: Path, method: str) -> None:
    """trec_eval compares ids as bytes, and a TREC run may hold bytes that are not UTF-8: the
    fused run holds the same bytes (no traceback, no U+FFFD), ranked as trec_eval ranks them."""
    a = tmp_path / "a.trec"
    a.write_bytes(b"q1 Q0 d\xff1 1 2.0 a\nq1 Q0 d2 2 1.0 a\nq\xfe Q0 d3 1 1.0 a\n")
    b = tmp_path / "b.trec"
    b.write_bytes(b"q1 Q0 d\xff1 1 1.0 b\nq1 Q0 d\xfe3 2 0.5 b\n")
    out = tmp_path / "fused.trec"
    done = subprocess.run(
        [*CLI, "fuse", str(a), str(b), "--method", method, "-o", str(out)],
        capture_output=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = [line.split() for line in out.read_bytes().splitlines()]
    # d2 and d\xfe3 tie (ranked second by one run each): by id descending, as bytes
    assert [(q, d) for q, _q0, d, *_ in lines] == [
        (b"q1", b"d\xff1"),
        (b"q1", b"d\xfe3"),
        (b"q1", b"d2"),
        (b"q\xfe", b"d3"),
    ]
