"""What is wrong with a golden set's fusions and chunk rule, each said where it is written:
QR116 (a run the golden set does not have, with the closest names as fixes), QR117 (a score
method given a run without scores), QR118 (weights that do not match, parameters the method does
not use), QR119 (a name another run has), QR208 (one document fills half or more of a query's
top k chunks), QR209 (a rule that maps no id of a run to a corpus document); the same from the
configuration (`[[fusions]]`, `[[qrels]] chunks`), from `check` (which scores nothing) and as
`score` reports them. And a fused run is a run like any other: its lens, its scores, the base of
comparisons, a fusion of a fusion, the BM25 baseline as one of its runs.

The fusion's numbers are ranx's (tests/test_fusion.py, slow); here, what the project makes of it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fixtures import apply_edits
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.findings import Severity
from qrels_lsp.core.project.analysis import Analysis
from qrels_lsp.core.project.config import load_config
from qrels_lsp.core.project.project import Project
from qrels_lsp.ide.lenses import lens_groups

CLI = [sys.executable, "-m", "qrels_lsp.cli"]

GOLDEN = """\
corpus: corpus/
k: 2
runs: [runs/*.run.yaml, runs/*.trec]
{keys}
queries:
  q1:
    question: how do I reset the hub
    relevant: [reset.md]
  q2:
    question: pairing fails with an error
    relevant: {{pairing.md: 2, errors.md: 1}}
"""

LISTS = """\
name: lists
results:
  q1: [errors.md, reset.md]
  q2: [pairing.md, reset.md]
"""

SCORES = """\
results:
  q1: {reset.md: 0.9, pairing.md: 0.5}
  q2: {errors.md: 0.8, pairing.md: 0.7}
"""

TREC = """\
q1 Q0 pairing.md 1 3.5 t
q1 Q0 reset.md 2 2.5 t
q2 Q0 errors.md 1 1.5 t
"""

CHUNKS = """\
qrels: ../g.qrels.yaml
results:
  q1:
    - reset.md#2
    - reset.md#1
    - errors.md#4
  q2:
    - errors.md#1
    - pairing.md#3
"""


def workspace(tmp_path: Path, keys: str, *, chunks: str = CHUNKS) -> Path:
    (tmp_path / "corpus").mkdir(parents=True)
    for doc in ("reset.md", "pairing.md", "errors.md"):
        (tmp_path / "corpus" / doc).write_text(f"# {doc}\nabout {doc[:-3]} and the hub\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "lists.run.yaml").write_text(LISTS)
    (tmp_path / "runs" / "scores.run.yaml").write_text(SCORES)
    (tmp_path / "runs" / "plain.trec").write_text(TREC)
    (tmp_path / "runs" / "chunks.run.yaml").write_text(chunks)
    (tmp_path / "g.qrels.yaml").write_text(GOLDEN.format(keys=keys))
    return tmp_path


def analyse(root: Path, path: str = "g.qrels.yaml", **kw: object) -> Analysis:
    project = Project(load_config(root), boundary=Boundary.of([root]), build_indexes=True)
    analysis = project.analyse(root / path, **kw)  # type: ignore[arg-type]
    assert analysis is not None
    return analysis


def at(analysis: Analysis, code: str) -> list[tuple[str, str]]:
    """(the text under each finding of ``code``, its message)."""
    return [
        (analysis.text[f.span.start : f.span.end], f.message)
        for f in analysis.findings
        if f.code == code
    ]


def test_a_fused_run_is_a_run_like_any_other(tmp_path: Path) -> None:
    keys = """\
compare_to: both
fusions:
  - {name: both, method: rrf, runs: [lists, plain]}
  - {name: again, method: combsum, runs: [both, scores, bm25]}"""
    a = analyse(workspace(tmp_path, keys))
    names = [r.name for r in a.runs]
    assert names[-2:] == ["both", "again"] and "bm25 (built-in)" in names
    assert [f.code for f in a.findings if f.code.startswith(("QR11", "QR2"))] == []
    both = next(r for r in a.runs if r.name == "both")
    assert both.fusion is not None and not both.from_file
    # RRF, k = 60: lists ranks errors.md, reset.md; plain ranks pairing.md, reset.md
    assert both.rankings["q1"] == ["reset.md", "pairing.md", "errors.md"]
    assert both.scores is not None and both.scores["q1"][0] == 1 / 62 + 1 / 62
    assert both.evaluation.per_query["q1"]["mrr"] == 1.0
    assert a.base is not None and a.base.name == "both"  # `compare_to:` names it
    header = lens_groups(a)[0][1]
    assert any(t.startswith("both: recall@2 ") for t in header)
    assert any(t.startswith("again: recall@2 ") for t in header)


def test_unknown_runs_have_the_closest_names_as_fixes(tmp_path: Path) -> None:
    keys = "fusions:\n  - {name: f, method: rrf, runs: [list, plain, nothing-like-it]}"
    a = analyse(workspace(tmp_path, keys))
    found = [f for f in a.findings if f.code == "QR116"]
    assert [a.text[f.span.start : f.span.end] for f in found] == ["list", "nothing-like-it"]
    assert found[0].severity == Severity.ERROR
    assert "Did you mean `lists`?" in found[0].message and "`plain`" in found[0].message
    assert found[0].fixes and found[0].fixes[0].title == "Replace with `lists`"
    assert apply_edits(a.text, found[0].fixes[0].edits).count("runs: [lists, plain,") == 1
    assert not found[1].fixes
    assert "f" not in [r.name for r in a.runs]  # not made: never a run of zeros


def test_a_score_method_needs_runs_with_scores(tmp_path: Path) -> None:
    keys = "fusions:\n  - {name: f, method: combmnz, runs: [lists, scores, plain]}"
    a = analyse(workspace(tmp_path, keys))
    [(text, message)] = at(a, "QR117")
    assert text == "lists" and "`method: rrf`" in message
    ok = "fusions:\n  - {name: f, method: rrf, runs: [lists, scores, plain]}"
    assert at(analyse(workspace(tmp_path / "ok", ok)), "QR117") == []


def test_weights_and_parameters(tmp_path: Path) -> None:
    keys = """\
fusions:
  - {name: a, method: wsum, runs: [scores, plain], weights: [1, 2, 3]}
  - {name: b, method: wsum, runs: [scores, plain]}
  - {name: c, method: rrf, runs: [scores, plain], norm: zmuv, weights: [1, 2]}
  - {name: d, method: combsum, runs: [scores, plain], k: 10}"""
    a = analyse(workspace(tmp_path, keys))
    found = [f for f in a.findings if f.code == "QR118"]
    assert a.text[found[0].span.start : found[0].span.end] == "[1, 2, 3]"
    assert [f.severity for f in found] == [
        Severity.ERROR,
        Severity.ERROR,
        Severity.WARNING,
        Severity.WARNING,
    ]
    assert "3 weight(s) for 2 runs" in found[0].message and "needs `weights`" in found[1].message
    assert "`norm`, `weights` are ignored" in found[2].message
    assert "`k` is ignored" in found[3].message
    assert [r.name for r in a.runs if r.fusion is not None] == ["c", "d"]  # warnings: still made


def test_a_name_another_run_has(tmp_path: Path) -> None:
    keys = "fusions:\n  - {name: plain, method: rrf, runs: [lists, scores]}"
    a = analyse(workspace(tmp_path, keys))
    [(text, message)] = at(a, "QR119")
    assert text == "plain" and "(plain.trec)" in message


def test_shapes_are_qr004(tmp_path: Path) -> None:
    keys = """\
chunks: {separator: "#", pattern: "(?P<doc>.+)"}
fusions:
  - {name: a, method: borda, runs: [lists, plain]}
  - {name: b, method: rrf, runs: [lists]}
  - {name: c, method: rrf, runs: [lists, plain], k: -1}
  - {method: rrf, runs: [lists, plain]}
  - {name: e, method: rrf, runs: [lists, plain], depth: 0, colour: red}"""
    a = analyse(workspace(tmp_path, keys))
    messages = [m for _, m in at(a, "QR004")]
    assert any("exactly one of `separator`" in m for m in messages)
    assert any("`method` must be one of rrf, combsum, combmnz, wsum" in m for m in messages)
    assert any("two runs or more" in m for m in messages)
    assert any("`k` must be a number, 0 or more" in m for m in messages)
    assert any("A fusion needs `name`" in m for m in messages)
    assert any("`depth` must be a positive integer" in m for m in messages)
    assert [t for t, _ in at(a, "QR003")] == ["colour"]
    assert not [r for r in a.runs if r.fusion is not None]


def test_chunks_crowding_and_a_rule_that_matches_nothing(tmp_path: Path) -> None:
    root = workspace(tmp_path, 'chunks: {separator: "#"}')
    run = analyse(root, "runs/chunks.run.yaml")
    [(text, message)] = at(run, "QR208")
    assert text == "q1" and "`reset.md` fills 2 of the top 2 chunks" in message
    assert at(run, "QR209") == [] and at(run, "QR206") == []
    assert run.runs[0].rankings == {
        "q1": ["reset.md", "errors.md"],
        "q2": ["errors.md", "pairing.md"],
    }
    wrong = workspace(tmp_path / "wrong", 'chunks: {separator: "::"}')
    golden = analyse(wrong)
    [(text, message)] = at(golden, "QR209")
    assert text == '{separator: "::"}' and "no id of `chunks` is a corpus document" in message
    assert "(its first: `reset.md#2`)" in message
    run = analyse(wrong, "runs/chunks.run.yaml")
    assert [t for t, _ in at(run, "QR209")] == ["results"]
    assert at(run, "QR206") == []  # one QR209, not a finding per id


def test_a_chunk_of_a_document_the_corpus_lacks(tmp_path: Path) -> None:
    chunks = CHUNKS.replace("errors.md#4", "missing.md#4")
    run = analyse(
        workspace(tmp_path, 'chunks: {separator: "#"}', chunks=chunks), "runs/chunks.run.yaml"
    )
    [(text, message)] = at(run, "QR206")
    assert text == "missing.md#4" and "a chunk of `missing.md`" in message


def test_the_configuration_fuses_and_maps_trec_qrels(tmp_path: Path) -> None:
    """`[[qrels.fusions]]` and `[[qrels]] chunks` for TREC qrels; problems said at the top of
    the qrels file, naming the configuration."""
    root = workspace(tmp_path, "")
    (root / "g.qrels").write_text("q1 0 reset.md 1\nq2 0 pairing.md 2\nq2 0 errors.md 1\n")
    (root / "qrels-lsp.toml").write_text(
        '[[qrels]]\npath = "g.qrels"\nruns = ["runs/*.trec", "runs/lists.run.yaml", '
        '"runs/chunks.run.yaml"]\nchunks = {separator = "#"}\n'
        '[[qrels.fusions]]\nname = "f"\nmethod = "rrf"\nruns = ["plain", "lists"]\n'
        '[[qrels.fusions]]\nname = "g"\nmethod = "rrf"\nruns = ["plain", "typo"]\n'
    )
    a = analyse(root, "g.qrels")
    assert [r.name for r in a.runs if r.fusion is not None] == ["f"]
    chunked = next(r for r in a.runs if r.name == "chunks")
    assert chunked.rankings["q1"] == ["reset.md", "errors.md"]
    [unknown] = [f for f in a.findings if f.code == "QR116"]
    assert (
        unknown.span.start == 0
        and "[[qrels]] table of g.qrels in qrels-lsp.toml" in unknown.message
    )


def test_check_reports_fusions_without_scoring(tmp_path: Path) -> None:
    keys = "fusions:\n  - {name: f, method: wsum, runs: [lists, bm25, plainn], weights: [1, 1]}"
    root = workspace(tmp_path, keys)
    a = analyse(root, with_runs=False)
    assert {f.code for f in a.findings} >= {"QR116", "QR117", "QR118"}
    done = subprocess.run(
        [*CLI, "check", "g.qrels.yaml"], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 1 and "QR116" in done.stdout and "QR117" in done.stdout


def test_score_says_a_fusion_it_cannot_make(tmp_path: Path) -> None:
    keys = "fusions:\n  - {name: f, method: combsum, runs: [lists, plain]}"
    root = workspace(tmp_path, keys)
    done = subprocess.run(
        [*CLI, "score", "g.qrels.yaml"], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and "QR117" in done.stderr
    # runs named on the command line: a fusion of other runs is not asked for
    named = subprocess.run(
        [*CLI, "score", "g.qrels.yaml", "runs/scores.run.yaml"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert named.returncode == 0 and named.stderr == ""


@pytest.mark.parametrize("where", ["golden", "config"])
def test_fusing_chunk_runs_fuses_their_documents(tmp_path: Path, where: str) -> None:
    """Both together: runs of chunks are mapped first, then fused by document (MaxP)."""
    other = CHUNKS.replace(
        "    - reset.md#2\n    - reset.md#1\n", "    - errors.md#2\n    - reset.md#9\n"
    )
    keys = 'chunks: {separator: "#"}\nfusions:\n  - {name: f, method: rrf, runs: [chunks, other]}'
    root = workspace(tmp_path, keys if where == "golden" else "")
    (root / "runs" / "other.run.yaml").write_text(other)
    if where == "config":
        (root / "qrels-lsp.toml").write_text(
            'chunks = {separator = "#"}\n[[fusions]]\nname = "f"\nmethod = "rrf"\n'
            'runs = ["chunks", "other"]\n'
        )
    a = analyse(root)
    f = next(r for r in a.runs if r.name == "f")
    # chunks: q1 reset.md, errors.md; other: q1 errors.md, reset.md: a tie, broken by id
    assert f.rankings["q1"] == ["reset.md", "errors.md"]
    assert f.scores is not None and f.scores["q1"] == [1 / 61 + 1 / 62, 1 / 62 + 1 / 61]


def test_the_gate_takes_a_fused_run_and_a_run_of_chunks_by_name(tmp_path: Path) -> None:
    """`gate` names its runs as the golden set does: a fused run and a run of chunks (scored by
    document) are runs it can gate like any other."""
    keys = 'chunks: {separator: "#"}\nfusions:\n  - {name: both, method: rrf, runs: [lists, plain]}'
    root = workspace(tmp_path, keys)
    for head in ("both", "chunks"):
        done = subprocess.run(
            [*CLI, "gate", "g.qrels.yaml", "--base", "lists", "--head", head, "--min-judged", "0"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr
        assert head in done.stdout and ("pass" in done.stdout or "fail" in done.stdout)


# -- the review of issue 18 ----------------------------------------------------------------------


def test_a_method_or_norm_written_as_a_list_is_qr004_not_a_crash(tmp_path: Path) -> None:
    root = workspace(tmp_path, "fusions: [{name: f, method: [rrf], runs: [lists, plain]}]")
    assert at(analyse(root), "QR004")
    (root / "qrels-lsp.toml").write_text(
        '[[fusions]]\nname = "g"\nnorm = ["x"]\nruns = ["a", "b"]\n'
    )
    from qrels_lsp.core.project.config import load_config as load

    config = load(root)
    assert any(f.code == "QR401" for f in config.findings)


def test_a_fusion_fuses_at_most_a_hundred_runs(tmp_path: Path) -> None:
    many = ", ".join(["lists"] * 101)
    root = workspace(tmp_path, f"fusions: [{{name: f, method: rrf, runs: [{many}]}}]")
    assert any("at most 100" in message for _text, message in at(analyse(root), "QR004"))


def test_a_chunk_pattern_too_large_for_re2_is_refused(tmp_path: Path) -> None:
    from qrels_lsp.core.chunks import rule_problem

    assert "too large" in (rule_problem(None, "(?P<doc>.{1000}.{1000}.{1000})") or "")
    assert rule_problem(None, r"(?P<doc>.+)#\d+") is None


@pytest.mark.parametrize("name", ["BM25", "plain.trec", "Lists"])
def test_a_name_any_run_answers_to_is_taken(tmp_path: Path, name: str) -> None:
    root = workspace(tmp_path, f"fusions: [{{name: {name}, method: rrf, runs: [lists, plain]}}]")
    assert at(analyse(root), "QR119"), name


def test_a_streamed_run_a_fusion_names_is_read_whole(tmp_path: Path) -> None:
    """On the command line a run larger than `stream_over` is streamed; one a fusion names is
    read whole instead, so the fused run has its rankings (streamed, it would fuse as empty)."""
    root = workspace(tmp_path, "fusions: [{name: f, method: rrf, runs: [lists, plain]}]")
    config = load_config(root)
    whole = Project(config, boundary=Boundary.of([root]))
    streamed = Project(config, boundary=Boundary.of([root]), stream_over=10)
    results = []
    for project in (whole, streamed):
        analysis = project.analyse(root / "g.qrels.yaml")
        assert analysis is not None
        results.append({r.name: r.rankings for r in analysis.runs if r.fusion is not None})
    assert results[0] == results[1] and results[0]["f"]


def test_a_fusion_waits_for_a_run_file_still_loading_not_for_the_baseline(tmp_path: Path) -> None:
    """`bm25` names the file bm25.trec when there is one: while the editor is still reading it
    (a large run is read after the golden set's own findings), the fusion waits for it rather
    than take the BM25 baseline."""
    root = workspace(tmp_path, "fusions: [{name: hybrid, method: rrf, runs: [bm25, lists]}]")
    lines = "".join(
        f"q{q} Q0 d{i:06d} {i} {100000 - i} t\n" for q in (1, 2) for i in range(1, 20000)
    )
    (root / "runs" / "bm25.trec").write_text("q1 Q0 pairing.md 1 200000 t\n" + lines)
    from qrels_lsp.core.project.pending import read_pending

    project = Project(load_config(root), boundary=Boundary.of([root]), build_indexes=True)
    first = project.analyse(root / "g.qrels.yaml", defer=True)
    assert first is not None and first.pending and first.pending.runs
    assert "hybrid" not in [r.name for r in first.runs]  # waiting, not made from the baseline
    project.provide(read_pending(first.pending))
    second = project.analyse(root / "g.qrels.yaml", defer=True)
    assert second is not None
    hybrid = next(r for r in second.runs if r.name == "hybrid")
    assert hybrid.rankings["q1"][0] == "pairing.md"  # the file's first document, fused


def test_renaming_a_fusion_keeps_no_fuser_of_the_old_names(tmp_path: Path) -> None:
    root = workspace(tmp_path, "fusions: [{name: f, method: rrf, runs: [lists, plain]}]")
    project = Project(load_config(root), boundary=Boundary.of([root]))
    golden = root / "g.qrels.yaml"
    for name in ("f", "fu", "fus", "fusi"):
        golden.write_text(
            GOLDEN.format(keys=f"fusions: [{{name: {name}, method: rrf, runs: [lists, plain]}}]")
        )
        project.forget(golden)
        assert project.analyse(golden) is not None
    assert [k[1] for k in project.derived._fusers] == ["fusi"]


def test_fuse_takes_finite_numbers_only(tmp_path: Path) -> None:
    root = workspace(tmp_path, "")
    for flags in (["--method", "wsum", "--weights", "nan,1"], ["--k", "inf"]):
        r = subprocess.run(
            [*CLI, "fuse", root / "runs" / "scores.run.yaml", root / "runs" / "plain.trec", *flags, "-o", tmp_path / "f.trec"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert r.returncode == 2, (flags, r.stderr)
