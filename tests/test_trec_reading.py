"""TREC files read exactly as trec_eval 10 reads them (issue 14, item 4).

Numbers are checked against the C library itself (``strtod``/``strtol`` through ctypes, the
functions trec_eval's ``atof``/``atol`` are), the order of a query with a NaN score against
glibc's own ``qsort`` with trec_eval's comparator, and what trec_eval does with a whole file
against trec_eval 10 built from source (tests/test_trec_eval_diff.py). Each surprising reading
has its finding, located where it happens.
"""

from __future__ import annotations

import ctypes
import errno
import json
import math
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.base.escape import valid_text
from qrels_lsp.core.base.files import read_text
from qrels_lsp.core.base.text import LineIndex
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.trec_lines import c_long, c_number, sniff_trec_kind
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels, read_trec_qrels_grades
from qrels_lsp.core.formats.trec_run import parse_trec_run, read_trec_run_ids
from qrels_lsp.core.metrics import order_by_score
from qrels_lsp.core.metrics.evaluate import evaluate
from qrels_lsp.core.metrics.metric import Metric

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.strtod.restype = ctypes.c_double
LIBC.strtod.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
LIBC.strtol.restype = ctypes.c_long
LIBC.strtol.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]

ENV = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONUTF8": "1"}


def c_strtod(s: str) -> tuple[float, int]:
    """(value, characters consumed) as C reads ``s`` (no NUL in it)."""
    raw = s.encode("utf-8", "surrogateescape")
    buf = ctypes.create_string_buffer(raw)
    end = ctypes.c_char_p()
    x = LIBC.strtod(buf, ctypes.byref(end))
    used = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buf)  # type: ignore[operator]
    return x, len(raw[:used].decode("utf-8", "surrogateescape"))


def c_strtol(s: str) -> tuple[int, int, bool]:
    """(value, characters consumed, whether it was out of range: ERANGE)."""
    raw = s.encode("utf-8", "surrogateescape")
    buf = ctypes.create_string_buffer(raw)
    end = ctypes.c_char_p()
    ctypes.set_errno(0)
    x = LIBC.strtol(buf, ctypes.byref(end), 10)
    out_of_range = ctypes.get_errno() == errno.ERANGE
    used = ctypes.cast(end, ctypes.c_void_p).value - ctypes.addressof(buf)  # type: ignore[operator]
    return x, len(raw[:used].decode("utf-8", "surrogateescape")), out_of_range


