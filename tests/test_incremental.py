"""Incremental re-parsing gives exactly what a full parse gives, or declines."""

from __future__ import annotations

import random

import pytest
from conftest import EXAMPLES, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.model import Qrels
from qrels_lsp.core.project.incremental import diff, reparse

DEMO = (EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8")


def same(a: Qrels, b: Qrels) -> None:
    assert list(a.queries) == list(b.queries)
    for qid in a.queries:
        assert a.queries[qid] == b.queries[qid], qid
    key = lambda f: (f.span.start, f.code, f.message)  # noqa: E731
    assert sorted(a.findings, key=key) == sorted(b.findings, key=key)
    assert (a.corpus, a.k, a.k_span, a.runs) == (b.corpus, b.k, b.k_span, b.runs)


def check(old: str, new: str) -> bool:
    before = parse_golden(old)
    result = reparse(old, before, new)
    if result is None:
        return False
    model, edit = result
    same(model, parse_golden(new))
    if edit is not None:  # what the caches are told: one query, and how the rest moved
        assert edit.before is before and edit.qid in model.queries
        for qid, q in model.queries.items():
            if qid != edit.qid:
                old_q = before.queries[qid]
                assert (q.question, q.unanswerable, q.grades()) == (
                    old_q.question,
                    old_q.unanswerable,
                    old_q.grades(),
                )
                moved = edit.delta if old_q.span.start >= edit.end else 0
                assert q.span.start == old_q.span.start + moved
    return True


def test_diff() -> None:
    e = diff("abcdef", "abXdef")
    assert e is not None and (e.start, e.old_end, e.delta) == (2, 3, 0)
    e = diff("aaaa", "aaaaa")
    assert e is not None and e.delta == 1 and e.old_end == e.start
    assert diff("x", "x") is None


@settings(max_examples=examples(300), deadline=None)
@given(
    st.integers(0, 3 * 2**14),
    st.integers(0, 5),
    st.text(alphabet="ab\n", max_size=6),
    st.sampled_from(["ab", "a", "ab\n"]),
)
def test_diff_finds_the_smallest_region_in_long_texts(
    at: int, removed: int, inserted: str, unit: str
) -> None:
    """The common ends are found chunk by chunk and then by halving: compare with a plain scan
    on texts longer than a chunk, edited anywhere (repetitive text makes the ends ambiguous)."""
    old = unit * (3 * 2**14 // len(unit))
    at = min(at, len(old))
    new = old[:at] + inserted + old[at + removed :]
    e = diff(old, new)
    if old == new:
        assert e is None
        return
    assert e is not None
    prefix = next(
        (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
        min(len(old), len(new)),
    )
    rest = min(len(old), len(new)) - prefix
    pairs = zip(reversed(old), reversed(new), strict=False)
    suffix = next((i for i, (a, b) in enumerate(pairs) if a != b or i >= rest), rest)
    assert (e.start, e.old_end, e.delta) == (prefix, len(old) - suffix, len(new) - len(old))


def test_typing_a_question_is_incremental_and_exact() -> None:
    at = DEMO.index("question:", 2000) + len("question: ")
    text = DEMO
    incremental = 0
    for ch in "really ":
        new = text[:at] + ch + text[at:]
        incremental += check(text, new)
        text, at = new, at + 1
    assert incremental == len("really ")


def test_edits_that_change_structure_decline_or_agree() -> None:
    relevant = DEMO.index("relevant: [kb/local-admin-page.md]")
    cases = [
        DEMO[:relevant]
        + "relevant: [kb/local-admin-page.md, "
        + DEMO[relevant + len("relevant: [") :],  # half-typed
        DEMO.replace("  browser-admin:", "  browser-admin2:", 1),  # a key
        DEMO.replace("k: 5 ", "k: 6 ", 1),  # outside the queries
        DEMO[:relevant] + "\n  new-query:\n    question: x\n    " + DEMO[relevant:],  # a new entry
        DEMO.replace('kb/factory-reset.md: "2"', "kb/factory-reset.md: 2", 1),  # a fix
        # the line breaks before the next entry deleted: its key joins the edited entry's line
        DEMO.replace("rma.md]\n\n  shield-yearly-cost:", "rma.md]  shield-yearly-cost:", 1),
    ]
    for new in cases:
        check(DEMO, new)  # agrees when it does not decline


@settings(max_examples=examples(150), deadline=None)
@given(
    st.integers(min_value=0, max_value=len(DEMO)),
    st.sampled_from(["", "x", "é", "😀", "\n", " ", ":", "- ", "[", "2"]),
    st.integers(0, 3),
)
def test_random_edits_agree_with_a_full_parse(at: int, insert: str, delete: int) -> None:
    new = DEMO[:at] + insert + DEMO[at + delete :]
    check(DEMO, new)


@pytest.mark.parametrize("compact_at", [256, 2], ids=["moved-when-read", "made-plain-often"])
@settings(max_examples=examples(80), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 10**6),
            st.sampled_from(["", "x", "é", "😀", "\n", " ", "- ", "2"]),
            st.integers(0, 3),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_chained_edits_agree_with_a_full_parse(
    compact_at: int, edits: list[tuple[int, str, int]]
) -> None:
    """Each edit re-parses the model the last one made (its queries moved when read, see
    ``MovedQueries``), as the editor chains keystrokes: every model must be the full parse of
    its text, also when the chain is made plain again (``compact_at`` 2: nearly every edit)."""
    from qrels_lsp.core import model as model_module

    model_module.COMPACT_AT, saved = compact_at, model_module.COMPACT_AT
    try:
        text, model = DEMO, parse_golden(DEMO)
        for where, insert, delete in edits:
            found = text.find("question:", where % len(text))
            at = min((found if found != -1 else 0) + len("question: ") + where % 7, len(text))
            new = text[:at] + insert + text[at + delete :]
            result = reparse(text, model, new)
            model = result[0] if result is not None else parse_golden(new)
            same(model, parse_golden(new))
            text = new
    finally:
        model_module.COMPACT_AT = saved


@pytest.mark.slow
def test_generated_golden_set_with_many_edits() -> None:
    rng = random.Random(7)
    lines = ["corpus: corpus/", "queries:"]
    for i in range(300):
        rel = ", ".join(f"d{rng.randrange(50)}" for _ in range(3))
        lines.append(f"  q{i}:\n    question: how do I fix thing {i}\n    relevant: [{rel}]")
    text = "\n".join(lines) + "\n"
    hits = 0
    for _ in range(100):
        at = text.index("how do I", rng.randrange(len(text) - 200))
        new = text[:at] + rng.choice("abc ") + text[at:]
        hits += check(text, new)
        text = new
    assert hits == 100


def test_a_query_shifted_twice_keeps_what_was_given_to_it() -> None:
    """Shifting composes (no chain of views), and a question given to a shifted query (a topics
    file's, attached after the edit) stays with it when the next edit shifts it again."""
    query = next(iter(parse_golden(DEMO).queries.values()))
    moved = query.shifted(3)
    moved.question = "given after the first edit"
    again = moved.shifted(-5)
    assert again.question == "given after the first edit"
    assert again.span.start == query.span.start - 2 and again.block.end == query.block.end - 2
    assert [j.span.start for j in again.judgments] == [j.span.start - 2 for j in query.judgments]
    back = again.shifted(2)
    assert (back.span, back.block, back.judgments, back.question_span) == (
        query.span,
        query.block,
        query.judgments,
        query.question_span,
    )
