"""Differential test: generated TREC qrels and runs, scored by qrels-lsp and by trec_eval 10.

The files hold every reading trec_eval has an opinion on: tabs, spaces, vertical tabs, form feeds
and lone CRs between fields, CRLF, comments where trec_eval 10 takes them, a BOM, ids with
non-ASCII and invalid UTF-8 bytes, grades such as ``R``, ``2.7``, ``١`` or ``+1``, scores such as
``0x1p1``, ``nan``, ``inf``, ``1e``, ``3abc`` and ties. Each file is written as bytes, read as the
CLI reads it (``read_text``), parsed by the full parser and by the fast readers, and every
per-query value trec_eval prints (``-q -c``) must be qrels-lsp's, to trec_eval's four decimals.

The binary is trec_eval 10 built from its source (github.com/usnistgov/trec_eval, ``make``),
named by ``QRELS_TREC_EVAL``; without it the test is skipped. No package registry carries
trec_eval 10: pytrec-eval-terrier's sdist (0.5.11, 18 kB) holds no trec_eval source and fetches
trec_eval 9.0.8 from GitHub while building, without its file readers' main (``trec_eval.c``). So
CI checks the pieces against what it has (tests/test_trec_reading.py: libc's strtod/strtol, glibc's
qsort, pytrec_eval), and this test is run where trec_eval 10 is built.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from qrels_lsp.core.base.files import read_text
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels, read_trec_qrels_grades
from qrels_lsp.core.formats.trec_run import parse_trec_run, read_trec_run_ids, trec_run_tag
from qrels_lsp.core.formats.trec_stream import StreamStats, stream_rankings
from qrels_lsp.core.metrics import RunCut, format_value
from qrels_lsp.core.metrics.evaluate import evaluate, evaluate_stream
from qrels_lsp.core.metrics.metric import Metric, trec_eval_name

TREC_EVAL = os.environ.get("QRELS_TREC_EVAL", "")
CASES = int(os.environ.get("QRELS_TREC_EVAL_CASES", "300"))

if not TREC_EVAL or not os.access(TREC_EVAL, os.X_OK):
    pytest.skip("no trec_eval 10 binary (QRELS_TREC_EVAL)", allow_module_level=True)

METRICS = [
    Metric("precision", 5),
    Metric("precision", 10),
    Metric("recall", 10),
    Metric("ndcg", 10),
    Metric("map"),
    Metric("mrr"),
    Metric("hit_rate", 10),
    # issue 16: coverage and the other trec_eval measures
    Metric("judged", 5),
    Metric("judged", 10),
    Metric("bpref"),
    Metric("rprec"),
    Metric("ndcg"),
    Metric("map", 5),
    Metric("rbp"),
    # the measures at parity with ir_measures that trec_eval has
    Metric("infap"),
    Metric("set_precision"),
    Metric("set_recall"),
    Metric("set_f"),
]
TREC_NAMES = {name: str(m) for m in METRICS if (name := trec_eval_name(m)) is not None}
COMPLEMENT = {str(m) for m in METRICS if m.measure.complement}  # trec_eval prints 1 - ours

QIDS = [b"q1", b"q2", b"10", b"\xe6\x96\x87", b"q\xff", b"q\xfe"]
DOCS = [b"d%d" % i for i in range(1, 13)] + [b"D1", b"\xc3\xa9", b"d\xff", b"d\xfe", b"d#1"]
DOCS += [b"d\xc2\xa0x", b"d\x1cx"]  # a no-break space, a separator str.split() takes
TAGS = [b"tag", b"t2", b"t\xc2\xa0x"]
GRADES = [b"0", b"1", b"2", b"3", b"-1", b"R", b"2.7", b"\xd9\xa1", b"+1", b"01", b"1x", b"-0"]
SCORES = [
    b"1", b"2", b"2.5", b"0x1p1", b"0x1.8p1", b"nan", b"inf", b"-inf", b"1e", b"3abc", b".5",
    b"-0", b"0", b"1e-400", b"1_0", b"\xd9\xa3", b"1e400", b"NaN(x)", b"0X.8P1",
]  # fmt: skip
BLANKS = [b" ", b"\t", b"  ", b" \t", b"\x0b", b"\x0c", b"\r", b"\t\t"]


def _sep(rng: random.Random) -> bytes:
    return rng.choice(BLANKS) if rng.random() < 0.4 else b" "


def _end(rng: random.Random) -> bytes:
    return rng.choice([b"\n", b"\n", b"\r\n", b" \n", b"\t\r\n"])


def _lead(rng: random.Random) -> bytes:
    return rng.choice([b"", b"", b"", b" ", b"\t"])


def make_qrels(rng: random.Random) -> bytes:
    """A qrels file trec_eval 10 accepts: no blank line, no repeat, comments one at a time at the
    start of a line and never last."""
    lines: list[bytes] = []
    pairs = {(q, d) for q in rng.sample(QIDS, rng.randint(1, 4)) for d in rng.sample(DOCS, 6)}
    for q, d in sorted(pairs, key=lambda _: rng.random()):
        if rng.random() < 0.1 and (not lines or not lines[-1].startswith(b"#")):
            lines.append(b"# a comment  with\tblanks" + _end(rng))
        fields = [q, rng.choice([b"0", b"Q0", b"iter"]), d, rng.choice(GRADES)]
        line = _lead(rng) + b"".join(f + _sep(rng) for f in fields[:-1]) + fields[-1]
        lines.append(line + rng.choice([b"", b" ", b"\t"]) + _end(rng))
    if rng.random() < 0.1:  # now and then what trec_eval refuses, or crashes on
        trouble = [b"\n", b" \t\n", b"# c\n# d\n", b"q1 0 d1 " + b"9" * 30 + b"\n", lines[0]]
        lines.insert(rng.randint(0, len(lines)), rng.choice(trouble))
    if rng.random() < 0.03:
        lines.append(b"# last\n")
    data = b"".join(lines)
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data
    return data.removesuffix(b"\n") if rng.random() < 0.1 else data


def make_run(rng: random.Random) -> bytes:
    lines: list[bytes] = []
    for q in rng.sample(QIDS, rng.randint(1, 5)):
        for rank, d in enumerate(rng.sample(DOCS, rng.randint(1, 12)), start=1):
            if rng.random() < 0.08:
                lines.append(_lead(rng) + b"# comment" + _end(rng))
            if rng.random() < 0.05:
                lines.append(rng.choice([b"", b" ", b"\t", b"\r"]) + b"\n")
            fields = [q, b"Q0", d, b"%d" % rank, rng.choice(SCORES), rng.choice(TAGS)]
            if rng.random() < 0.1:
                fields.append(b"extra fields")
            line = _lead(rng) + _sep(rng).join(fields)
            lines.append(line + _end(rng))
    rng.shuffle(lines)
    data = b"".join(lines)
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data
    return data


def trec_eval(
    qrels: Path, run: Path, options: tuple[str, ...] = ()
) -> dict[tuple[str, str], str] | None:
    """(measure, qid) -> value as trec_eval prints them; None when it refuses the files (or
    crashes: a comment last in the qrels)."""
    args = [TREC_EVAL, "-q", "-c", *options, "-m", "runid"]
    args += [a for n in TREC_NAMES for a in ("-m", _te_measure(n))]
    done = subprocess.run([*args, str(qrels), str(run)], capture_output=True, timeout=60)
    if done.returncode != 0:
        return None
    out: dict[tuple[str, str], str] = {}
    for line in done.stdout.decode("utf-8", "surrogateescape").splitlines():
        name, qid, value = line.split("\t")
        name = name.strip()
        if qid != "all" and name in TREC_NAMES:
            out[(TREC_NAMES[name], qid)] = value
        elif name == "runid":
            out[("runid", qid)] = value
    return out


def _te_measure(name: str) -> str:
    """``P_5`` -> ``P.5``, ``rbp_p=0.8`` -> ``rbp.p=0.8`` (trec_eval's parameter syntax)."""
    base, _, k = name.rpartition("_")
    return f"{base}.{k}" if k.isdigit() or "=" in k else name


def ours(qrels: Path, run: Path, cut: RunCut | None = None) -> dict[tuple[str, str], str]:
    qtext, _ = read_text(qrels)
    rtext, _ = read_text(run)
    assert qtext is not None and rtext is not None
    grades = parse_trec_qrels(qtext).grades()
    ranked = parse_trec_run(rtext).ranked_ids()
    assert read_trec_qrels_grades(qtext) == grades
    assert read_trec_run_ids(rtext) == ranked
    cut = cut or RunCut()
    ev = evaluate(grades, cut.apply(ranked, grades), METRICS)
    for chunk in (1, 7, 64):  # streamed as `score` streams a large run, in chunks of bytes
        parts = cut.stream(stream_rankings(run, StreamStats(), chunk), grades)
        assert evaluate_stream(grades, parts, METRICS) == ev
    return {
        (name, qid): format_value(1.0 - v if name in COMPLEMENT else v).strip()
        for qid, values in ev.per_query.items()
        for name, v in values.items()
    } | {("runid", "all"): trec_run_tag(rtext) or ""}


# The findings that say trec_eval refuses a file (or crashes on it).
REFUSALS = {"QR301", "QR203", "QR303", "QR307", "QR308", "QR309", "QR310"}


def _codes(qrels: Path, run: Path) -> set[str]:
    qtext, _ = read_text(qrels)
    rtext, _ = read_text(run)
    assert qtext is not None and rtext is not None
    found = parse_trec_qrels(qtext).findings + parse_trec_run(rtext).findings
    return {f.code for f in found}


def test_trec_eval_10_gives_the_same_numbers(tmp_path: Path) -> None:
    rng = random.Random(14)
    compared = refused = 0
    for case in range(CASES):
        qrels, run = tmp_path / f"qrels{case}", tmp_path / f"run{case}"
        qrels.write_bytes(make_qrels(rng))
        run.write_bytes(make_run(rng))
        theirs = trec_eval(qrels, run)
        if theirs is None:  # qrels-lsp says why
            refused += 1
            assert REFUSALS & _codes(qrels, run), (case, qrels.read_bytes(), run.read_bytes())
            continue
        mine = ours(qrels, run)
        for key, value in theirs.items():
            assert mine.get(key) == value, (case, key, value, mine.get(key))
        compared += len(theirs)
    assert refused < CASES // 4 and compared > CASES * 5


def test_trec_eval_10_with_depth_and_judged_only(tmp_path: Path) -> None:
    """trec_eval's -M N and -J against core/metrics/cut.py's RunCut, on the same generated
    files: the ranking cut to its first N in trec_eval's order, then the unjudged removed."""
    rng = random.Random(30)
    compared = 0
    for case in range(CASES // 2):
        qrels, run = tmp_path / f"qrels{case}", tmp_path / f"run{case}"
        qrels.write_bytes(make_qrels(rng))
        run.write_bytes(make_run(rng))
        depth = rng.choice([None, 1, 2, 3, 5, 8])
        judged_only = rng.random() < 0.6
        options = (("-M", str(depth)) if depth is not None else ()) + (("-J",) * judged_only)
        theirs = trec_eval(qrels, run, options)
        if theirs is None:
            continue
        mine = ours(qrels, run, RunCut(depth, judged_only))
        for key, value in theirs.items():
            assert mine.get(key) == value, (case, options, key, value, mine.get(key))
        compared += len(theirs)
    assert compared > CASES * 2


@pytest.mark.slow
def test_a_run_past_the_editors_cap_is_scored_as_trec_eval_scores_it(tmp_path: Path) -> None:
    """`score` streams a TREC run of any size (here 70 MB, past the 64 MiB the editor holds):
    every per-query value is trec_eval's, and the means too."""
    rng = random.Random(19)
    qrels, run = tmp_path / "qrels.txt", tmp_path / "big.trec"
    judged = {q: rng.sample(range(50_000), 60) for q in range(2_000)}
    qrels.write_text(
        "".join(f"{q} 0 D{d} {rng.choice('0012')}\n" for q, docs in judged.items() for d in docs)
    )
    with run.open("w") as f:
        for q, docs in judged.items():
            pool = (
                docs[:30] + [d for d in rng.sample(range(50_000), 1_200) if d not in docs][:1_070]
            )
            f.write(
                "".join(f"{q} Q0 D{d} {r} {1e4 - r * 7.3:.4f} big\n" for r, d in enumerate(pool, 1))
            )
    assert run.stat().st_size > 64 * 2**20
    measures = ["P.10", "recall.10", "ndcg_cut.10", "map", "recip_rank"]
    args = [TREC_EVAL, "-q", "-c"] + [a for m in measures for a in ("-m", m)]
    theirs = subprocess.run(
        [*args, str(qrels), str(run)], capture_output=True, text=True, check=True
    )
    mine = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", "score", str(qrels), str(run), "--format", "trec", "--metrics",
         "precision@10,recall@10,ndcg@10,map,mrr"],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    )  # fmt: skip
    assert mine.stderr == ""

    def table(out: str) -> dict[tuple[str, str], str]:
        rows = (line.split() for line in out.splitlines())
        return {(r[0], r[1]): r[2] for r in rows if r[0] not in ("runid", "num_q")}

    assert table(mine.stdout) == table(theirs.stdout)
    assert len(table(theirs.stdout)) == 5 * 2_001