def same_float(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or struct.pack("<d", a) == struct.pack("<d", b)


# --- numbers: C's atof/atol, ASCII digits only ---------------------------------------------------

NUMBER_EDGES = [
    "0x1p1", "0X1P-3", "0x.8", "0x1.8p+1", "0x", "0x.", "0xg", "0x1p", "0x1p+", "-0x10",
    "0x1p99999", "0x1p-99999", "0x" + "f" * 300, "nan", "-nan", "NaN(abc_1)", "nan(", "nan()x",
    "inf", "-Infinity", "infinit", "infx", "1e", "1e+", "1e-3x", ".5", "5.", ".", "+.e1", "-",
    "1_0", "١", "٣2", "2٣", "1\u00a0", "1e400", "-1e400", "1e-400", "4.9e-324", "2.5e-324",
    "0" * 400 + "1", "1" + "0" * 400, "9" * 5000, "0.1", "-0", "+7", "7R", "R",
    "179769313486231580793728971405301e276", "2.4703282292062327e-324",
]  # fmt: skip


@pytest.mark.parametrize("s", NUMBER_EDGES)
def test_scores_are_read_as_c_atof(s: str) -> None:
    value, kind = c_number(s)
    c_value, used = c_strtod(s)
    assert same_float(value, c_value), (s, value, c_value)
    assert (kind in ("decimal", "hex", "inf", "nan")) == (used == len(s) and used > 0)


@pytest.mark.parametrize("s", NUMBER_EDGES)
def test_grades_are_read_as_c_atol(s: str) -> None:
    value, exact, clamped = c_long(s)
    c_value, used, out_of_range = c_strtol(s)
    assert value == c_value
    assert exact == (used == len(s) and used > 0)
    assert clamped == out_of_range


# Fields never hold a blank (they are split at blanks): no space here.
NUMBERISH = st.text(alphabet=st.sampled_from("0123456789abcdefxXpPeE.+-infatyINF()_R١٣\u00a0"))


@settings(max_examples=500, deadline=None)
@given(NUMBERISH)
def test_any_field_is_read_as_c_reads_it(s: str) -> None:
    value, kind = c_number(s)
    c_value, used = c_strtod(s)
    assert same_float(value, c_value), (s, value, c_value)
    assert (kind in ("decimal", "hex", "inf", "nan")) == (used == len(s) and used > 0)
    value, _, clamped = c_long(s)
    c_value, _, out_of_range = c_strtol(s)
    assert (value, clamped) == (c_value, out_of_range)


# --- the order of a query with a NaN score: glibc's qsort, replayed -----------------------------


class DocnoInfo(ctypes.Structure):
    """trec_eval's DOCNO_INFO (form_res_rels.c): the element its qsort moves."""

    _fields_ = [
        ("docno", ctypes.c_char_p),
        ("sim", ctypes.c_double),
        ("rank", ctypes.c_long),
        ("rel", ctypes.c_long),
    ]


COMPARE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


def glibc_order(scores: dict[str, float]) -> list[str]:
    """trec_eval's two sorts, by glibc's qsort with trec_eval's comparators (ported verbatim)."""
    docs = sorted(scores, key=lambda d: d.encode())  # comp_lines_qid_docno: strcmp order
    arr = (DocnoInfo * len(docs))(*[DocnoInfo(d.encode(), scores[d], 0, 0) for d in docs])

    def comp_sim_docno(a: int, b: int) -> int:
        p1, p2 = DocnoInfo.from_address(a), DocnoInfo.from_address(b)
        if p1.sim > p2.sim:
            return -1
        if p1.sim < p2.sim:
            return 1
        d1, d2 = p1.docno or b"", p2.docno or b""
        return (d2 > d1) - (d2 < d1)  # strcmp(p2->docno, p1->docno)

    LIBC.qsort(arr, len(docs), ctypes.sizeof(DocnoInfo), COMPARE(comp_sim_docno))
    return [(x.docno or b"").decode() for x in arr]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([f"d{i}" for i in range(40)] + ["é", "D1", "x", "文"]),
        st.sampled_from([float("nan"), 1.0, 2.0, -1.0, 0.0, float("inf"), 3.5]),
        min_size=1,
        max_size=40,
    )
)
def test_nan_scores_rank_as_glibc_sorts_them(scores: dict[str, float]) -> None:
    assert order_by_score(scores) == glibc_order(scores)


def test_a_nan_line_is_kept_with_a_finding() -> None:
    run = "q Q0 a 1 nan t\nq Q0 b 2 1 t\nq Q0 c 3 2 t\nq Q0 d 4 0.5 t\n"
    r = parse_trec_run(run)
    assert set(r.ranked_ids()["q"]) == {"a", "b", "c", "d"}
    assert r.ranked_ids()["q"] == glibc_order({"a": math.nan, "b": 1, "c": 2, "d": 0.5})
    assert read_trec_run_ids(run) == r.ranked_ids()
    (nan,) = [f for f in r.findings if f.code == "QR311"]
    assert run[nan.span.start : nan.span.end] == "nan"
    assert "trec_eval keeps the line" in nan.message


def test_hex_float_scores_rank_by_their_value() -> None:
    run = "q Q0 a 1 0x1p1 t\nq Q0 b 2 1.5 t\n"  # 0x1p1 is 2.0 to C: a first
    r = parse_trec_run(run)
    assert r.ranked_ids()["q"] == ["a", "b"] == read_trec_run_ids(run)["q"]
    (hexa,) = [f for f in r.findings if f.code == "QR312"]
    assert run[hexa.span.start : hexa.span.end] == "0x1p1" and "2.0" in hexa.message


def test_non_ascii_digits_are_no_digits() -> None:
    q = parse_trec_qrels("q 0 a ١\nq 0 b 1\n")
    assert q.grades() == {"q": {"a": 0, "b": 1}}  # atol reads no digit in '١': 0, judged
    assert [f.code for f in q.findings] == ["QR306"]
    r = parse_trec_run("q Q0 a 1 ٣ t\nq Q0 b 2 1 t\n")
    assert [d.score for d in r.rankings["q"].docs] == [1.0, 0.0]


# --- grades --------------------------------------------------------------------------------------


