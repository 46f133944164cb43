"""Core edits for judging and renaming, and completion candidates, without a server.

Every edit is applied and the result re-read with yaml.safe_load (or str.split for TREC), and the
text outside the intended change is compared byte for byte.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import EXAMPLES
from fixtures import apply_edits
from lsp.applyedits import changed_lines as diff
from qrels_lsp.core.base.text import Span
from qrels_lsp.core.formats import EditRefused as JudgeError
from qrels_lsp.core.formats import beir_qrels, trec_qrels
from qrels_lsp.core.formats.corpus import load_corpus
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.golden_write import add_judgment as judge_golden
from qrels_lsp.core.formats.yaml.scalar import yaml_scalar
from qrels_lsp.core.search.indexes import IndexCache
from qrels_lsp.core.search.tokens import tokenize
from qrels_lsp.ide.completion import NOT_READY, Request, complete
from qrels_lsp.ide.rename import RenameError, RenameTarget, query_id_at, rename_query
from rank_bm25 import BM25Okapi


def judge_trec(text: str, qid: str, doc: str, grade: int, *, beir: bool = False) -> list:  # type: ignore[type-arg]
    """The judge edit of a TREC (or BEIR) qrels file, as the format registry offers it."""
    return (beir_qrels if beir else trec_qrels).add_judgment(text, qid, doc, grade)


# -- judge ---------------------------------------------------------------------------------------

GOLDEN = """\
corpus: corpus/
queries:
  flow:  # c
    relevant: [a, 'b']  # keep
  empty-flow:
    relevant: []
  block:
    relevant:
      - a   # one
      - b
  compact:
    relevant:
    - a
  fmap:
    relevant: {a: 2}
  bmap:
    relevant:
      a: 3
  null-rel:
    relevant:
  tilde:
    relevant: ~
  bare:
  none:
    question: x  # q
  flowq: {question: y}
