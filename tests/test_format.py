"""The formatter on files written by hand: what it does to each kind of line, each `relevant:`
style, where it refuses, how small its edits are, the `format` setting, and on real files: the
embedded example and golden sets converted from the public qrels of tests/data, scored before and
after against their runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES, TEST_DATA
from qrels_lsp.core.base.reorder import applied
from qrels_lsp.core.base.text import Span
from qrels_lsp.core.formats.golden import FORMAT as GOLDEN
from qrels_lsp.core.formats.golden_write import golden_text
from qrels_lsp.core.formats.run_yaml import FORMAT as RUN
from qrels_lsp.core.formats.style import RELEVANT_STYLES, FormatSettings
from qrels_lsp.core.formats.topics import parse_trec_topics
from qrels_lsp.core.metrics.evaluate import evaluate
from qrels_lsp.core.model import Qrels
from qrels_lsp.core.project.config import Config, config_from_mapping, parse_config_text
from test_format_properties import METRICS, golden_view
from trec_data import qrels_of, run_of

KEEP = FormatSettings()
SORTED = FormatSettings(sort_queries=True)


def fmt(text: str, style: FormatSettings = KEEP) -> str:
    done = GOLDEN.reformat(text, style, None)
    assert done.problem is None, done.problem
    assert applied(text, done.edits) == done.text
    return str(done.text)


def test_keys_go_in_the_canonical_order_with_their_comments() -> None:
    text = """\
# The support golden set.

queries:
  q1:
    relevant: [kb/a.md]   # the reset article
    # asked weekly
    question: how do I reset it
    owner: support        # an unknown key: after the known ones
    tags: [critical]
      # (a note on the tags, indented under them)
k: 5
# the corpus: the help center export
corpus: corpus/
"""
    assert (
        fmt(text)
        == """\
# The support golden set.

# the corpus: the help center export
corpus: corpus/
k: 5
queries:
  q1:
    tags: [critical]
      # (a note on the tags, indented under them)
    # asked weekly
    question: how do I reset it
    relevant: [kb/a.md]   # the reset article
    owner: support        # an unknown key: after the known ones
"""
    )


def test_blank_lines_and_comments_above_a_key_move_with_it_but_the_head_stays() -> None:
    """`corpus:` added at the bottom goes to the top with nothing above it; the key that was
    first takes what `corpus:` had above it (nothing here): the comment set apart above
    `queries:` stays above it, and the file's header stays first."""
    text = (
        "# header\n\nk: 5\n\n# about the questions below\n\nqueries:\n  q1:\n    question: x\n"
        "corpus: c/\n"
    )
    assert fmt(text) == (
        "# header\n\ncorpus: c/\nk: 5\n\n# about the questions below\n\nqueries:\n  q1:\n"
        "    question: x\n"
    )


def test_questions_keep_their_order_and_the_lines_between_them() -> None:
    text = "queries:\n  q2:\n    question: b\n\n\n  # section\n  q10:\n    question: c\n  q1:\n    question: a\n"
    assert fmt(text) == text


def test_sorted_questions_take_their_comments_along_and_leave_the_blank_lines() -> None:
    text = (
        "queries:\n  q10:\n    question: c\n\n  # --- second section\n  q2:\n    question: b\n"
        "\n  q1:  # first\n    question: a\n"
    )
    assert fmt(text, SORTED) == (
        "queries:\n  q1:  # first\n    question: a\n\n  # --- second section\n  q2:\n"
        "    question: b\n\n  q10:\n    question: c\n"
    )


def test_sorting_reads_numbers_in_ids_by_value() -> None:
    text = "queries:\n" + "".join(
        f"  {q}: {{question: x}}\n" for q in ["q10", "q2", "b", "007", "7", "q1"]
    )
    out = fmt(text, SORTED)
    assert [line.split(":")[0].strip() for line in out.splitlines()[1:]] == [
        "007",
        "7",
        "b",
        "q1",
        "q2",
        "q10",
    ]


def test_run_yaml_keys_and_queries() -> None:
    text = "results:\n  q2: [d1, d2]\n  # the first query\n  q1:\n    d3: 1.5\n    d1: 2.0\nname: dense\nqrels: g.qrels.yaml\n"
    done = RUN.reformat(text, SORTED, None)
    assert done.text == (
        "qrels: g.qrels.yaml\nname: dense\nresults:\n  # the first query\n  q1:\n    d3: 1.5\n"
        "    d1: 2.0\n  q2: [d1, d2]\n"
    )


RELEVANT = """\
queries:
  binary:
    relevant: [kb/a.md, "no", 0x10, 'a, b']
  graded:
    relevant:
      kb/a.md: 2
      kb/b.md: 1
"""