def test_a_grade_without_digits_is_judged_not_relevant() -> None:
    text = "q 0 a R\nq 0 b 1\n"
    q = parse_trec_qrels(text)
    assert q.grades() == {"q": {"a": 0, "b": 1}} == read_trec_qrels_grades(text)
    (f,) = q.findings
    assert f.code == "QR306" and text[f.span.start : f.span.end] == "R"
    assert "reads it as 0" in f.message


HUGE = ["9" * 309, "9" * 4301, "9" * 100_000, str(2**63 - 1), str(2**63), str(2**53 + 1)]


@pytest.mark.parametrize("grade", HUGE, ids=lambda g: g[:4] + f"..({len(g)})")
@pytest.mark.parametrize("fmt", ["trec", "json", "golden"])
def test_grades_out_of_range_are_left_out_with_a_finding(grade: str, fmt: str) -> None:
    """A grade beyond ±2^53 (a 309-digit one overflowed float() in the gains: a traceback; C's
    LONG_MAX, 9223372036854775807, makes trec_eval's count of grade levels overflow) is an
    error where it is written and its judgment is left out, in every qrels format and by the
    fast readers alike; 2^53 itself is a grade."""
    from qrels_lsp.core.formats.json_qrels import parse_json_qrels, read_json_grades

    if fmt == "trec":
        text = f"q 0 a {grade}\nq 0 b -{grade}\nq 0 c 1\nq 0 d {2**53}\n"
        q, fast = parse_trec_qrels(text), read_trec_qrels_grades(text)
    elif fmt == "json":
        text = f'{{"q": {{"a": {grade}, "b": -{grade}, "c": 1, "d": {2**53}}}}}'
        q, fast = parse_json_qrels(text), read_json_grades(text)
    else:
        text = f"queries:\n  q:\n    relevant: {{a: {grade}, b: -{grade}, c: 1, d: {2**53}}}\n"
        q = parse_golden(text)
        fast = q.grades()
    assert q.grades() == {"q": {"c": 1, "d": 2**53}} == fast
    out = [f for f in q.findings if f.code == "QR307"]
    assert [text[f.span.start : f.span.end] for f in out] == [grade, f"-{grade}"]
    assert "out of range" in out[0].message and "trec_eval" in out[0].message
    assert out[0].severity.label == "error" and len(out[0].message) < 600
    metrics = [Metric("ndcg", 10), Metric("map"), Metric("precision", 10), Metric("rbp")]
    ev = evaluate(q.grades(), {"q": ["a", "b", "c"]}, metrics)
    assert all(0.0 <= v <= 1.0 for v in ev.per_query["q"].values())


# --- lines, fields, comments ----------------------------------------------------------------------


def test_tabs_spaces_and_crs_are_all_blanks() -> None:
    mixed = "q1\t0 a\t\t1\r\nq1\x0b0\x0cc \t3\r\nq1 \t0\td\x0bb\x0c 2\r\n"
    # d\vb is two fields: five in the line, which trec_eval refuses (Malformed line): left out
    assert parse_trec_qrels(mixed).grades() == {"q1": {"a": 1, "c": 3}}
    assert read_trec_qrels_grades(mixed) == {"q1": {"a": 1, "c": 3}}
    assert parse_trec_qrels("q1 0 a 1\nq1 0 b\t 2\n").grades() == {"q1": {"a": 1, "b": 2}}


def test_a_lone_cr_is_a_blank_inside_the_line() -> None:
    run = "q Q0 a 1\r2 t\nq Q0 b 1 1 t\n"  # to trec_eval: one line, score 2
    r = parse_trec_run(run)
    assert r.ranked_ids()["q"] == ["a", "b"] == read_trec_run_ids(run)["q"]
    (cr,) = [f for f in r.findings if f.code == "QR305"]
    assert run[cr.span.start : cr.span.end] == "\r"
    assert LineIndex(run).position(cr.span.start) == (0, 8)


def test_a_two_tab_trec_line_is_not_beir() -> None:
    assert sniff_trec_kind("q1\t0\ta 1\nq1 0 b 0\n") == "trec-qrels"
    assert sniff_trec_kind("q1\tQ0\ta 1 2.5 tag\n") == "trec-run"
    assert sniff_trec_kind("q1 Q0\ta\t1 2.5 tag\n") == "trec-run"
    assert sniff_trec_kind("query-id\tcorpus-id\tscore\nq1\td1\t1\n") == "beir-qrels"
    assert sniff_trec_kind("q1\td1\t1\n") == "beir-qrels"


