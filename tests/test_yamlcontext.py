"""Where in the schema a cursor is, on valid and half-typed YAML. ``|`` marks the cursor."""

from __future__ import annotations

import pytest
import yaml
from qrels_lsp.core.formats.yaml.context import context_at, entries_of


def at(marked: str) -> tuple[str, int]:
    off = marked.index("|")
    return marked[:off] + marked[off + 1 :], off


def ctx_tuple(marked: str) -> tuple[object, ...] | None:
    text, off = at(marked)
    c = context_at(text, off)
    if c is None:
        return None
    entries = [(e.role, e.text, e.value) for e in c.entries]
    return (c.path, c.role, text[c.token.start : c.token.end], c.prefix, c.flow, entries)


Q = ("queries", "a", "relevant")

CASES = [
    # half-typed flow list, the rest of the file below it
    (
        "queries:\n  a:\n    question: q\n    relevant: [kb/x.md, kb/fa|\n  b:\n    question: z\n",
        (Q, "item", "kb/fa", "kb/fa", True, [("item", "kb/x.md", None)]),
    ),
    # inside an id of a closed flow list: the whole id is the token
    (
        "queries:\n  a:\n    relevant: [kb/x.md, kb/f|a.md]  # c\n",
        (Q, "item", "kb/fa.md", "kb/f", True, [("item", "kb/x.md", None)]),
    ),
    # flow mapping, key position after a comma
    (
        "queries:\n  a:\n    relevant: {kb/y.md: 2, |}\n",
        (Q, "key", "", "", True, [("key", "kb/y.md", "2")]),
    ),
    # flow mapping: a value position
    ("queries:\n  a:\n    relevant: {kb/y.md: |}\n", ((*Q, "kb/y.md"), "value", "", "", True, [])),
    # block list, dash typed
    (
        "queries:\n  a:\n    relevant:\n      - kb/a.md  # c\n      - kb/|\n  b:\n",
        (Q, "item", "kb/", "kb/", False, [("item", "kb/a.md", None)]),
    ),
    # block list at the key's own indentation
    (
        "queries:\n  a:\n    relevant:\n    - kb/a.md\n    - |\n",
        (Q, "item", "", "", False, [("item", "kb/a.md", None)]),
    ),
    # block mapping of grades, a key being typed
    (
        "queries:\n  a:\n    relevant:\n      kb/a.md: 3\n      kb|\n",
        (Q, "key", "kb", "kb", False, [("key", "kb/a.md", "3")]),
    ),
    # query keys
    (
        "queries:\n  a:\n    question: q\n    rel|\n",
        (("queries", "a"), "key", "rel", "rel", False, [("key", "question", "q")]),
    ),
    # top-level keys, a blank line between two keys
    (
        "corpus: x  # c\n|\nqueries:\n  a:\n",
        ((), "key", "", "", False, [("key", "corpus", "x"), ("key", "queries", None)]),
    ),
    # a scalar value
    (
        "queries:\n  a:\n    question: wh|at now\n",
        (("queries", "a", "question"), "value", "what", "wh", False, []),
    ),
    # runs: query key, ranking item (block and flow)
    (
        "results:\n  a:\n    - kb/a.md\n  |\n",
        (("results",), "key", "", "", False, [("key", "a", None)]),
    ),
    (
        "results:\n  a: [kb/a.md, |]\n",
        (("results", "a"), "item", "", "", True, [("item", "kb/a.md", None)]),
    ),
    # emoji and CJK keys and ids
    (
        "queries:\n  q😀:\n    question: 路由器😀\n    relevant: [kb/路|由器.md]  # 😀\n",
        (("queries", "q😀", "relevant"), "item", "kb/路由器.md", "kb/路", True, []),
    ),
    # a quoted id being typed: the token starts after the quote
    ("queries:\n  a:\n    relevant: ['kb/a|\n", (Q, "item", "kb/a", "kb/a", True, [])),
    # a flow list over several lines, cursor on the continuation line
    (
        "queries:\n  a:\n    relevant: [kb/a.md,\n      kb/b.md, |\n    question: x\n",
        (Q, "item", "", "", True, [("item", "kb/a.md", None), ("item", "kb/b.md", None)]),
    ),
    # block scalars are text, not keys
    (
        "queries:\n  a:\n    notes: >\n      relevant: not a key\n    |\n",
        (("queries", "a"), "key", "", "", False, [("key", "notes", ">")]),
    ),
]


@pytest.mark.parametrize(("marked", "expected"), CASES)
def test_context(marked: str, expected: tuple[object, ...]) -> None:
    assert ctx_tuple(marked) == expected


@pytest.mark.parametrize(
    "marked",
    [
        "queries:\n  a:\n    relevant: [kb/a.md]  # co|mment\n",
        "# a comment |here\nqueries:\n",
        "queries:\n  a:\n    relevant: [kb/a.md]|\n",
    ],
)
def test_no_context(marked: str) -> None:
    assert ctx_tuple(marked) is None


def test_entries_with_spans_and_quotes() -> None:
    text = "results:\n  \"q 1\": [a]\n  'it''s':\n    - b\n  plain: {c: 1}\n"
    got = [(e.text, text[e.span.start : e.span.end]) for e in entries_of(text, ("results",))]
    assert got == [("q 1", "q 1"), ("it's", "it''s"), ("plain", "plain")]


def test_the_demo_golden_set_reads_like_the_parser() -> None:
    from conftest import EXAMPLES
    from qrels_lsp.core.formats.golden import parse_golden

    text = (EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8")
    model = parse_golden(text)
    keys = entries_of(text, ("queries",))
    assert [e.text for e in keys] == list(model.queries)
    assert [e.span for e in keys] == [q.span for q in model.queries.values()]
    oracle = yaml.safe_load(text)["queries"]
    for qid, query in model.queries.items():
        rel = entries_of(text, ("queries", qid, "relevant"))
        assert [e.text for e in rel] == list((oracle[qid] or {}).get("relevant") or [])
        # the parser drops the judgment whose grade is the string "2"; the spans of the rest agree
        spans = {j.doc_id: j.span for j in query.judgments}
        assert [e.span for e in rel if e.text in spans] == [j.span for j in query.judgments]