@pytest.mark.parametrize(
    ("qrels", "run", "codes"),
    [
        (b"q0 0 d3 -1\nq1 0 d1 1\n", b"q0 Q0 d3 1 1 r\nq1 Q0 d1 1 1 r\n", {4}),  # first: exit 4
        (b"q1 0 d1 1\nq2 0 d3 -2\n", b"q1 Q0 d1 1 2 r\nq2 Q0 d3 1 1 r\n", {-11, 139}),  # crash
        (b"q1 0 d1 9223372036854775807\n", b"q1 Q0 d1 1 1 r\n", {4}),  # LONG_MAX: grade + 1
        (b"q1 0 d1 1000000000000\n", b"q1 Q0 d1 1 1 r\n", {4}),  # 8 TB of counters
        (b"q1 0 d1 1\n", b"", {2}),  # an empty run: "Cannot read results file"
        (b"q1 0 d1 1 extra\n", b"q1 Q0 d1 1 1 r\n", {2}),  # five fields: "Malformed line"
        (b"q1 0 d1 1\rq1 0 d2 1\n", b"q1 Q0 d1 1 1 r\n", {2}),  # a lone CR: one line of eight
    ],
)
def test_trec_eval_fails_where_qrels_lsp_says_why(
    tmp_path: Path, qrels: bytes, run: bytes, codes: set[int]
) -> None:
    """What qrels-lsp reports as a file trec_eval cannot score (QR104's negative-only query,
    QR307, an empty run, QR301) is what trec_eval 10 fails on, with the exit codes said."""
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    done = subprocess.run(
        [TREC_EVAL, "-m", "map", str(tmp_path / "q"), str(tmp_path / "r")],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode in codes, (done.returncode, done.stderr)