def test_qrels_comments_only_at_the_very_start_of_a_line() -> None:
    text = "# a comment\nq 0 a 1\n  # not a comment to trec_eval\nq 0 b 1\n\t# x y z\n"
    q = parse_trec_qrels(text)
    assert q.grades() == {"q": {"a": 1, "b": 1}, "#": {"y": 0}}  # the 4-field one is data
    assert read_trec_qrels_grades(text) == q.grades()
    first, second, _grade = q.findings
    assert (first.code, second.code) == ("QR308", "QR308")
    assert "refuses the file" in first.message and "reads it as a judgment" in second.message
    assert text[first.span.start : first.span.end] == "#"


def test_qrels_comment_runs_and_endings() -> None:
    text = "# one\n# two\nq 0 a 1\n\nq 0 b 1\n# last\n"
    q = parse_trec_qrels(text)
    assert q.grades() == {"q": {"a": 1, "b": 1}} == read_trec_qrels_grades(text)
    assert [f.code for f in q.findings] == ["QR308", "QR310", "QR309"]
    second, blank, last = q.findings
    assert LineIndex(text).position(second.span.start) == (1, 0)
    assert LineIndex(text).position(blank.span.start) == (3, 0)
    assert "segmentation fault" in last.message
    assert parse_trec_qrels("q 0 a 1\n# last, no line feed").findings[0].code == "QR309"
    assert parse_trec_qrels("q 0 a 1\n").findings == []  # the final line feed ends no blank line


def test_run_comments_may_be_indented() -> None:
    text = "  # a comment\nq Q0 a 1 1 t\n\n\t#another\n"
    r = parse_trec_run(text)
    assert r.findings == [] and r.ranked_ids() == {"q": ["a"]} == read_trec_run_ids(text)


# --- bytes: BOM and invalid UTF-8 -----------------------------------------------------------------


