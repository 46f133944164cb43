"""Every check code of the YAML formats, at its exact span, and every fix applied to the text.

Fixture text marks the expected span of each finding with ``⟦...⟧`` (see ``fixtures.py``).
Each fixture also runs in variants: CRLF and lone-CR line endings, and emoji / CJK text on an
earlier line, since offsets are code points and lines break on all three line endings.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from fixtures import (
    apply_edits,
    assert_findings,
    assert_spans_in,
    codes,
    golden_findings,
    naive_range,
    only,
    project_findings,
    run_findings,
    strip_markers,
)
from qrels_lsp.core.base.boundary import Boundary
from qrels_lsp.core.base.findings import Finding, Severity
from qrels_lsp.core.base.text import LineIndex
from qrels_lsp.core.codes import CODES
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.run_yaml import parse_run_yaml
from qrels_lsp.core.project.config import Config, parse_config_text
from qrels_lsp.core.project.project import Project

ANYWHERE = Boundary.everywhere()  # these tests are not about the workspace boundary

# -- variants -----------------------------------------------------------------------------------

NON_ASCII_LINE = "description: 日本語のテスト 😀🎉 中文 ℃ e\u0301\n"


def crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def lone_cr(text: str) -> str:
    return text.replace("\n", "\r")


def non_ascii_before(text: str) -> str:
    """A first line full of astral emoji and CJK: every later column must be unaffected."""
    if text.startswith("⟦⟧"):  # a finding at the very start of the file stays there
        return "⟦⟧" + NON_ASCII_LINE + text[2:]
    if text.startswith("⟦"):  # the root itself is marked: a comment keeps it the root
        return "# " + NON_ASCII_LINE + text
    return NON_ASCII_LINE + text


VARIANTS: dict[str, Callable[[str], str]] = {
    "lf": lambda t: t,
    "crlf": crlf,
    "cr": lone_cr,
    "non-ascii-line-before": non_ascii_before,
    "non-ascii-line-before-crlf": lambda t: crlf(non_ascii_before(t)),
}

# (code, marked golden set text). Each holds one kind of mistake; the markers are the expected
# spans of that code's findings, all of them.
GOLDEN_CASES: list[tuple[str, str]] = [
    # QR001: YAML syntax. A tab cannot indent YAML: the finding sits on the tab.
    ("QR001", "queries:\n  q1:\n⟦\t⟧question: x\n"),
    ("QR001", "queries:\n  q1:\n    question: x\n⟦\t⟧relevant: [a]\n"),
    # An unclosed flow mapping at the end of the file: pointed at its opening brace.
    ("QR001", "queries:\n  q1: ⟦{⟧question: x, relevant: [a]\n"),
    # ... and before more text: where the parser noticed (the message names the brace's line).
    ("QR001", "queries:\n  q1: {question: x, relevant: [a]\n  ⟦q⟧2:\n    question: y\n"),
    # QR002: anchors, aliases, tags.
    ("QR002", "queries:\n  q1:\n    question: ⟦&anchor x⟧\n    relevant: [a]\n"),
    (
        "QR002",
        "queries:\n  q1:\n    question: x\n    relevant: [a]\n  q2:\n    question: y\n    relevant: [a, ⟦*anchor⟧]\n",
    ),
    ("QR002", "queries:\n  q1:\n    question: ⟦!!python/name:os.system x⟧\n    relevant: [a]\n"),
    # QR003: unknown keys, at the top level and in a query.
    ("QR003", "⟦queris⟧:\n  q1:\n    question: x\n    relevant: [a]\nqueries: {}\n"),
    ("QR003", "queries:\n  q1:\n    question: x\n    ⟦relevent⟧: [a]\n    relevant: [b]\n"),
    # QR004: wrong types.
    ("QR004", "k: ⟦0⟧\nqueries: {}\n"),
    ("QR004", "k: ⟦five⟧\nrelevance_level: ⟦high⟧\nqueries: {}\n"),
    ("QR004", "queries:\n  q1:\n    question: x\n    relevant: ⟦kb/a.md⟧\n    notes: n\n"),
    ("QR004", "queries:\n  q1:\n    question: x\n    relevant: [a, ⟦~⟧]\n"),
    ("QR004", "queries:\n  q1:\n    question: x\n    relevant: [a]\n    unanswerable: ⟦maybe⟧\n"),
    ("QR004", "⟦- a\n- b⟧\n"),
    ("QR004", "⟦⟧description: no queries here\n"),
    ("QR004", "queries: ⟦[a, b]⟧\n"),
    ("QR004", "queries:\n  q1:\n    question: x\n    relevant: [a]\n⟦---⟧\nqueries: {}\n"),
    # QR005: a key given twice.
    ("QR005", "queries:\n  q1:\n    question: x\n    relevant: [a]\n    ⟦question⟧: y\n"),
    # QR101: a query id given twice.
    (
        "QR101",
        "queries:\n  q1:\n    question: x\n    relevant: [a]\n  ⟦q1⟧:\n    question: y\n    relevant: [b]\n",
    ),
    # QR102: a document twice (flow list, block list, graded mapping).
    ("QR102", "queries:\n  q1:\n    question: x\n    relevant: [a, b, ⟦a⟧]\n"),
    ("QR102", "queries:\n  q1:\n    question: x\n    relevant:\n      - a\n      - ⟦a⟧\n"),
    ("QR102", "queries:\n  q1:\n    question: x\n    relevant: {a: 2, ⟦a⟧: 1}\n"),
    # QR103: grades that are not integers.
    ("QR103", "queries:\n  q1:\n    question: x\n    relevant: {a: ⟦'2'⟧, b: ⟦1.5⟧, c: ⟦high⟧}\n"),
    ("QR103", "queries:\n  q1:\n    question: x\n    relevant:\n      a: ⟦[1]⟧\n      b: 1\n"),
    # QR104: no relevant document and not unanswerable.
    ("QR104", "queries:\n  ⟦q1⟧:\n    question: x\n"),
    ("QR104", "queries:\n  ⟦q1⟧:\n    question: x\n    relevant: {a: 0}\n"),
    ("QR104", "queries:\n  ⟦q1⟧:\n    question: x\n    relevant: []\n"),
    # QR105: unanswerable with judgments.
    ("QR105", "queries:\n  q1:\n    question: x\n    relevant: [a]\n    ⟦unanswerable: true⟧\n"),
    # QR107: no question, or an empty one.
    ("QR107", "queries:\n  ⟦q1⟧:\n    relevant: [a]\n"),
    ("QR107", "queries:\n  q1:\n    question:⟦⟧\n    relevant: [a]\n"),
    ("QR107", "queries:\n  q1:\n    question: ⟦'  '⟧\n    relevant: [a]\n"),
    # QR108: the same question twice (case and punctuation do not matter).
    (
        "QR108",
        "queries:\n  q1:\n    question: How do I reset it?\n    relevant: [a]\n  q2:\n    question: ⟦how do i RESET it⟧\n    relevant: [b]\n",
    ),
]


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize(("code", "marked"), GOLDEN_CASES)
def test_golden_finding_at_exact_span(code: str, marked: str, variant: str) -> None:
    assert_findings(code, VARIANTS[variant](marked))


def test_every_yaml_code_has_a_fixture() -> None:
    covered = {c for c, _ in GOLDEN_CASES} | {c for c, *_ in RUN_CASES}
    # Corpus- and file-dependent codes are tested through Project below.
    covered |= {"QR106", "QR109", "QR110", "QR111", "QR206", "QR207"}
    covered.add("QR007")  # ids, questions, tags, names over their caps: tests/test_caps.py
    covered.add("QR112")  # the workspace boundary: tests/test_boundary.py
    covered.add("QR113")  # a corpus cut by a limit: tests/test_hostile_core.py
    covered.add("QR114")  # clashing stems in a folder corpus: tests/test_formats_users_have.py
    covered.add("QR115")  # `compare_to:` naming no run: tests/lsp/test_compare_lenses.py
    covered.add("QR120")  # judgments read as exhaustive or pooled: tests/test_judgments.py
    covered |= {"QR121", "QR210"}  # runs of one name: tests/test_run_names.py
    # fusions (QR116-QR119) and runs of chunks (QR208, QR209): tests/test_fusion_checks.py
    covered |= {"QR116", "QR117", "QR118", "QR119", "QR208", "QR209"}
    covered |= {"QR140", "QR141", "QR142"}  # benchmark presets: tests/test_presets.py
    covered |= {"QR130", "QR131", "QR132", "QR133"}  # judgments the lock says: tests/test_lock.py
    mine = {c for c in CODES if c.startswith(("QR0", "QR1", "QR2")) and c not in ("QR006", "QR204")}
    assert mine - covered == set()


# -- non-ASCII on the same line, before the error ------------------------------------------------

SAME_LINE_CASES: list[tuple[str, str]] = [
    (
        "QR102",
        "queries:\n  q1:\n    question: x\n    relevant: [文書/説明😀.md, ⟦文書/説明😀.md⟧]\n",
    ),
    ("QR103", "queries:\n  q1:\n    question: x\n    relevant: {日本😀.md: 1, 中文🎉.md: ⟦'3'⟧}\n"),
    ("QR003", "queries:\n  q1: {question: 😀😀 中文, ⟦relevent⟧: [a]}\n"),
    ("QR002", "queries:\n  q1: {question: 日本語🎉, relevant: [a, ⟦*x⟧]}\n"),
    ("QR001", "queries:\n  q1: {question: 😀 中文, relevant: [a]}⟦}⟧\n"),
    ("QR001", "queries:\n  q1:\n    question: 😀 中文\n    relevant: [a]\n⟦\t⟧ # 🎉\n  q2: x\n"),
    (
        "QR004",
        "queries:\n  q1:\n    question: 😀 中文\n    relevant: [a]\n    unanswerable: ⟦多分⟧\n",
    ),
]


@pytest.mark.parametrize("variant", ["lf", "crlf", "cr"])
@pytest.mark.parametrize(("code", "marked"), SAME_LINE_CASES)
def test_non_ascii_before_the_error_on_the_same_line(code: str, marked: str, variant: str) -> None:
    assert_findings(code, VARIANTS[variant](marked))


def test_columns_are_code_points_and_utf16_units_differ() -> None:
    text, (span,) = strip_markers("queries:\n  q1:\n    relevant: [😀😀, ⟦😀😀⟧]\n")
    f = only(golden_findings(text), "QR102")
    assert f.span == span
    lines = LineIndex(text)
    assert lines.position(f.span.start) == (2, 19)  # "    relevant: [" + 2 emoji + ", "
    assert lines.position(f.span.start, "utf-16") == (2, 21)  # each emoji is 2 UTF-16 units
    assert lines.position(f.span.start, "utf-8") == (2, 25)  # ... and 4 UTF-8 bytes


# -- runs ---------------------------------------------------------------------------------------

GOLDEN_FOR_RUNS = (
    "queries:\n"
    "  q1:\n    question: one\n    relevant: [a]\n"
    "  q2:\n    question: two\n    relevant: [b]\n"
    "  q3:\n    question: three\n    unanswerable: true\n"
)

# (code, marked run text, k)
RUN_CASES: list[tuple[str, str, int]] = [
    # An unclosed list before more text: where the parser noticed (the next key's colon).
    ("QR001", "results:\n  q1: [a, b\n  q2⟦:⟧ [c]\n", 1),
    ("QR003", "⟦nmae⟧: x\nresults:\n  q1: [a]\n  q2: [b]\n", 1),
    ("QR004", "results:\n  q1: [a]\n  q2: {b: ⟦high⟧}\n", 1),
    ("QR004", "results: ⟦[a, b]⟧\n", 1),
    ("QR004", "⟦⟧name: nothing\n", 1),
    ("QR005", "name: a\n⟦name⟧: b\nresults:\n  q1: [a]\n  q2: [b]\n", 1),
    ("QR101", "results:\n  q1: [a]\n  q2: [b]\n  ⟦q1⟧: [c]\n", 1),
    ("QR201", "results:\n  q1: [a]\n  q2: [b]\n  ⟦q9⟧: [c]\n", 1),
    # At the `results:` key, whether or not the run names its golden set.
    ("QR202", "qrels: g.qrels.yaml\n⟦results⟧:\n  q1: [a]\n", 1),
    ("QR202", "⟦results⟧:\n  q2: [a]\n", 1),
    ("QR203", "results:\n  q1: [a, b, ⟦a⟧]\n  q2: {x: 1, y: 2, ⟦x⟧: 3}\n", 1),
    ("QR203", "results:\n  q1:\n    - a\n    - ⟦a⟧\n  q2: [b]\n", 1),
    ("QR205", "results:\n  ⟦q1⟧: [a, b]\n  q2: [b, c, d]\n", 3),
]


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize(("code", "marked", "k"), RUN_CASES)
def test_run_finding_at_exact_span(code: str, marked: str, k: int, variant: str) -> None:
    text = VARIANTS[variant](marked)  # `description` is a run key too
    assert_findings(code, text, lambda t: run_findings(t, GOLDEN_FOR_RUNS, k))


def test_unanswerable_query_is_not_missing_from_a_run() -> None:
    found = run_findings("results:\n  q1: [a]\n  q2: [b]\n", GOLDEN_FOR_RUNS)
    assert codes(found) == []


def test_scored_run_is_ranked_by_score_then_docid_descending() -> None:
    run = parse_run_yaml("results:\n  q1: {d1: 0.5, d2: 0.5, d10: 0.9, x: 0.1}\n")
    assert run.rankings["q1"].doc_ids() == ["d10", "d2", "d1", "x"]
    assert run.findings == []


# -- corpus-dependent checks, through the project on real files -------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    docs = {
        "kb/password-reset.md": "# Password reset\nOpen the app, tap Forgot password and follow the link we email you.\n",
        "kb/auth-failures.md": "# Login failures\nAfter a reset, sign out on every device and sign in again.\n",
        "errors/e1042.md": "# E1042\nThe firmware on the node does not match the router firmware version installed.\n",
        "kb/café-wifi.md": "# Café wifi\nGuest networks for small shops.\n",
        "文書/説明.md": "# 説明\n日本語の文書です。\n",
    }
    for name, text in docs.items():
        write(tmp_path / "corpus" / name, text)
    return tmp_path / "corpus"


def project_case(tmp_path: Path, name: str, marked: str, code: str) -> list[Finding]:
    text, expected = strip_markers(marked)
    path = write(tmp_path / name, text)
    found = sorted(
        (f for f in project_findings(path, tmp_path) if f.code == code), key=lambda f: f.span
    )
    assert [naive_range(text, s) for s in expected] == [
        (LineIndex(text).position(f.span.start), LineIndex(text).position(f.span.end))
        for f in found
    ], f"{code} in {text!r}: {found}"
    return found


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_qr106_unknown_document_with_closest_ids_as_fixes(
    tmp_path: Path, corpus: Path, variant: str
) -> None:
    marked = VARIANTS[variant](
        "corpus: corpus/\n"
        "queries:\n"
        "  reset:  # from ticket 123\n"
        "    question: I can't log in after resetting my password\n"
        "    relevant: [kb/password-reset.md, ⟦kb/auth-failure.md⟧]\n"
        "  shop:\n"
        "    question: wifi für mein café 😀\n"
        "    relevant: {⟦kb/cafe-wifi.md⟧: 2, 文書/説明.md: 1}\n"
    )
    found = project_case(tmp_path, "g.qrels.yaml", marked, "QR106")
    text, _ = strip_markers(marked)
    first, second = found
    assert first.severity == Severity.WARNING
    assert "kb/auth-failures.md" in first.message
    fix = first.fixes[0]
    assert fix.preferred and fix.title == "Replace with `kb/auth-failures.md`"
    assert apply_edits(text, fix.edits) == text.replace(
        "kb/auth-failure.md]", "kb/auth-failures.md]"
    )
    assert second.fixes[0].title == "Replace with `kb/café-wifi.md`"
    fixed = apply_edits(text, [*fix.edits, *second.fixes[0].edits])
    assert fixed == text.replace("kb/auth-failure.md]", "kb/auth-failures.md]").replace(
        "kb/cafe-wifi.md", "kb/café-wifi.md"
    )
    write(tmp_path / "g.qrels.yaml", fixed)
    assert "QR106" not in codes(project_findings(tmp_path / "g.qrels.yaml", tmp_path))


def test_qr106_non_ascii_ids_without_bom_are_found(tmp_path: Path, corpus: Path) -> None:
    path = write(
        tmp_path / "g.qrels.yaml",
        "corpus: corpus\nqueries:\n  q:\n    question: 日本語の質問\n    relevant: [文書/説明.md, kb/café-wifi.md]\n"
        "judgments: exhaustive\n",  # (else QR120 says what they are read as)
    )
    assert not path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert codes(project_findings(path, tmp_path)) == []


def test_bom_is_not_part_of_the_offsets(tmp_path: Path, corpus: Path) -> None:
    text = "corpus: corpus\nqueries:\n  q:\n    question: x y\n    relevant: [kb/nope.md]\n"
    path = tmp_path / "g.qrels.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    f = only(project_findings(path, tmp_path), "QR106")
    assert text[f.span.start : f.span.end] == "kb/nope.md"


@pytest.mark.parametrize(
    ("corpus_value", "setup"),
    [
        ("nowhere/", None),
        ("corpus.jsonl", "fifo"),
    ],
)
def test_qr109_corpus_missing(tmp_path: Path, corpus_value: str, setup: str | None) -> None:
    import os

    if setup == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs here")
        os.mkfifo(tmp_path / corpus_value)
    marked = f"corpus: ⟦{corpus_value}⟧  # 😀\nqueries:\n  q:\n    question: x\n    relevant: [a]\n"
    started = time.monotonic()
    (f,) = project_case(tmp_path, "g.qrels.yaml", marked, "QR109")
    assert time.monotonic() - started < 5  # a FIFO is never opened for reading
    assert f.severity == Severity.ERROR
    assert corpus_value in f.message


def test_qr110_question_copies_document(tmp_path: Path, corpus: Path) -> None:
    marked = (
        "corpus: corpus/\n"
        "queries:\n"
        "  copied:\n"
        "    question: ⟦The firmware on the node does not match the router firmware version installed⟧\n"
        "    relevant: {errors/e1042.md: 2}\n"
        "  honest:\n"
        "    question: my new satellite shows a weird error code after unboxing\n"
        "    relevant: [errors/e1042.md]\n"
    )
    (f,) = project_case(tmp_path, "g.qrels.yaml", marked, "QR110")
    assert f.severity == Severity.INFO
    assert f.related and f.related[0].message == "the document it copies"


def test_qr111_runs_entry_matching_nothing(tmp_path: Path) -> None:
    write(tmp_path / "runs" / "bm25.run.yaml", "results:\n  q: [a]\n")
    marked = (
        "runs: [runs/*.run.yaml, ⟦runs/*.trec⟧, ⟦missing.run.yaml⟧]\n"
        "queries:\n  q:\n    question: x\n    relevant: [a]\n"
    )
    project_case(tmp_path, "g.qrels.yaml", marked, "QR111")


def test_qr206_run_unknown_document(tmp_path: Path, corpus: Path) -> None:
    write(
        tmp_path / "g.qrels.yaml",
        "corpus: corpus\nqueries:\n  q:\n    question: x\n    relevant: [kb/password-reset.md]\n",
    )
    marked = (
        "qrels: g.qrels.yaml\n"
        "results:\n"
        "  q: [kb/password-reset.md, ⟦kb/password-rest.md⟧, 文書/説明.md, ⟦文書/説明😀.md⟧]\n"
    )
    found = project_case(tmp_path, "r.run.yaml", marked, "QR206")
    text, _ = strip_markers(marked)
    assert found[0].fixes[0].edits[0].new_text == "kb/password-reset.md"
    assert apply_edits(text, found[0].fixes[0].edits) == text.replace(
        "kb/password-rest.md", "kb/password-reset.md"
    )


def test_qr207_run_without_golden_set(tmp_path: Path) -> None:
    project_case(tmp_path, "r.run.yaml", "⟦⟧results:\n  q: [a]\n", "QR207")
    (f,) = project_case(
        tmp_path, "s.run.yaml", "qrels: ⟦nowhere.qrels.yaml⟧\nresults:\n  q: [a]\n", "QR207"
    )
    assert "nowhere.qrels.yaml" in f.message


def test_run_is_tied_to_the_golden_set_listing_it(tmp_path: Path) -> None:
    write(
        tmp_path / "g.qrels.yaml",
        "k: 1\nruns: [runs/*.run.yaml]\nqueries:\n  q:\n    question: x\n    relevant: [a]\n  p:\n    question: y\n    relevant: [b]\n",
    )
    run = write(tmp_path / "runs" / "x.run.yaml", "results:\n  q: [a]\n")
    found = project_findings(run, tmp_path)
    assert codes(found) == ["QR202"]  # tied (no QR207), and `p` is missing


# -- fixes: the intended change and nothing else -----------------------------------------------


def fix_result(
    text: str, code: str, produce: Callable[[str], list[Finding]] = golden_findings
) -> str:
    f = only(produce(text), code)
    assert f.fixes, f"{code} offers no fix for {text!r}"
    fixed = apply_edits(text, f.fixes[0].edits)
    assert code not in codes(produce(fixed)), f"{code} still reported after its fix: {fixed!r}"
    return fixed


FIX_CASES: list[tuple[str, str, str]] = [
    # QR003: rename the key, keep the comment and the rest.
    (
        "QR003",
        "# golden\nqueries:\n  q1:  # c\n    question: x\n    relevent: [a]   # the docs\n",
        "# golden\nqueries:\n  q1:  # c\n    question: x\n    relevant: [a]   # the docs\n",
    ),
    (
        "QR003",
        "queries:\n  q1:\n    question: x\n    'relevent': [a]\n",
        "queries:\n  q1:\n    question: x\n    'relevant': [a]\n",
    ),
    # QR004: one id written bare becomes a list.
    (
        "QR004",
        "queries:\n  q1:\n    question: x\n    relevant: kb/a.md  # one\n\n  q2: {question: y, relevant: [b]}\n",
        "queries:\n  q1:\n    question: x\n    relevant: [kb/a.md]  # one\n\n  q2: {question: y, relevant: [b]}\n",
    ),
    # QR102: remove the second occurrence, from a flow list, a block list, a graded mapping.
    (
        "QR102",
        "queries:\n  q1:\n    question: x\n    relevant: [a, b, a]  # keep me\n",
        "queries:\n  q1:\n    question: x\n    relevant: [a, b]  # keep me\n",
    ),
    (
        "QR102",
        "queries:\n  q1:\n    question: x\n    relevant: [a,b , a ,c]\n",
        "queries:\n  q1:\n    question: x\n    relevant: [a,b ,c]\n",
    ),
    (
        "QR102",
        "queries:\n  q1:\n    question: x\n    relevant:\n      - a\n      # between\n      - a  # dup\n      - b\n\n# end\n",
        "queries:\n  q1:\n    question: x\n    relevant:\n      - a\n      # between\n      - b\n\n# end\n",
    ),
    (
        "QR102",
        "queries:\n  q1:\n    question: x\n    relevant:\n      a: 2\n      a: 1\n",
        "queries:\n  q1:\n    question: x\n    relevant:\n      a: 2\n",
    ),
    (
        "QR102",
        "queries:\n  q1:\n    question: x\n    relevant:\n      - a\n      - a",
        "queries:\n  q1:\n    question: x\n    relevant:\n      - a",
    ),
    (
        "QR102",
        "queries:\n  q1:\n    question: x\n    relevant: {a: 2, b: 1, a: 1}\n",
        "queries:\n  q1:\n    question: x\n    relevant: {a: 2, b: 1}\n",
    ),
    # QR103: a quoted integer grade becomes the integer.
    (
        "QR103",
        "queries:\n  q1:\n    question: x\n    relevant: {a: '2', b: 1}  # graded\n",
        "queries:\n  q1:\n    question: x\n    relevant: {a: 2, b: 1}  # graded\n",
    ),
    (
        "QR103",
        'queries:\n  q1:\n    question: x\n    relevant:\n      a: " 3"\n',
        "queries:\n  q1:\n    question: x\n    relevant:\n      a: 3\n",
    ),
    # QR104: mark unanswerable, at the body's indentation, after the last line of the block.
    (
        "QR104",
        "queries:\n  q1:\n      question: x  # why\n  q2:\n      question: y\n      relevant: [a]\n",
        "queries:\n  q1:\n      question: x  # why\n      unanswerable: true\n  q2:\n      question: y\n      relevant: [a]\n",
    ),
    (
        "QR104",
        "queries:\n  q1:\n    question: x\n\n  q2:\n    question: y\n    relevant: [a]\n",
        "queries:\n  q1:\n    question: x\n    unanswerable: true\n\n  q2:\n    question: y\n    relevant: [a]\n",
    ),
    (
        "QR104",
        "queries:\n  q1: {question: x}\n",
        "queries:\n  q1: {question: x, unanswerable: true}\n",
    ),
    (
        "QR104",
        "queries:\n  q1:\n    question: x",
        "queries:\n  q1:\n    question: x\n    unanswerable: true",
    ),
    # The last value of the query is itself a flow collection: the mark goes in the query.
    (
        "QR104",
        "queries:\n  q1:\n    question: x\n    relevant: {a: 0}\n",
        "queries:\n  q1:\n    question: x\n    relevant: {a: 0}\n    unanswerable: true\n",
    ),
    (
        "QR104",
        "queries:\n  q1:\n    question: x\n    relevant: {}\n",
        "queries:\n  q1:\n    question: x\n    relevant: {}\n    unanswerable: true\n",
    ),
    (
        "QR104",
        "queries:\n  q1: {}\n",
        "queries:\n  q1: {unanswerable: true}\n",
    ),
    # A block scalar question: the mark goes after it, not into the next query.
    (
        "QR104",
        "queries:\n  q1:\n    question: |\n      How do I?\n  q2:\n    question: y\n    relevant: [a]\n",
        "queries:\n  q1:\n    question: |\n      How do I?\n    unanswerable: true\n  q2:\n    question: y\n    relevant: [a]\n",
    ),
    # A query with no value yet, or an explicit null.
    (
        "QR104",
        "queries:\n  q1:\n  q2:\n    question: y\n    relevant: [a]\n",
        "queries:\n  q1:\n    unanswerable: true\n  q2:\n    question: y\n    relevant: [a]\n",
    ),
    (
        "QR104",
        "queries:\n  q1: ~\n  q2:\n    question: y\n    relevant: [a]\n",
        "queries:\n  q1:\n    unanswerable: true\n  q2:\n    question: y\n    relevant: [a]\n",
    ),
    # QR105: remove the mark and nothing else.
    (
        "QR105",
        "queries:\n  q1:\n    question: x\n    unanswerable: true  # hmm\n    relevant: [a]\n",
        "queries:\n  q1:\n    question: x\n    relevant: [a]\n",
    ),
    (
        "QR105",
        "queries:\n  q1:\n    question: x\n    relevant: [a]\n    unanswerable: true",
        "queries:\n  q1:\n    question: x\n    relevant: [a]",
    ),
]


@pytest.mark.parametrize("variant", ["lf", "crlf", "cr", "non-ascii-line-before"])
@pytest.mark.parametrize(("code", "before", "after"), FIX_CASES)
def test_fix_makes_exactly_the_intended_change(
    code: str, before: str, after: str, variant: str
) -> None:
    v = VARIANTS[variant]
    fixed = fix_result(v(before), code)
    assert fixed == v(after)
    assert parse_golden(fixed).findings == [] or code == "QR104"


def test_run_fix_for_duplicate_key_is_absent_but_finding_is_exact() -> None:
    # A run's QR203 has no fix (which one to keep is the user's call); the finding is enough.
    f = only(run_findings("results:\n  q: [a, a]\n"), "QR203")
    assert f.fixes == ()


def test_qr105_in_a_flow_mapping_offers_no_fix_or_a_correct_one() -> None:
    text = "queries:\n  q1: {question: x, relevant: [a], unanswerable: true}\n"
    f = only(golden_findings(text), "QR105")
    for fix in f.fixes:
        assert apply_edits(text, fix.edits) == "queries:\n  q1: {question: x, relevant: [a]}\n"


@pytest.mark.parametrize(
    "text",
    [
        "queries:\n  q1: [a, b]\n",  # not a mapping (QR004): nothing to add the mark to
        "queries:\n  q1: some text\n",
        "queries:\n  q1: ~  # later\n",
    ],
)
def test_qr104_fix_is_valid_yaml_or_absent(text: str) -> None:
    f = only(golden_findings(text), "QR104")
    for fix in f.fixes:
        fixed = apply_edits(text, fix.edits)
        assert "QR001" not in codes(golden_findings(fixed)), fixed
        assert "QR104" not in codes(golden_findings(fixed)), fixed


def test_no_fix_offered_where_a_minimal_edit_is_unsafe() -> None:
    # The duplicate shares its line with other content in a block list: no rewrite is offered.
    text = "queries:\n  q1:\n    question: x\n    relevant: [a,\n      b, a]\n"
    f = only(golden_findings(text), "QR102")
    for fix in f.fixes:
        fixed = apply_edits(text, fix.edits)
        assert "QR102" not in codes(golden_findings(fixed))
        assert parse_golden(fixed).findings == []


# -- suppression --------------------------------------------------------------------------------


def test_config_ignore_silences_a_code(tmp_path: Path, corpus: Path) -> None:
    text = "corpus: corpus\nqueries:\n  q:\n    question: x\n    relevant: [kb/nope.md]\n  r:\n    question: y\n"
    path = write(tmp_path / "g.qrels.yaml", text + "judgments: exhaustive\n")  # (else QR120)
    assert codes(project_findings(path, tmp_path)) == ["QR104", "QR106"]
    project = Project(Config(root=tmp_path, ignore=frozenset({"QR106"})), boundary=ANYWHERE)
    analysis = project.analyse(path)
    assert analysis is not None
    assert codes(analysis.findings) == ["QR104"]


def test_config_file_ignore_is_read_and_applied(tmp_path: Path) -> None:
    write(tmp_path / "qrels-lsp.toml", 'ignore = ["qr104"]\n')
    path = write(tmp_path / "g.qrels.yaml", "queries:\n  q:\n    question: y\njudgments: pooled\n")
    from qrels_lsp.core.project.config import load_config

    config = load_config(path)
    assert config.ignore == frozenset({"QR104"})
    analysis = Project(config, boundary=ANYWHERE).analyse(path)
    assert analysis is not None and analysis.findings == []


@pytest.mark.parametrize("variant", ["lf", "crlf", "cr"])
def test_inline_comment_silences_codes_on_its_line(tmp_path: Path, variant: str) -> None:
    text = VARIANTS[variant](
        "queries:\n"
        "  q1:  # qrels-lsp: ignore[QR104]\n"
        "    question: x\n"
        "  q2:  # qrels-lsp: ignore[QR106, qr107]\n"
        "    relevant: [a, a]\n"
        "  q3:  # qrels-lsp: ignore\n"
        "  q4:\n"
        "    question: x\n"
        "    relevant: [b, b]  # qrels-lsp: ignore[QR104]\n"
        "judgments: exhaustive\n"  # (else QR120 says what they are read as)
    )
    path = write(tmp_path / "g.qrels.yaml", text)
    found = project_findings(path, tmp_path)
    lines = LineIndex(text)
    got = sorted((f.code, lines.position(f.span.start)) for f in found)
    assert got == [
        ("QR102", (4, 18)),  # q2's duplicate: its line has no comment
        ("QR102", (8, 18)),  # QR104 silenced on that line, not QR102
        ("QR108", (7, 14)),  # q4 asks q1's question
    ]


# -- configuration findings ---------------------------------------------------------------------

CONFIG_CASES: list[tuple[str, str, str]] = [
    ("QR401", "qrels-lsp.toml", "⟦k⟧ = 0\n"),
    ("QR401", "qrels-lsp.toml", '# 😀 中文\n⟦relevance_level⟧ = "high"\n'),
    ("QR401", "qrels-lsp.toml", '⟦ignore⟧ = "QR104"\nk = 5\n'),
    ("QR401", "qrels-lsp.toml", '⟦metrics⟧ = ["recall@5", "bogus"]\n'),
    ("QR401", "qrels-lsp.toml", "k = 5\n⟦bm25_baseline⟧ = 3\n"),
    ("QR401", "qrels-lsp.toml", "k = 5\nignore = [\n⟦=⟧\n"),
    ("QR402", "qrels-lsp.toml", "k = 5\n⟦colour⟧ = 1\n"),
    ("QR402", "pyproject.toml", '[project]\nname = "x"\n[tool.qrels-lsp]\nk = 3\n⟦colour⟧ = 1\n'),
    (
        "QR401",
        "pyproject.toml",
        '[tool.other]\nk = "x"\n\n[tool.qrels-lsp]\n⟦k⟧ = "x"\n',
    ),
]


@pytest.mark.parametrize("variant", ["lf", "crlf"])
@pytest.mark.parametrize(("code", "name", "marked"), CONFIG_CASES)
def test_config_findings(code: str, name: str, marked: str, variant: str, tmp_path: Path) -> None:
    text, expected = strip_markers(VARIANTS[variant](marked))
    config = parse_config_text(text, tmp_path / name)
    found = [f for f in config.findings if f.code == code]
    assert [naive_range(text, f.span) for f in found] == [naive_range(text, s) for s in expected], (
        found
    )
    assert_spans_in(text, config.findings)


def test_bad_config_keeps_defaults_and_good_values(tmp_path: Path) -> None:
    config = parse_config_text(
        'k = 0\nrelevance_level = 2\nignore = ["qr110"]\n', tmp_path / "qrels-lsp.toml"
    )
    assert config.k == Config().k
    assert config.relevance_level == 2
    assert config.ignore == frozenset({"QR110"})
    assert codes(config.findings) == ["QR401"]


def test_every_finding_has_documented_code_and_severity() -> None:
    texts = [strip_markers(m)[0] for _, m in GOLDEN_CASES]
    for text in texts:
        for f in golden_findings(text):
            assert f.code in CODES
            assert f.severity == CODES[f.code].severity or f.code == "QR006"
            assert f.message.strip()
            assert_spans_in(text, [f])


def test_severity_replace_is_a_copy() -> None:
    f = only(golden_findings("queries:\n  q:\n    question: x\n"), "QR104")
    assert replace(f, severity=Severity.ERROR).severity == Severity.ERROR
    assert f.severity == Severity.WARNING


def test_run_scores_in_exponent_notation_are_numbers() -> None:
    # `1e-05` is what json.dumps and YAML 1.2 emitters write; YAML 1.1 alone would read text and
    # drop the document from the ranking.
    run = parse_run_yaml("results:\n  q: {a: 1e-05, b: 2E3, c: 0.5, d: -1}\n")
    assert run.findings == []
    assert run.rankings["q"].doc_ids() == ["b", "c", "a", "d"]
    assert codes(parse_run_yaml("results:\n  q: {a: 1e, b: '3'}\n").findings) == [
        "QR004",
        "QR004",
    ]


def test_cached_fixes_follow_the_files_line_break() -> None:
    """A one-line entry reads the same in an LF and a CRLF file, but its fix must insert the
    file's own line break: the check cache must not hand back the LF version (found by fuzzing)."""
    from qrels_lsp.core.checks import CheckCache, check_golden

    lf = "queries:\n  q1:\n  q2:\n    question: how?\n    relevant: [d1]\n"
    cache = CheckCache()
    for text in (lf, lf.replace("\n", "\r\n")):
        found = check_golden(parse_golden(text), text, None, cache=cache)
        mark = [f for f in found if f.code == "QR104" and f.fixes]
        assert mark, found
        inserted = mark[0].fixes[0].edits[0].new_text
        assert ("\r\n" in inserted) == ("\r\n" in text), (repr(text), repr(inserted))