@pytest.mark.parametrize(
    ("style", "binary", "graded"),
    [
        ("keep", " [kb/a.md, \"no\", 0x10, 'a, b']", "\n      kb/a.md: 2\n      kb/b.md: 1"),
        ("list", " [kb/a.md, \"no\", 0x10, 'a, b']", "\n      kb/a.md: 2\n      kb/b.md: 1"),
        ("flow", " [kb/a.md, \"no\", 0x10, 'a, b']", " {kb/a.md: 2, kb/b.md: 1}"),
        (
            "block",
            "\n      - kb/a.md\n      - \"no\"\n      - 0x10\n      - 'a, b'",
            "\n      kb/a.md: 2\n      kb/b.md: 1",
        ),
        (
            "mapping",
            "\n      kb/a.md: 1\n      \"no\": 1\n      0x10: 1\n      'a, b': 1",
            "\n      kb/a.md: 2\n      kb/b.md: 1",
        ),
    ],
)
def test_relevant_styles(style: str, binary: str, graded: str) -> None:
    """Each id as it was written (`no` stays quoted, a plain 0x10 plain: other YAML readers read
    the same number); a graded mapping never becomes a list."""
    out = fmt(RELEVANT, FormatSettings(relevant=style))  # type: ignore[arg-type]
    assert out == f"queries:\n  binary:\n    relevant:{binary}\n  graded:\n    relevant:{graded}\n"


def test_a_plain_id_is_quoted_where_a_flow_list_needs_it() -> None:
    text = "queries:\n  q:\n    relevant:\n      - a, b\n      - x]y\n      - ?why\n"
    out = fmt(text, FormatSettings(relevant="flow"))
    assert out == 'queries:\n  q:\n    relevant: ["a, b", "x]y", "?why"]\n'


@pytest.mark.parametrize(
    "relevant",
    [
        "\n      - kb/a.md  # the one\n      - kb/b.md",  # a comment about one document
        "\n      - kb/a.md\n      - kb/b.md  # the last one",
        " [kb/a.md,  # the one\n      kb/b.md]",  # a comment inside a flow list
        "  # chosen by the support team\n      - kb/a.md\n      - kb/b.md",
        "\n      - kb/a.md\n      - kb/a.md",  # a document twice (QR102)
        '\n      kb/a.md: "2"\n      kb/b.md: 1',  # a grade in quotes (QR103)
    ],
)
def test_relevant_that_would_lose_a_comment_or_change_is_kept(relevant: str) -> None:
    text = f"queries:\n  q:\n    question: x\n    relevant:{relevant}\n"
    for style in RELEVANT_STYLES:
        assert fmt(text, FormatSettings(relevant=style)) == text  # type: ignore[arg-type]


def test_a_flow_question_gets_only_flow_styles() -> None:
    text = "queries:\n  q: {relevant: {a: 1, b: 1}, question: x}\n"
    assert (
        fmt(text, FormatSettings(relevant="block"))
        == "queries:\n  q: {question: x, relevant: {a: 1, b: 1}}\n"
    )
    assert (
        fmt(text, FormatSettings(relevant="flow"))
        == "queries:\n  q: {question: x, relevant: [a, b]}\n"
    )


def test_line_breaks_a_byte_order_mark_and_a_missing_last_line_break() -> None:
    text = "\ufeffqueries:\r\n  q:\r\n    relevant: [a]\r\n    question: x\r\nk: 2"
    assert fmt(text) == "\ufeffk: 2\r\nqueries:\r\n  q:\r\n    question: x\r\n    relevant: [a]\r\n"
    assert fmt("k: 2\nqueries: {}") == "k: 2\nqueries: {}\n"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("queries:\n  q: [\n", "QR001"),
        ("queries:\n  q: &a {question: x}\n  r: *a\n", "QR002"),
        ("queries:\n  q:\n    relevant: kb/a.md\n", "QR004"),
        ("queries:\n  q:\n    question: x\n    question: y\n", "QR005"),
        ("k: 1\n---\nqueries: {}\n", "QR004"),
        ("queries:\n  q:\n    question: x\u2028y\n", "Unicode line separator"),
        # A block scalar at the very end with no line break after it: adding one would add it
        # to the question, so the formatter's own check refuses the result.
        ("queries:\n  q:\n    relevant: [a]\n    question: |\n      abc", "read differently"),
    ],
)
def test_what_is_not_formatted_says_why_and_where(text: str, problem: str) -> None:
    done = GOLDEN.reformat(text, FormatSettings(relevant="flow"), None)
    assert done.problem is not None and problem in done.problem
    assert done.text == text and done.edits == ()
    assert done.at is None or 0 <= done.at.start <= len(text)


