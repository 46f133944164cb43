"""core.locate: what is under the cursor, with exact spans, in every file format.

Fixtures mark the expected span with ``⟦`` and ``⟧``; every offset inside the span (both ends
included, as editors place cursors) must locate it, and the offsets just outside must not.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.text import Span
from qrels_lsp.core.formats.beir_qrels import parse_beir_qrels
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.run_yaml import parse_run_yaml
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels
from qrels_lsp.core.formats.trec_run import parse_trec_run
from qrels_lsp.core.model import Qrels, Run
from qrels_lsp.core.project.config import Config
from qrels_lsp.core.project.project import Project
from qrels_lsp.ide.locate import (
    Target,
    citations,
    family,
    in_range,
    locate,
    queries_in,
    query_span,
    rank_of,
)

ANYWHERE = Boundary.everywhere()  # these tests are not about the workspace boundary

EXAMPLES = Path(__file__).resolve().parents[1] / "server" / "qrels_lsp" / "examples"


def marked(text: str) -> tuple[str, Span]:
    if "⟦" not in text:
        return text, Span(0, 0)
    start = text.index("⟦")
    end = text.index("⟧") - 1
    return text.replace("⟦", "").replace("⟧", ""), Span(start, end)


def assert_located(model: Qrels | Run, text: str, span: Span, want: Target) -> None:
    assert want.span == span
    for offset in range(span.start, span.end + 1):
        assert locate(model, offset, text) == want, offset
    for offset in (span.start - 1, span.end + 1):
        got = locate(model, offset, text)
        assert got is None or got.span != span, offset


GOLDEN = (
    "corpus: corpus/\n"
    "k: 5\n"
    "queries:\n"
    "  {q}:\n"
    "    question: 路由器😀 wifi 🙂 どうやって\n"
    "    relevant: {{{a}: 2, {b}: 0}}  # 😀\n"
    "  other:\n"
    "    relevant: [{c}]\n"
)


def golden(**marks: str) -> tuple[str, Span]:
    values = {"q": "q😀", "a": "kb/路由器.md", "b": "kb/b.md", "c": "kb/路由器.md"}
    values.update(marks)
    return marked(GOLDEN.format(**values))


def test_golden_query_id_after_emoji() -> None:
    text, span = golden(q="⟦q😀⟧")
    assert_located(parse_golden(text), text, span, Target("query", span, qid="q😀"))


def test_golden_judged_ids_with_grades() -> None:
    text, span = golden(a="⟦kb/路由器.md⟧")
    want = Target("judged", span, qid="q😀", doc_id="kb/路由器.md", grade=2)
    assert_located(parse_golden(text), text, span, want)
    text, span = golden(b="⟦kb/b.md⟧")
    assert_located(
        parse_golden(text), text, span, Target("judged", span, qid="q😀", doc_id="kb/b.md", grade=0)
    )
    text, span = golden(c="⟦kb/路由器.md⟧")
    want = Target("judged", span, qid="other", doc_id="kb/路由器.md", grade=1)
    assert_located(parse_golden(text), text, span, want)


def test_golden_question_and_comment_are_nothing() -> None:
    text, _ = golden()
    model = parse_golden(text)
    assert locate(model, text.index("wifi"), text) is None
    assert locate(model, text.index("# 😀") + 2, text) is None
    assert locate(model, text.index("queries"), text) is None


def test_golden_file_keys_are_the_summary() -> None:
    text, span = marked(GOLDEN.replace("k: 5", "k: ⟦5⟧").format(q="q", a="a", b="b", c="c"))
    assert locate(parse_golden(text), span.start, text) == Target("summary", span)
    text, span = marked("corpus: ⟦corpus/⟧\nruns: [r.run.yaml]\nqueries: {}\n")
    assert locate(parse_golden(text), span.end, text) == Target("summary", span)
    text, span = marked("corpus: corpus/\nruns: [⟦r.run.yaml⟧]\nqueries: {}\n")
    assert locate(parse_golden(text), span.start + 1, text) == Target("summary", span)


RUN_LIST = "qrels: g.qrels.yaml\nname: ⟦x⟧\nresults:\n  {q}:\n    - {a}\n    - {b}  # 🙂\n"


def test_run_list_ranks_and_query() -> None:
    text, span = marked(RUN_LIST.format(q="q😀", a="a", b="⟦kb/路由器.md⟧").replace("⟦x⟧", "x"))
    want = Target("retrieved", span, qid="q😀", doc_id="kb/路由器.md", rank=2)
    assert_located(parse_run_yaml(text), text, span, want)
    text, span = marked(RUN_LIST.format(q="⟦q😀⟧", a="a", b="b").replace("⟦x⟧", "x"))
    assert_located(parse_run_yaml(text), text, span, Target("query", span, qid="q😀"))
    text, span = marked(RUN_LIST.format(q="q", a="a", b="b"))
    assert locate(parse_run_yaml(text), span.start, text) == Target("summary", span)


def test_run_scores_rank_in_trec_eval_order() -> None:
    """A mapping is ranked by score, ties by id descending: the written order does not count."""
    text, span = marked("results:\n  q:\n    ⟦a⟧: 0.5\n    b: 0.9\n    c: 0.5\n")
    want = Target("retrieved", span, qid="q", doc_id="a", rank=3)
    assert_located(parse_run_yaml(text), text, span, want)
    assert rank_of(parse_run_yaml(text), "q", "c") == 2
    assert rank_of(parse_run_yaml(text), "q", "zzz") is None
    assert rank_of(parse_run_yaml(text), "nope", "a") is None
    assert rank_of(None, "q", "a") is None


TREC_RUN = "q1 Q0 d1 1 0.9 t\nq2 Q0 d9 1 0.8 t\n{q} Q0 {d} 2 0.95 t\n"


def test_trec_run_every_line_locates_its_query() -> None:
    text, span = marked(TREC_RUN.format(q="⟦q1⟧", d="d2"))
    assert_located(parse_trec_run(text), text, span, Target("query", span, qid="q1"))
    text, span = marked(TREC_RUN.format(q="q1", d="⟦d2⟧"))
    # d2 scores higher than d1, so trec_eval ranks it first whatever the rank column says.
    want = Target("retrieved", span, qid="q1", doc_id="d2", rank=1)
    assert_located(parse_trec_run(text), text, span, want)
    text, _ = marked(TREC_RUN.format(q="q1", d="⟦d2⟧"))
    assert locate(parse_trec_run(text), text.index("Q0"), text) is None
    assert locate(parse_trec_run(text), text.index("0.9"), text) is None


def test_trec_run_crlf_and_cr_lines() -> None:
    for br in ("\r\n", "\r"):
        text, span = marked(f"q1 Q0 d1 1 0.9 t{br}  ⟦q1⟧ Q0 d2 2 0.8 t{br}")
        assert_located(parse_trec_run(text), text, span, Target("query", span, qid="q1"))


def test_trec_and_beir_qrels() -> None:
    text, span = marked("q1 0 d1 1\n⟦q1⟧ 0 d2 0\n")
    assert_located(parse_trec_qrels(text), text, span, Target("query", span, qid="q1"))
    text, span = marked("q1 0 d1 1\nq1 0 ⟦d2⟧ 0\n")
    want = Target("judged", span, qid="q1", doc_id="d2", grade=0)
    assert_located(parse_trec_qrels(text), text, span, want)
    text, span = marked(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\n⟦q1⟧\t⟦d3⟧\t2\n".replace("⟦d3⟧", "d3")
    )
    assert_located(parse_beir_qrels(text), text, span, Target("query", span, qid="q1"))
    assert locate(parse_beir_qrels(text), text.index("score"), text) is None


def test_citations_and_query_spans() -> None:
    text = "queries:\n  a:\n    relevant: [d1, d2]\n  b:\n    relevant: {d2: 3}\n"
    model = parse_golden(text)
    got = [(text[c.span.start : c.span.end], c.qid) for c in citations(model, "d2")]
    assert got == [("d2", "a"), ("d2", "b")]
    assert [c.span for c in citations(model, "d2")][1] == Span(
        text.index("{d2") + 1, text.index("{d2") + 3
    )
    span = query_span(model, "b")
    assert span is not None and text[span.start : span.end] == "b"
    run_text = "results:\n  b: [d2, d1]\n  a: [d3]\n"
    run = parse_run_yaml(run_text)
    assert [c.qid for c in citations(run, "d2")] == ["b"]
    assert list(citations(run, "d9")) == []
    assert query_span(run, "zzz") is None


def test_in_range_touching_windows() -> None:
    assert in_range(Span(5, 8), Span(0, 5))
    assert in_range(Span(5, 8), Span(8, 20))
    assert not in_range(Span(5, 8), Span(9, 20))
    assert not in_range(Span(5, 8), Span(0, 4))


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    import shutil

    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    return root


def test_family_of_a_run_and_of_the_golden_set(demo: Path) -> None:
    project = Project(Config(root=demo), boundary=ANYWHERE)
    run = project.analyse(demo / "runs" / "dense.run.yaml")
    assert run is not None
    golden, runs = family(project, run)
    assert golden is not None and golden.path == (demo / "support.qrels.yaml").resolve()
    assert [r.name for r in runs] == ["bm25", "dense", "passages", "hybrid"]
    dense = next(r for r in runs if r.name == "dense")
    assert dense.text == run.text and dense.model is run.model
    g = project.analyse(demo / "support.qrels.yaml")
    assert g is not None
    golden2, runs2 = family(project, g)
    assert golden2 is not None and golden2.model is g.model
    assert [r.path for r in runs2] == [r.path for r in runs]


def test_family_of_an_unbound_run(tmp_path: Path) -> None:
    path = tmp_path / "alone.run.yaml"
    path.write_text("results:\n  q: [a]\n", encoding="utf-8")
    project = Project(Config(root=tmp_path), boundary=ANYWHERE)
    analysis = project.analyse(path)
    assert analysis is not None and analysis.context is None
    golden, runs = family(project, analysis)
    assert golden is None and [r.name for r in runs] == ["alone"]


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(0, 6000), st.integers(0, 400), st.booleans())
def test_queries_in_a_window_are_those_a_pass_finds(start: int, width: int, shifted: bool) -> None:
    """The binary search over a golden set's entries finds what looking at every query finds,
    at the edges too, and in entries moved by an edit (lazily shifted queries)."""
    text = (EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8")
    golden = parse_golden(text)
    if shifted:  # as after an edit: every entry moved, spans worked out when read
        golden.queries = {qid: q.shifted(7) for qid, q in golden.queries.items()}
    window = Span(start, start + width)
    expected = [q for q in golden.queries.values() if in_range(q.block, window)]
    assert queries_in(golden, window) == expected
