"""The column reader of big runs (core/formats/trec_columns.py) against the full parser.

``ranked_columns`` is a speed trick: on any input it returns either exactly what
``parse_trec_run(text).ranked_ids()`` gives (trec_eval's order) or None. These properties draw
runs as retrievers write them (queries in blocks, listed best first or not, tied and repeated
scores, documents twice) and then spoil them the ways files are spoiled (tabs, CRs, NBSP, bytes
that are not UTF-8, extra or missing fields, comments, blank lines), and compare."""

from __future__ import annotations

from typing import Any

from conftest import TEST_DATA, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.formats.trec_columns import VECTOR_BYTES, ranked_columns
from qrels_lsp.core.formats.trec_run import parse_trec_run, read_trec_run_ids

SETTINGS = settings(max_examples=examples(1000), deadline=None)

# Scores the numpy decimal parser reads, and ones it leaves to float() (exponents, inf, nan,
# 16+ digits) or refuses (C reads them otherwise than float(): hex, underscores, a bare "1e").
DECIMALS = ["1", "1.0", "2.5", "-3", ".5", "5.", "-.5", "-0", "0", "0.0", "007", "49.935553"]
DECIMALS += ["-12.25", "123456789012345", "0.00000000000001", "99999999999999.9"]
FLOATS = ["1e3", "-2.5E-3", "inf", "-inf", "nan", "1e400", "1234567890123456789", "+4"]
REFUSED = ["0x10", "1_0", "1e", "NaN(x)", "0x1p1", "--1", "1.2.3", "-", "."]
QIDS = ["q1", "q2", "10", "Q0", "301", "a-very-long-query-identifier"]
DOCS = ["d1", "d2", "D10", "D9", "Q0", "x", "doc-0000000001"]
SPOILS = ["\t", "  ", "\r\n", "\r", "\xa0", "\udcff", "\x1c", "\x00", "#", "é", "\u3000"]
PLAIN = [DECIMALS, ["-3", "-12.25", "1", "2.5", "-.5", "-0", "0", "10"], ["nan", "1", "2", "inf"]]
PLAIN += [DECIMALS + FLOATS]


@st.composite
def run_text(draw: Any, pools: list[list[str]], spoil: bool) -> str:
    scores = draw(st.sampled_from(pools))
    rows = draw(
        st.lists(
            st.tuples(st.sampled_from(QIDS), st.sampled_from(DOCS), st.sampled_from(scores)),
            min_size=1,
            max_size=40,
        )
    )
    if draw(st.booleans()):  # queries in blocks, as retrievers write them
        rows.sort(key=lambda r: r[0])
    if draw(st.booleans()):  # each query best first
        rows.sort(key=lambda r: (r[0], -float(r[2]) if r[2] in DECIMALS else 0.0))
    lines = [f"{q} Q0 {d} {i} {s} tag" for i, (q, d, s) in enumerate(rows, start=1)]
    if spoil:
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(lines) - 1))
            line = lines[i]
            at = draw(st.integers(0, len(line)))
            fields = line.split(" ")
            k = draw(st.integers(0, len(fields) - 1))  # inside a field (a blank there splits it)
            mark = draw(st.sampled_from(SPOILS))
            fields[k] = fields[k][:1] + mark + fields[k][1:]
            lines[i] = draw(
                st.sampled_from(
                    [
                        line[:at] + mark + line[at:],
                        " ".join(fields),
                        line + " extra",
                        line.rsplit(" ", 1)[0],
                        "#" + line,
                        "",
                        " " + line,
                        line + " ",
                    ]
                )
            )
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))


def _agrees(text: str) -> dict[str, list[str]] | None:
    got = ranked_columns(text)
    if got is not None:
        assert got == parse_trec_run(text).ranked_ids()
    return got


@SETTINGS
@given(run_text(PLAIN, spoil=False))
def test_plain_runs_are_read_by_columns_as_the_parser_reads_them(text: str) -> None:
    got = _agrees(text)
    qids = [line.split()[0] for line in text.split("\n") if line]
    blocks = [q for i, q in enumerate(qids) if i == 0 or qids[i - 1] != q]
    in_blocks = len(blocks) == len(set(blocks))
    # (a query in two blocks, or a blank line, sends the file to the line reader)
    assert got is not None or not in_blocks or "\n\n" in text


@SETTINGS
@given(run_text([*PLAIN, DECIMALS + REFUSED], spoil=True))
def test_spoiled_runs_are_read_as_the_parser_reads_them_or_left_to_it(text: str) -> None:
    _agrees(text)


@SETTINGS
@given(st.text(alphabet=st.sampled_from(" \n\t\r#0123456789.-eQ_dq" + "".join(SPOILS))))
def test_any_text_is_read_as_the_parser_reads_it_or_left_to_it(text: str) -> None:
    _agrees(text)


def test_refused_scores_are_left_to_the_line_reader() -> None:
    for score in REFUSED:
        assert ranked_columns(f"q1 Q0 d1 1 {score} tag\nq1 Q0 d2 2 1 tag\n") is None, score


def test_a_query_in_two_blocks_is_left_to_the_line_reader() -> None:
    text = "q1 Q0 d1 1 3 t\nq2 Q0 d1 1 3 t\nq1 Q0 d2 2 2 t\n"
    assert ranked_columns(text) is None
    assert read_trec_run_ids(text) == {"q1": ["d1", "d2"], "q2": ["d1"]}


def test_a_real_run_is_read_by_columns() -> None:
    text = (TEST_DATA / "vaswani/bm25_top100.run").read_text(encoding="utf-8")
    got = ranked_columns(text)
    assert got is not None
    assert got == parse_trec_run(text).ranked_ids()


def test_big_runs_take_the_column_reader() -> None:
    """Past VECTOR_BYTES, read_trec_run_ids is the column reader: a run whose last query holds
    a document twice (the first kept, as the parser keeps it) and ties broken by doc id."""
    lines = [line for q in range(150) for line in _query(q)]
    lines += ["q9999 Q0 dup 1 5 tag", "q9999 Q0 b 2 4 tag", "q9999 Q0 dup 3 9 tag"]
    lines += ["q9998 Q0 a 1 5 tag", "q9998 Q0 b 2 5 tag"]
    text = "\n".join(lines) + "\n"
    assert len(text) >= VECTOR_BYTES
    assert ranked_columns(text) is not None
    got = read_trec_run_ids(text)
    assert got == parse_trec_run(text).ranked_ids()
    assert got["q9999"] == ["dup", "b"] and got["q9998"] == ["b", "a"]


def _query(q: int) -> list[str]:
    return [f"q{q:04d} Q0 d{d:03d} {d + 1} {100 - d / 8:.3f} tag" for d in range(300)]


def test_decimal_scores_are_parsed_in_numpy_exactly_as_float_parses_them() -> None:
    """The numpy parser takes every plain decimal (not leaving it to float()), bit for bit."""
    import numpy as np
    from qrels_lsp.core.formats.trec_columns import _decimal_scores

    column = " ".join(DECIMALS) + " "
    arr = np.frombuffer(column.encode(), dtype=np.uint8)
    stop = np.flatnonzero(arr == 32)
    start = np.concatenate(([0], stop[:-1] + 1))
    got = _decimal_scores(arr, start, stop)
    assert got is not None
    assert [x.hex() for x in got.tolist()] == [float(s).hex() for s in DECIMALS]
