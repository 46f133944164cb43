"""A question's `tags:` (issue 17): parsed as a list of names, checked, completed."""

from __future__ import annotations

from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.ide.completion import Request, complete

GOLDEN = """queries:
  q1:
    question: how do I pay
    tags: [billing, critical, billing]
    relevant: [a]
  q2:
    question: where is it
    tags: critical
    relevant: [b]
  q3:
    question: why
    tags: [{x: 1}]
    relevant: [c]
"""


def test_tags_are_a_list_of_names() -> None:
    qrels = parse_golden(GOLDEN)
    assert qrels.queries["q1"].tags == ("billing", "critical")  # each once
    assert qrels.queries["q2"].tags == ()
    assert qrels.queries["q3"].tags == ()
    found = [(f.code, GOLDEN[f.span.start : f.span.end]) for f in qrels.findings]
    assert ("QR004", "critical") in found  # a bare name: write [critical]
    assert any(code == "QR004" and text.startswith("{x") for code, text in found)
    assert "[critical]" in next(f.message for f in qrels.findings if "tags" in f.message)


def test_tags_survive_an_edit_elsewhere() -> None:
    qrels = parse_golden(GOLDEN)
    shifted = qrels.queries["q1"].shifted(5)
    assert shifted.tags == ("billing", "critical") and shifted == shifted


def test_tags_complete_from_the_other_questions_and_critical() -> None:
    text = "queries:\n  q1:\n    tags: [billing]\n    relevant: [a]\n  q2:\n    tags: [bi"
    got = complete(Request(kind="golden", text=text, offset=len(text), qrels=parse_golden(text)))
    assert got is not None
    assert [c.label for c in got.items] == ["billing", "critical"]
    assert got.items[0].edit.new_text == "billing"
    key = "queries:\n  q1:\n    question: x\n    ta"
    keys = complete(Request(kind="golden", text=key, offset=len(key), qrels=parse_golden(key)))
    assert keys is not None and "tags" in [c.label for c in keys.items]