def test_edits_touch_only_what_changed() -> None:
    """Moving one key to the top of a golden set of 5,000 questions is a deletion and an
    insertion, not a new copy of the file; a question's keys are an edit of that question."""
    body = "".join(
        f"  q{i}:\n    question: question {i}\n    relevant: [kb/{i}.md]\n" for i in range(5000)
    )
    text = "queries:\n" + body + "k: 5\n"
    done = GOLDEN.reformat(text, KEEP, None)
    assert done.text == "k: 5\nqueries:\n" + body
    assert sum(len(e.new_text) + e.span.end - e.span.start for e in done.edits) <= 2 * len("k: 5\n")
    swapped = done.text.replace(
        "  q2500:\n    question: question 2500\n    relevant: [kb/2500.md]\n",
        "  q2500:\n    relevant: [kb/2500.md]\n    question: question 2500\n",
    )
    done = GOLDEN.reformat(swapped, KEEP, None)
    q = swapped.index("  q2500:")
    inside = [e for e in done.edits if q < e.span.start < q + 80]
    assert inside == list(done.edits)
    assert applied(swapped, done.edits) == done.text


def test_range_formatting_touches_only_the_questions_in_the_range() -> None:
    text = "queries:\n  q2:\n    relevant: [a]\n    question: b\n  q1:\n    relevant: [a]\n    question: a\nk: 1\n"
    at = text.index("q1:")
    done = GOLDEN.reformat(text, SORTED, Span(at, at + 2))
    assert (
        done.text
        == "queries:\n  q2:\n    relevant: [a]\n    question: b\n  q1:\n    question: a\n    relevant: [a]\nk: 1\n"
    )


def test_the_embedded_example_is_formatted_already() -> None:
    for path in [EXAMPLES / "support.qrels.yaml", *sorted((EXAMPLES / "runs").glob("*.yaml"))]:
        fmt_ = GOLDEN if path.name.endswith(".qrels.yaml") else RUN
        done = fmt_.reformat(path.read_text(encoding="utf-8"), KEEP, None)
        assert done.problem is None and done.edits == (), path


CONVERTED = [
    ("trec_eval/qrels.test", "trec_eval/results.test", None),
    ("trec_eval/qrels.rel_level", "trec_eval/results.test", None),
    ("trec_eval/qrels.comment.test", "trec_eval/results.comment.test", None),
    ("ir_measures/compat.qrels", "ir_measures/compat.run", None),
    ("vaswani/qrels", "vaswani/bm25_top100.run", "vaswani/query-text.trec"),
]


@pytest.mark.parametrize(("qrels_name", "run_name", "topics"), CONVERTED)
def test_converted_golden_sets_score_the_same_in_every_style(
    qrels_name: str, run_name: str, topics: str | None
) -> None:
    """Public qrels written as golden sets by `convert`, their questions sorted and their
    judgments in each style: the same model, and every metric of the public run the same."""
    qrels = qrels_of(qrels_name)
    questions = {}
    if topics is not None:
        found = parse_trec_topics((TEST_DATA / topics).read_text(encoding="utf-8"))
        questions = {qid: t.text for qid, t in found.items()}
    text = golden_text(qrels, questions)
    run = run_of(run_name).ranked_ids()
    before = GOLDEN.parse(text)
    assert isinstance(before, Qrels)
    expected = evaluate(before.grades(), run, METRICS, unanswerable=before.unanswerable())
    for style in sorted(RELEVANT_STYLES):
        out = fmt(text, FormatSettings(sort_queries=True, relevant=style))  # type: ignore[arg-type]
        after = GOLDEN.parse(out)
        assert isinstance(after, Qrels)
        assert golden_view(after, False) == golden_view(before, False)
        got = evaluate(after.grades(), run, METRICS, unanswerable=after.unanswerable())
        assert (got.per_query, got.mean, got.n_queries) == (
            expected.per_query,
            expected.mean,
            expected.n_queries,
        )


def test_the_format_setting(tmp_path: Path) -> None:
    config = parse_config_text(
        '[format]\nsort_queries = true\nrelevant = "flow"\n', tmp_path / "qrels-lsp.toml"
    )
    assert config.format == FormatSettings(True, "flow") and not config.findings
    editor = config_from_mapping({"format": {"relevant": "block"}}, config)
    assert editor.format == FormatSettings(True, "block")  # the editor's key over the file's
    bad = parse_config_text(
        'format = {sort_queries = "yes", relevant = "tabs", indent = 2}\n',
        tmp_path / "qrels-lsp.toml",
    )
    assert bad.format == FormatSettings()
    messages = " ".join(f.message for f in bad.findings)
    assert {f.code for f in bad.findings} == {"QR401"}
    assert "sort_queries" in messages and "relevant" in messages and "indent" in messages
    assert config_from_mapping({"format": "flow"}, Config()).findings