def test_check_cache_sees_a_reloaded_corpus(tmp_path: Path) -> None:
    """A corpus read again after it changed is a new object: the findings cached with the old one
    (unknown documents) must go. The cache holds the corpus it was filled for, so that a new
    object at a freed one's address cannot pass for it."""
    import gc

    from qrels_lsp.core.checks import CheckCache, check_golden
    from qrels_lsp.core.formats.corpus import Corpus, load_corpus

    text = (
        "corpus: c.jsonl\nqueries:\n  q1:\n    question: how do I reset it?\n    relevant: [d1]\n"
    )
    corpus_file = tmp_path / "c.jsonl"
    cache = CheckCache()
    for doc_id, unknown in [("d2", True), ("d1", False), ("d2", True), ("d1", False)]:
        corpus_file.write_text(f'{{"_id": "{doc_id}", "text": "reset"}}\n', encoding="utf-8")
        corpus = load_corpus(corpus_file)
        assert isinstance(corpus, Corpus)
        found = check_golden(parse_golden(text), text, corpus, cache=cache)
        assert any(f.code == "QR106" for f in found) == unknown, doc_id
        del corpus, found
        gc.collect()


@pytest.mark.parametrize("topic_first", [True, False])
def test_a_question_from_a_topics_file_is_not_compared(topic_first: bool) -> None:
    """A question a topics file gave has no place in the golden set to point at: it neither
    makes nor gets a QR108, whichever comes first; two written questions still do."""
    from qrels_lsp.core.checks import check_golden

    text = (
        "queries:\n  q2:\n    question: what is x\n    relevant: [a]\n"
        "  q3:\n    question: What is X?\n    relevant: [b]\n  t1:\n    relevant: [c]\n"
    )
    qrels = parse_golden(text)
    topic = qrels.queries["t1"]
    topic.question = "What is X?"  # as a bound topics file gives it
    if topic_first:
        qrels.queries = {"t1": topic, **{q: v for q, v in qrels.queries.items() if q != "t1"}}
    found = [f for f in check_golden(qrels, text, None) if f.code == "QR108"]
    assert [(f.message.split("`")[1], f.related[0].span) for f in found] == [
        ("q3", qrels.queries["q2"].question_span)
    ]