"""

CASES = [
    ("flow", 1, ["    relevant: [a, 'b']  # keep\n"], ["    relevant: [a, 'b', new]  # keep\n"]),
    (
        "flow",
        2,
        ["    relevant: [a, 'b']  # keep\n"],
        ["    relevant: {a: 1, 'b': 1, new: 2}  # keep\n"],
    ),
    ("empty-flow", 1, ["    relevant: []\n"], ["    relevant: [new]\n"]),
    ("empty-flow", 3, ["    relevant: []\n"], ["    relevant: {new: 3}\n"]),
    ("block", 1, [], ["      - new\n"]),
    (
        "block",
        0,
        ["      - a   # one\n", "      - b\n"],
        ["      a: 1   # one\n", "      b: 1\n", "      new: 0\n"],
    ),
    ("compact", 1, [], ["    - new\n"]),
    ("compact", 2, ["    - a\n"], ["      a: 1\n", "      new: 2\n"]),
    ("fmap", 1, ["    relevant: {a: 2}\n"], ["    relevant: {a: 2, new: 1}\n"]),
    ("bmap", 2, [], ["      new: 2\n"]),
    ("null-rel", 1, ["    relevant:\n"], ["    relevant: [new]\n"]),
    ("tilde", 2, ["    relevant: ~\n"], ["    relevant: {new: 2}\n"]),
    ("bare", 1, [], ["    relevant: [new]\n"]),
    ("none", 2, [], ["    relevant: {new: 2}\n"]),
    ("flowq", 1, ["  flowq: {question: y}\n"], ["  flowq: {question: y, relevant: [new]}\n"]),
]


@pytest.mark.parametrize(("qid", "grade", "removed", "added"), CASES)
def test_judge_golden(qid: str, grade: int, removed: list[str], added: list[str]) -> None:
    after = apply_edits(GOLDEN, judge_golden(GOLDEN, qid, "new", grade))
    assert diff(GOLDEN, after) == (removed, added)
    before_q = yaml.safe_load(GOLDEN)["queries"]
    after_q = yaml.safe_load(after)["queries"]
    rel = (before_q[qid] or {}).get("relevant") or []
    if isinstance(rel, list):
        want = [*rel, "new"] if grade == 1 else {**dict.fromkeys(rel, 1), "new": grade}
    else:
        want = {**rel, "new": grade}
    assert after_q[qid]["relevant"] == want
    assert {q: v for q, v in after_q.items() if q != qid} == {
        q: v for q, v in before_q.items() if q != qid
    }


def test_judge_quotes_ids_that_need_it_and_keeps_crlf() -> None:
    text = GOLDEN.replace("\n", "\r\n")
    after = apply_edits(text, judge_golden(text, "block", "kb/a: b #1", 1))
    assert after == text.replace("      - b\r\n", '      - b\r\n      - "kb/a: b #1"\r\n')
    after = apply_edits(text, judge_golden(text, "flow", "x,y", 1))
    assert yaml.safe_load(after)["queries"]["flow"]["relevant"] == ["a", "b", "x,y"]
    assert after == text.replace("[a, 'b']", "[a, 'b', \"x,y\"]")


@pytest.mark.parametrize(
    "value", ["kb/a.md", "true", "1", "null", "- x", "a: b", "a #b", "é/路由器.md", "'q'", "x,y"]
)
def test_yaml_scalar_round_trips(value: str) -> None:
    for flow in (False, True):
        written = yaml_scalar(value, flow=flow)
        assert yaml.safe_load(f"k: [{written}]" if flow else f"k: {written}")["k"] in (
            value,
            [value],
        )


def test_judge_refuses_what_it_cannot_edit_minimally() -> None:
    with pytest.raises(JudgeError, match="syntax error"):
        judge_golden("queries:\n  a: [\n", "a", "x", 1)
    with pytest.raises(JudgeError, match="not in the golden set"):
        judge_golden(GOLDEN, "missing", "x", 1)
    with pytest.raises(JudgeError, match="not a list or a mapping"):
        judge_golden("queries:\n  a:\n    relevant: x\n", "a", "y", 1)


def test_judge_trec_and_beir_append_one_line() -> None:
    assert apply_edits("q 0 d 1\n", judge_trec("q 0 d 1\n", "q", "e", 2)) == "q 0 d 1\nq 0 e 2\n"
    assert apply_edits("q 0 d 1", judge_trec("q 0 d 1", "q", "e", 0)) == "q 0 d 1\nq 0 e 0\n"
    beir = "query-id\tcorpus-id\tscore\r\nq\td\t1\r\n"
    assert apply_edits(beir, judge_trec(beir, "q", "e", 1, beir=True)) == beir + "q\te\t1\r\n"


# -- rename --------------------------------------------------------------------------------------

R_GOLDEN = "queries:\n  old:  # c\n    question: x\n  other:\n    relevant: [a]\n"
R_RUN = "results:\n  'old': [a]\n  other: [b]\n"
R_TREC = "old Q0 a 1 1.0 t\nother Q0 b 1 1.0 t\n  old\tQ0 c 2 0.5 t\n"
R_QRELS = "old 0 a 1\nother 0 b 1\n"


def targets() -> list[RenameTarget]:
    return [
        RenameTarget(Path("/x/g.qrels.yaml"), "golden", R_GOLDEN),
        RenameTarget(Path("/x/r.run.yaml"), "run-yaml", R_RUN),
        RenameTarget(Path("/x/r.trec"), "trec-run", R_TREC),
        RenameTarget(Path("/x/q.qrels"), "trec-qrels", R_QRELS),
    ]


def test_rename_everywhere_minimally() -> None:
    edits = rename_query(targets(), "old", "new-id")
    out = {}
    for t in targets():
        out[t.path.name] = apply_edits(
            t.text, [e for e in edits if e.path == str(t.path)], str(t.path)
        )
    assert out == {
        "g.qrels.yaml": R_GOLDEN.replace("  old:", "  new-id:"),
        "r.run.yaml": R_RUN.replace("'old'", "'new-id'"),
        "r.trec": R_TREC.replace("old Q0", "new-id Q0").replace("  old\t", "  new-id\t"),
        "q.qrels": R_QRELS.replace("old 0", "new-id 0"),
    }


def test_rename_keeps_or_adds_quotes() -> None:
    [edit] = rename_query([targets()[1]], "old", "it's")
    assert apply_edits(R_RUN, [edit], "/x/r.run.yaml") == R_RUN.replace("'old'", "'it''s'")
    [edit] = rename_query([targets()[0]], "old", "true")
    assert yaml.safe_load(apply_edits(R_GOLDEN, [edit], "/x/g.qrels.yaml"))["queries"].keys() == {
        "true",
        "other",
    }


def test_rename_refusals() -> None:
    with pytest.raises(
        RenameError, match=r"`other` is already a query id in g.qrels.yaml \(line 4\)"
    ):
        rename_query(targets(), "old", "other")
    with pytest.raises(RenameError, match="not a valid query id"):
        rename_query(targets(), "old", "two words")
    with pytest.raises(RenameError, match="was not found"):
        rename_query(targets(), "ghost", "x")
    assert rename_query(targets(), "old", "old") == []


def _span(text: str, needle: str, start: int = 0) -> Span:
    i = text.index(needle, start)
    return Span(i, i + len(needle))


def test_query_id_at() -> None:
    old = _span(R_GOLDEN, "old")
    assert query_id_at("golden", R_GOLDEN, old.start + 2) == ("old", old)
    assert query_id_at("golden", R_GOLDEN, old.end) == ("old", old)
    assert query_id_at("golden", R_GOLDEN, R_GOLDEN.index("question") + 2) is None
    quoted = _span(R_RUN, "old")
    assert query_id_at("run-yaml", R_RUN, quoted.start) == ("old", quoted)
    indented = _span(R_TREC, "old", R_TREC.index("\n  old"))
    assert query_id_at("trec-run", R_TREC, indented.start + 1) == ("old", indented)
    assert query_id_at("trec-run", R_TREC, R_TREC.index("Q0")) is None


# -- completion ----------------------------------------------------------------------------------


def _with_empty_relevant(text: str, qid: str) -> tuple[str, int]:
    """The golden set with ``qid``'s `relevant:` emptied to `[]` (and its `unanswerable:` kept),
    the cursor inside the brackets: what a user adding judgments from scratch sees."""
    lines = text.splitlines(keepends=True)
    start = next(
        i for i, line in enumerate(lines) if line == f"  {qid}:\n" or line.startswith(f"  {qid}:  ")
    )
    end = start + 1
    while end < len(lines) and (lines[end].startswith("    ") or not lines[end].strip()):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    block = [
        line
        for line in lines[start:end]
        if not line.startswith("    relevant") and not line.startswith("      ")
    ]
    block.append("    relevant: []\n")
    new = "".join(lines[:start] + block + lines[end:])
    return new, new.index("    relevant: []\n", len("".join(lines[:start]))) + len(
        "    relevant: ["
    )


def test_bm25_first_candidate_figure(tmp_path: Path) -> None:
    text = (EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8")
    corpus = load_corpus(EXAMPLES / "corpus")
    index = IndexCache(tmp_path).build(corpus)
    oracle = BM25Okapi([tokenize(d.searchable_text) for d in corpus.documents()])
    golden = yaml.safe_load(text)["queries"]
    hits = []
    for qid, entry in golden.items():
        new, offset = _with_empty_relevant(text, qid)
        result = complete(
            Request("golden", new, offset, parse_golden(new), corpus=corpus, index=index)
        )
        assert result is not None
        labels = [c.label for c in sorted(result.items, key=lambda c: c.sort_text)]
        scores = oracle.get_scores(tokenize(entry["question"]))
        order = np.lexsort((np.arange(len(corpus.ids)), -scores))
        assert labels == [corpus.ids[i] for i in order]  # rank_bm25's order, ties by corpus order
        relevant = entry.get("relevant") or []
        if labels[0] in relevant:
            hits.append(qid)
    # The figure reported for the demo: 36 questions, 3 unanswerable, 1 with no judgment yet.
    assert len(golden) == 36
    assert len(hits) == 21, hits


def test_without_index_ids_come_alphabetically_and_say_so() -> None:
    corpus = load_corpus(EXAMPLES / "corpus")
    text = "corpus: corpus/\nqueries:\n  a:\n    question: reset\n    relevant: [kb/f"
    result = complete(Request("golden", text, len(text), parse_golden(text), corpus=corpus))
    assert result is not None and result.incomplete
    expected = sorted(d for d in corpus.ids if "kb/f" in d)
    assert [c.label for c in sorted(result.items, key=lambda c: c.sort_text)] == expected
    assert {c.detail for c in result.items} == {NOT_READY}
    assert {c.documentation for c in result.items} == {None}


def test_index_cache_builds_once(tmp_path: Path) -> None:
    corpus = load_corpus(EXAMPLES / "corpus")
    cache = IndexCache(tmp_path)
    assert cache.get(corpus) is None
    assert cache.claim(corpus) is True
    assert cache.claim(corpus) is False  # a second request while building waits for the first
    index = cache.build(corpus)
    assert index is not None and cache.get(corpus) is index
    assert cache.claim(corpus) is False
    assert cache.build(corpus) is index


def test_judging_in_one_entry_is_judging_in_the_whole_file() -> None:
    """add_judgment given a question's entry parses that entry alone: the edits are the very ones
    a parse of the whole golden set gives, for every question and layout of the demo, a new
    document and one judged already (a grade written over)."""
    from conftest import EXAMPLES
    from qrels_lsp.core.formats.golden import parse_golden
    from qrels_lsp.core.formats.golden_write import add_judgment

    text = (EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8")
    qrels = parse_golden(text)
    compared = 0
    for qid, query in qrels.queries.items():
        judged = list(query.grades())
        for doc in ["kb/new-doc.md", *judged[:1]]:
            for grade in (0, 1, 2):
                try:
                    whole = add_judgment(text, qid, doc, grade)
                except Exception as exc:  # refused: refused alike
                    try:
                        add_judgment(text, qid, doc, grade, query.block)
                    except type(exc):
                        continue
                    raise AssertionError((qid, doc, grade)) from exc
                assert add_judgment(text, qid, doc, grade, query.block) == whole, (qid, doc, grade)
                compared += 1
    assert compared > 100
