"""A TREC run streamed a chunk at a time (core/formats/trec_stream.py, what `score` does with a
run too large to hold) is read and scored exactly as the whole text is: on generated runs with
every reading trec_eval has an opinion on, grouped by query or not, cut into chunks of a few
bytes; and through the project, whose `score` of a streamed run equals the one read whole
(tests/test_trec_eval_diff.py holds both to trec_eval 10 itself)."""

from __future__ import annotations

from pathlib import Path

from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.files import read_text
from qrels_lsp.core.base.findings import dropping
from qrels_lsp.core.formats.trec_qrels import read_trec_qrels_grades
from qrels_lsp.core.formats.trec_run import parse_trec_run, read_trec_run_ids, trec_run_tag
from qrels_lsp.core.formats.trec_stream import StreamStats, stream_rankings
from qrels_lsp.core.metrics import Metric, evaluate, evaluate_stream
from qrels_lsp.core.project.config import Config
from qrels_lsp.core.project.project import Project

SETTINGS = settings(
    max_examples=examples(200),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
QIDS = st.sampled_from([b"q1", b"q2", b"10", b"\xe6\x96\x87", b"q\xff", b"#c", b""])
DOCS = st.sampled_from([b"d1", b"d2", b"d3", b"D1", b"\xc3\xa9", b"d\xff", b"d1", b"d\xc2\xa0x"])
TAGS = st.sampled_from([b"tag", b"t2", b"t\xc2\xa0x", b"t\x1cx"])  # (no blanks to trec_eval)
SCORES = st.sampled_from([b"1", b"2.5", b"0x1p1", b"nan", b"-inf", b"1e", b"3abc", b".5", b"1_0"])
SEP = st.sampled_from([b" ", b" ", b"\t", b"  ", b"\x0b", b"\r"])
END = st.sampled_from([b"\n", b"\n", b"\r\n", b" \n"])
METRICS = [Metric("recall", 2), Metric("ndcg", 3), Metric("map"), Metric("mrr")]


@st.composite
def run_bytes(draw: st.DrawFn) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 30))):
        fields = [draw(QIDS), b"Q0", draw(DOCS), b"1", draw(SCORES), draw(TAGS)]
        fields = fields[: draw(st.sampled_from([6, 6, 6, 6, 5, 7]))]
        lines.append(draw(SEP).join(fields) + draw(END))
    if draw(st.booleans()):
        lines.sort(key=lambda line: line.split(None, 1)[:1])  # grouped by query, as runs are
    data = b"".join(lines)
    return (b"\xef\xbb\xbf" if draw(st.booleans()) and draw(st.booleans()) else b"") + data


def merged(chunks: list[dict[str, list[str]]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for chunk in chunks:
        out.update(chunk)
    return out


@SETTINGS
@given(run_bytes(), st.integers(1, 80))
def test_a_streamed_run_reads_as_the_whole_text(tmp_path: Path, data: bytes, chunk: int) -> None:
    path = tmp_path / "run.trec"
    path.write_bytes(data)
    text, _ = read_text(path)
    assert text is not None
    whole = read_trec_run_ids(text)
    stats = StreamStats()
    chunks = list(stream_rankings(path, stats, chunk))
    assert merged(chunks) == whole
    assert list(merged(chunks)) == list(whole)  # queries in the order they are first given
    assert stats.tag == trec_run_tag(text)
    assert bool(stats.dropped) <= bool(dropping(parse_trec_run(text).findings))
    # each drop located in the whole file, where the whole text's reading finds it
    whole_drops = {(f.code, f.span) for f in dropping(parse_trec_run(text).findings)}
    assert {(f.code, f.span) for f in stats.dropped} <= whole_drops
    grades = {"q1": {"d1": 1, "d2": 0}, "10": {"d3": 2}, "zz": {"d1": 1}}
    assert evaluate_stream(grades, chunks, METRICS) == evaluate(grades, whole, METRICS)


def test_what_cannot_be_read_is_said(tmp_path: Path) -> None:
    binary = tmp_path / "bin.trec"
    binary.write_bytes(b"q1 Q0 d1 1 2 t\n\x00\x01")
    stats = StreamStats()
    assert list(stream_rankings(binary, stats, 8)) == []
    assert stats.error == "a binary file (it holds NUL bytes)"
    stats = StreamStats()
    assert list(stream_rankings(tmp_path, stats, 8)) == []
    assert stats.error == "skipped: a folder"


def test_the_project_scores_a_streamed_run_as_a_run_read_whole(tmp_path: Path) -> None:
    lines = [
        f"{q} Q0 d{d} {r} {100 - r}.5 mytag\n"
        for q in range(40)
        for r, d in enumerate(range(q, q + 30))
    ]
    lines.insert(500, "7 Q0 d900 1 200 mytag\n")  # query 7 given again, later
    lines.insert(300, "bad line\n")
    run = tmp_path / "run.trec"
    run.write_text("".join(lines))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d{q + 3} 1\n{q} 0 d900 2\n" for q in range(45)))
    text = qrels.read_text()
    results = {}
    for stream_over in (None, 64):
        project = Project(
            Config(root=tmp_path), boundary=Boundary.of([tmp_path]), stream_over=stream_over
        )
        _kind, _text, model, _error = project.load(qrels)
        assert model is not None
        ctx = project.context(qrels, "trec-qrels", model)  # type: ignore[arg-type]
        result = project.scoring.score_run(ctx, run, fast=True)
        entries = sum(map(len, result.rankings.values())) if stream_over is None else None
        dropped = [(f.code, f.span) for f in project.runs.dropped(run, "run", entries)]
        results[stream_over] = (
            result.evaluation,
            result.error,
            project.runs.runid(result),
            dropped,
        )
    assert results[None] == results[64]  # the drop where it is in the file, streamed or not
    [(code, span)] = results[64][3]
    assert results[64][2] == "mytag" and code == "QR301"
    assert run.read_text()[span.start - 8 : span.start] == "bad line"  # (the missing column)
    assert read_trec_qrels_grades(text)["7"] == {"d10": 1, "d900": 2}


def test_a_streamed_run_is_cut_as_a_run_read_whole(tmp_path: Path) -> None:
    """`score -M N -J` on a run too large to hold: each part is cut as the whole run is."""
    from dataclasses import replace

    from qrels_lsp.core.metrics import RunCut

    run = tmp_path / "run.trec"
    run.write_text(
        "".join(f"{q} Q0 d{d} {d} {50 - d} t\n" for q in range(20) for d in range(q % 7, 30))
    )
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(f"{q} 0 d{d} {d % 3 - 1}\n" for q in range(20) for d in range(0, 30, 4))
    )
    evaluations = {}
    for stream_over in (None, 64):
        project = Project(
            Config(root=tmp_path), boundary=Boundary.of([tmp_path]), stream_over=stream_over
        )
        _kind, _text, model, _error = project.load(qrels)
        assert model is not None
        ctx = project.context(qrels, "trec-qrels", model)  # type: ignore[arg-type]
        ctx = replace(ctx, metrics=[*METRICS, Metric("judged", 5)], cut=RunCut(4, True))
        evaluations[stream_over] = project.scoring.score_run(ctx, run, fast=True).evaluation
    assert evaluations[None] == evaluations[64]
    assert evaluations[None].per_query["3"]["judged@5"] == 1.0  # -J: what is left is judged