def test_a_bom_stays_in_the_first_query_id(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_bytes(b"\xef\xbb\xbfq1 0 a 1\nq1 0 b 1\n")
    text, problem = read_text(path)
    assert text is not None and problem is None
    q = parse_trec_qrels(text)
    assert q.grades() == {"\ufeffq1": {"a": 1}, "q1": {"b": 1}} == read_trec_qrels_grades(text)
    (bom,) = q.findings
    assert bom.code == "QR304" and bom.span.start == 0 and "'\\ufeffq1'" in bom.message
    yaml = tmp_path / "g.qrels.yaml"
    yaml.write_bytes(b"\xef\xbb\xbfqueries: {}\n")
    assert not (read_text(yaml)[0] or "").startswith("\ufeff")


def test_ids_differing_in_invalid_bytes_stay_distinct(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_bytes(b"q1 0 d\xff 1\nq1 0 d\xfe 0\n")
    text, problem = read_text(path)
    assert text is not None and problem is not None and "as bytes" in problem
    q = parse_trec_qrels(text)
    assert q.findings == []  # not a duplicate: two documents, as trec_eval has them
    assert q.grades() == {"q1": dict([("d\udcff", 1), ("d\udcfe", 0)])}
    assert valid_text("d\udcff") == "d\\xff"
    # Bytes order: 0xff sorts above U+E000 (0xee 0x80 0x80), though U+DCFF is below it.
    assert order_by_score({"a\udcff": 1.0, "a\ue000": 1.0}) == ["a\udcff", "a\ue000"]


OUTPUTS = [("score", f) for f in ("table", "json", "markdown", "trec")] + [
    ("check", f) for f in ("text", "json", "github")
]


@pytest.mark.parametrize(("command", "fmt"), OUTPUTS)
def test_invalid_bytes_print_as_escapes_in_every_output(
    tmp_path: Path, command: str, fmt: str
) -> None:
    qrels = tmp_path / "q.qrels"
    qrels.write_bytes(b"q\xff1 0 d\xff 1\nq\xff1 0 d\xfe 1\nq\xff1 0 d\xfe 1\n")
    run = tmp_path / "r.run"
    run.write_bytes(b"q\xff1 Q0 d\xfe 1 2 t\nq\xff1 Q0 d\xff 2 1 t\n")
    args = [qrels, run] if command == "score" else [qrels]
    r = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", command, *map(str, args), "--format", fmt],
        capture_output=True,
        env=ENV,
        cwd=tmp_path,
        timeout=120,
    )
    out = r.stdout.decode("utf-8")  # valid UTF-8, or this raises
    assert "Traceback" not in r.stderr.decode("utf-8"), r.stderr
    assert out, r.stderr
    if fmt == "json":
        json.loads(out)  # strict JSON: the undecodable byte is written as \udcff
        assert "q\\udcff1" in out
    else:
        assert "\\xff1" in out, out  # (markdown doubles the backslash)
    if command == "check":  # the same byte twice is a duplicate; two different bytes are not
        assert out.count("judged twice") == 1


def test_relevance_level_below_zero_is_explained() -> None:
    text = "relevance_level: -1\nqueries:\n  q:\n    question: hi\n    relevant: [a]\n"
    (f,) = [f for f in parse_golden(text).findings if f.code == "QR313"]
    assert text[f.span.start : f.span.end] == "-1"
    assert "unjudged document as relevant" in f.message


def test_editor_messages_escape_invalid_bytes() -> None:
    from qrels_lsp.lsp.convert import Positions, diagnostic

    text = b"q1 0 d\xff 1\nq1 0 d\xff 1\n".decode("utf-8", "surrogateescape")
    (dup,) = parse_trec_qrels(text).findings
    d = diagnostic(dup, Positions(text, "utf-16"), "file:///qrels", {})
    assert "d\\xff" in d.message
    d.message.encode("utf-8")  # valid Unicode: strict JSON readers take it
    assert all(r.message.encode("utf-8") for r in d.related_information or [])


def test_score_with_a_negative_level_says_how_trec_eval_differs(tmp_path: Path) -> None:
    (tmp_path / "q.qrels").write_text("q 0 a 1\nq 0 b 0\n")
    (tmp_path / "r.run").write_text("q Q0 x 1 3 t\nq Q0 a 2 2 t\n")
    r = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", "score", "q.qrels", "r.run", "-l", "-1"],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=tmp_path,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "trec_eval -l -1 counts every retrieved unjudged document as relevant" in r.stderr


# --- the runid, and blanks that are not trec_eval's ------------------------------------------------


def _trec_output(tmp_path: Path, qrels: bytes, run: bytes) -> list[str]:
    (tmp_path / "q.qrels").write_bytes(qrels)
    (tmp_path / "r.run").write_bytes(run)
    r = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", "score", "q.qrels", "r.run", "--format", "trec",
         "--metrics", "map"],
        capture_output=True, env=ENV, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return r.stdout.decode("utf-8").splitlines()


def test_the_runid_is_the_last_lines_tag(tmp_path: Path) -> None:
    """trec_eval 10 keeps each line's tag over the last one's (get_trec_results.c): runid is the
    last result line's tag, whatever the first line says; comments and short lines after it do
    not count."""
    out = _trec_output(
        tmp_path,
        b"q1 0 d1 1\nq2 0 d3 1\n",
        b"q1 Q0 d1 1 2.0 first\nq2 Q0 d3 1 1.0 last\n# a comment 1 2 3 4 5 6\n\n",
    )
    assert "runid                 \tall\tlast" in out
    text = "q1 Q0 d1 1 2.0 first\nq2 Q0 d3 1 1.0 last\n#c c c c c c\n"
    assert parse_trec_run(text).name == "last"


def test_a_no_break_space_is_no_blank(tmp_path: Path) -> None:
    """U+00A0 (bytes C2 A0) is not a blank to C's isspace in the C locale, which trec_eval
    splits fields with; Python's str.split() takes it for one. A document id holding it is one
    field, and so is a tag: the runid is the sixth field as trec_eval counts them."""
    nbsp = "\u00a0".encode()
    out = _trec_output(
        tmp_path,
        b"q1 0 d" + nbsp + b"x 1\nq1 0 d2 0\n",
        b"q1 Q0 d" + nbsp + b"x 1 2.0 r\nq1 Q0 d2 2 1.0 r" + nbsp + b"x\n",
    )
    assert "runid                 \tall\tr\u00a0x" in out  # not `2.0`, nor `r`
    assert "map                   \tq1\t1.0000" in out
