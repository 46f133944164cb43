"""The ``qrels-lsp`` command, run for real in a subprocess on files written to disk: output
formats, exit codes, and every number cross-checked against pytrec_eval."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import pytrec_eval
from conftest import EXAMPLES, TEST_DATA
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.run_yaml import parse_run_yaml
from qrels_lsp.core.formats.trec_qrels import parse_trec_qrels
from qrels_lsp.core.formats.trec_run import parse_trec_run

ENV = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONUTF8": "1"}


def qrels_lsp(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env=ENV,
        timeout=120,
    )


def qrels_lsp_many(
    calls: list[list[str | Path]], cwd: Path | None = None
) -> list[subprocess.CompletedProcess[str]]:
    """Several independent commands at once (each a real process), to keep the suite fast."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda args: qrels_lsp(*args, cwd=cwd), calls))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


# Each says how complete its judgments are (`judgments:`): else QR120, an info, says what it is
# read as, and these would not be clean.
CLEAN = (
    "judgments: exhaustive\nqueries:\n  q1:\n    question: how do I reset my password\n"
    "    relevant: [kb/a.md]\n"
)
WARNING = (  # QR102 on line 5, after CJK and emoji on the same line
    "judgments: exhaustive\nqueries:\n  q1:\n    question: 日本語 😀\n"
    "    relevant: [文書😀.md, kb/b.md, 文書😀.md]\n"
)
ERROR = "judgments: exhaustive\nqueries:\n  q1:\n    question: x\n    relevant: {kb/a.md: '2'}\n"  # QR103 on 5:25

LINE = re.compile(
    r"^(?P<path>.+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info|hint) (?P<code>QR\d{3}) (?P<msg>.+)$"
)


# -- check --------------------------------------------------------------------------------------


def test_check_clean_file_exits_0_and_prints_nothing(tmp_path: Path) -> None:
    path = write(tmp_path / "g.qrels.yaml", CLEAN)
    r = qrels_lsp("check", path, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert "1 file checked: no problems." in r.stderr


def test_check_text_format_and_exit_codes(tmp_path: Path) -> None:
    warn = write(tmp_path / "w.qrels.yaml", WARNING)
    r = qrels_lsp("check", warn, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr  # warnings only
    (line,) = r.stdout.splitlines()
    m = LINE.match(line)
    assert m is not None, line
    assert (m["path"], m["line"], m["col"], m["sev"], m["code"]) == (
        str(warn),
        "5",
        "33",  # 1-based code point column of the second `文書😀.md`
        "warning",
        "QR102",
    )
    assert qrels_lsp("check", "--strict", warn, cwd=tmp_path).returncode == 1

    err = write(tmp_path / "e.qrels.yaml", ERROR)
    r = qrels_lsp("check", err, cwd=tmp_path)
    assert r.returncode == 1
    found = [LINE.match(x) for x in r.stdout.splitlines()]
    assert [(m["line"], m["col"], m["sev"], m["code"]) for m in found if m] == [
        ("3", "3", "warning", "QR104"),  # q1's only grade is unreadable: it has no relevant doc
        ("5", "25", "error", "QR103"),
    ]
    # The error can be ignored, from the command line or from the config.
    assert qrels_lsp("check", "--ignore", "qr103,QR104", err, cwd=tmp_path).returncode == 0
    write(tmp_path / "qrels-lsp.toml", 'ignore = ["QR103", "QR104"]\n')
    assert qrels_lsp("check", err, cwd=tmp_path).returncode == 0


def test_check_crlf_file_reports_the_same_positions(tmp_path: Path) -> None:
    path = write(tmp_path / "w.qrels.yaml", WARNING.replace("\n", "\r\n"))
    r = qrels_lsp("check", "--format", "json", path, cwd=tmp_path)
    (f,) = json.loads(r.stdout)["findings"]
    assert (f["line"], f["column"], f["end_line"], f["end_column"]) == (5, 33, 5, 39)


def test_check_json_shape(tmp_path: Path) -> None:
    path = write(tmp_path / "w.qrels.yaml", WARNING + "  q2:\n    question: y\n")
    r = qrels_lsp("check", "--format", "json", path, cwd=tmp_path)
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert list(doc) == ["findings", "files"]
    assert doc["files"] == [{"path": str(path), "format": "golden"}]  # what each was read as
    assert [f["code"] for f in doc["findings"]] == ["QR102", "QR104"]
    first = doc["findings"][0]
    assert set(first) == {
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "severity",
        "code",
        "message",
        "fixes",
    }
    assert first["path"] == str(path)
    assert (first["line"], first["column"], first["end_line"], first["end_column"]) == (
        5,
        33,
        5,
        39,
    )
    assert first["severity"] == "warning"
    assert first["fixes"] == ["Remove the second `文書😀.md`"]
    assert doc["findings"][1]["fixes"] == ["Mark `q2` as unanswerable"]


def test_check_github_annotations(tmp_path: Path) -> None:
    path = write(tmp_path / "e.qrels.yaml", ERROR + "  q2:\n    question: y\n")
    r = qrels_lsp("check", "--format", "github", path, cwd=tmp_path)
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(
        f"::warning file={path},line=3,col=3,endLine=3,endColumn=5,title=QR104::`q1` has"
    )
    assert lines[1].startswith(
        f"::error file={path},line=5,col=25,endLine=5,endColumn=28,title=QR103::A grade must be"
    )
    assert lines[2].startswith(
        f"::warning file={path},line=6,col=3,endLine=6,endColumn=5,title=QR104::`q2` has"
    )
    assert all("\n" not in line for line in lines)


def test_check_folder_finds_golden_sets_and_runs(tmp_path: Path) -> None:
    write(tmp_path / "g.qrels.yaml", "runs: [r.run.yaml]\n" + CLEAN)
    write(tmp_path / "r.run.yaml", "results:\n  q1: [kb/a.md, kb/a.md]\n")
    write(tmp_path / "notes.txt", "not ours\n")
    r = qrels_lsp("check", tmp_path, cwd=tmp_path)
    assert r.returncode == 1
    found = [LINE.match(x) for x in r.stdout.splitlines()]
    assert sorted(m["code"] for m in found if m) == ["QR203", "QR205"]
    assert "2 files checked" in r.stderr


def test_check_bad_config_is_reported_not_fatal(tmp_path: Path) -> None:
    write(tmp_path / "qrels-lsp.toml", "k = 0\ncolour = 1\n")
    path = write(tmp_path / "g.qrels.yaml", CLEAN)
    r = qrels_lsp("check", path, cwd=tmp_path)
    assert r.returncode == 1
    found = [LINE.match(x) for x in r.stdout.splitlines()]
    assert [(m["path"], m["line"], m["col"], m["code"]) for m in found if m] == [
        (str(tmp_path / "qrels-lsp.toml"), "1", "1", "QR401"),
        (str(tmp_path / "qrels-lsp.toml"), "2", "1", "QR402"),
    ]


USAGE_ERRORS: list[list[str | Path]] = [
    ["check", "does-not-exist.qrels.yaml"],
    ["check"],
    ["score", "missing.qrels.yaml"],
    ["score", "g.qrels.yaml", "r.run.yaml", "-k", "0"],
    ["score", "g.qrels.yaml", "r.run.yaml", "--metrics", "recall@5,bogus"],
    ["score", "g.qrels.yaml", "missing.run.yaml"],
    ["score", "g.qrels.yaml"],  # no runs named, none listed
    ["convert", "g.qrels.yaml", "-o", "out.qrels.yaml"],
    ["check", "g.qrels.yaml", "--config", "nowhere.toml"],
    [],
]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    write(tmp_path / "g.qrels.yaml", CLEAN)
    write(tmp_path / "r.run.yaml", "results:\n  q1: [kb/a.md]\n")
    for args, r in zip(USAGE_ERRORS, qrels_lsp_many(USAGE_ERRORS, cwd=tmp_path), strict=True):
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr, args
        assert (r.stderr + r.stdout).strip(), args  # says what is wrong (or prints the usage)


# -- score against pytrec_eval ----------------------------------------------------------------

GOLDEN = """\
# graded judgments, a query missing from the runs, ids with `#` and non-ASCII
k: 5
queries:
  q1:
    question: how do I reset
    relevant: {d1: 2, d2: 1, "doc#3": 3, d9: 0}
  q2:
    question: café wifi
    relevant: [ü/ñ.md, d4, 文書/説明.md]
  q3:  # missing from every run: scores 0 and counts in the mean
    question: where is my order
    relevant: [d5]
  "q#4":
    question: graded low
    relevant: {d6: 1, d7: 3}
  mars:
    question: do you ship to Mars
    unanswerable: true
"""

RUN_LIST = """\
qrels: g.qrels.yaml
name: listed
results:
  q1: [d9, "doc#3", x1, d2, x2, d1]
  q2: [x1, 文書/説明.md, ü/ñ.md, x3, x4, x5, d4]
  "q#4": [d7]
  q99: [d1, d2]   # not in the golden set: ignored
"""

RUN_SCORED = """\
qrels: g.qrels.yaml
results:
  q1: {d1: 1.5, d2: 1.5, "doc#3": 0.25, x1: 1.5, d10: 2.0}
  q2: {ü/ñ.md: 3, d4: 3, z: 3, 文書/説明.md: 1e-05}
  "q#4": {d6: 0.5, d7: 0.5, a: 0.75}
  mars: {d1: 1}
"""

MEASURES = {
    "recall@5": "recall_5",
    "precision@5": "P_5",
    "mrr": "recip_rank",
    "ndcg@5": "ndcg_cut_5",
    "map": "map",
}


def pytrec_scores(
    golden: dict[str, dict[str, int]], run: dict[str, dict[str, float]]
) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(
        golden, {"recall.5", "P.5", "recip_rank", "ndcg_cut.5", "map"}
    )
    out = evaluator.evaluate({q: docs for q, docs in run.items() if q in golden})
    return {
        q: {ours: values[theirs] for ours, theirs in MEASURES.items()} for q, values in out.items()
    }


def assert_matches_pytrec(
    result: dict[str, object],
    golden: dict[str, dict[str, int]],
    run: dict[str, dict[str, float]],
    unanswerable: set[str] = frozenset(),  # type: ignore[assignment]
) -> None:
    expected = pytrec_scores(golden, run)
    per_query: dict[str, dict[str, float]] = result["queries"]  # type: ignore[assignment]
    counted = [q for q in golden if q not in unanswerable]
    for qid in counted:
        want = expected.get(qid, dict.fromkeys(MEASURES, 0.0))  # missing from the run: 0
        got = {m: per_query[qid][m] for m in MEASURES}
        assert got == want, (qid, got, want)  # bit for bit, as METRICS.md promises
    mean: dict[str, float] = result["mean"]  # type: ignore[assignment]
    for m in MEASURES:
        want_mean = sum(expected.get(q, {}).get(m, 0.0) for q in counted) / len(counted)
        assert mean[m] == pytest.approx(want_mean, rel=1e-12, abs=1e-15), m
    assert result["n_queries"] == len(counted)
    assert result["missing"] == [q for q in counted if q not in run]
    assert result["unanswerable"] == [q for q in golden if q in unanswerable]
    assert result["unknown"] == [q for q in run if q not in golden]


def score_args(*args: str | Path) -> list[str | Path]:
    return ["score", *args, "--format", "json", "--metrics", ",".join(MEASURES)]


def score_doc(r: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert list(doc) == ["runs"]
    return doc  # type: ignore[no-any-return]


def score_json(*args: str | Path, cwd: Path | None = None) -> dict[str, object]:
    return score_doc(qrels_lsp(*score_args(*args), cwd=cwd))


def test_score_json_matches_pytrec_eval(tmp_path: Path) -> None:
    g = write(tmp_path / "g.qrels.yaml", GOLDEN)
    listed = write(tmp_path / "listed.run.yaml", RUN_LIST)
    scored = write(tmp_path / "scored.run.yaml", RUN_SCORED)
    doc = score_json(g, listed, scored, cwd=tmp_path)
    runs = doc["runs"]
    assert isinstance(runs, list) and len(runs) == 2
    for r in runs:
        assert {"name", "path", "k", "queries", "mean", "n_queries", "missing", "unknown"} <= set(r)
        assert r["k"] == 5
    assert [r["name"] for r in runs] == ["listed", "scored"]
    assert [r["path"] for r in runs] == [str(listed.resolve()), str(scored.resolve())]

    golden = parse_golden(GOLDEN)
    grades = golden.grades()
    unanswerable = golden.unanswerable()
    # A ranked list: any strictly decreasing scores give trec_eval the same order.
    ranked = parse_run_yaml(RUN_LIST).ranked_ids()
    as_scores = {
        q: {d: float(len(ids) - i) for i, d in enumerate(ids)} for q, ids in ranked.items()
    }
    assert_matches_pytrec(runs[0], grades, as_scores, unanswerable)
    # Scores with ties: pytrec_eval breaks them itself (docid descending), from the raw scores.
    raw = {
        q: {d.doc_id: float(d.score or 0.0) for d in r.docs}
        for q, r in parse_run_yaml(RUN_SCORED).rankings.items()
    }
    assert_matches_pytrec(runs[1], grades, raw, unanswerable)
    assert runs[1]["unanswerable"] == ["mars"]
    assert runs[0]["missing"] == ["q3"]


def test_score_uses_the_golden_sets_runs_and_prints_a_table(tmp_path: Path) -> None:
    write(tmp_path / "g.qrels.yaml", GOLDEN.replace("k: 5\n", "k: 5\nruns: [runs/*.run.yaml]\n"))
    write(
        tmp_path / "runs" / "listed.run.yaml", RUN_LIST.replace("g.qrels.yaml", "../g.qrels.yaml")
    )
    r = qrels_lsp("score", tmp_path / "g.qrels.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("listed  (")
    assert lines[1].split() == [
        "query",
        "recall@5",
        "precision@5",
        "mrr",
        "ndcg@5",
        "map",
        "hit_rate@5",
        "judged@5",
    ]
    assert [x.split()[0] for x in lines[2:6]] == ["q1", "q2", "q3", "q#4"]
    assert any(line.startswith("mean (4)") for line in lines)
    assert "means over 4 queries" in r.stdout
    assert "missing from the run (scored 0): q3\n" in r.stdout
    assert "not in the golden set (ignored): q99" in r.stdout
    assert "unanswerable (excluded): mars" in r.stdout


def test_score_trec_format_prints_trec_eval_lines(tmp_path: Path) -> None:
    g = write(tmp_path / "g.qrels.yaml", GOLDEN)
    run = write(tmp_path / "listed.run.yaml", RUN_LIST)
    r = qrels_lsp("score", g, run, "--format", "trec", "--metrics", "mrr", cwd=tmp_path)
    assert r.returncode == 0
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert ["runid".ljust(22), "all", "listed"] in rows  # (trec_eval prints it after the queries)
    assert ["num_q".ljust(22), "all", "4"] in rows
    values = [row[2] for row in rows if row[0].strip() == "recip_rank"]  # trec_eval's name
    assert values and all(re.fullmatch(r"\d\.\d{4}", v) for v in values)


def test_score_trec_eval_fixture_files_match_pytrec_eval() -> None:
    pairs = [
        ("trec_eval/qrels.test", "trec_eval/results.test"),  # ties, names that say nothing
        ("trec_eval/qrels.rel_level", "trec_eval/results.trunc"),  # grades -1..4, topics missing
        ("trec_eval/qrels.comment.test", "trec_eval/results.comment.test"),  # ids with `#`
    ]
    paths = [(TEST_DATA / q, TEST_DATA / r) for q, r in pairs]
    outputs = qrels_lsp_many([score_args(q, r, "-k", "5") for q, r in paths])
    for (qrels_path, run_path), output in zip(paths, outputs, strict=True):
        (result,) = score_doc(output)["runs"]  # type: ignore[misc]
        golden = parse_trec_qrels(qrels_path.read_text(encoding="utf-8")).grades()
        run = parse_trec_run(run_path.read_text(encoding="utf-8"))
        raw = {
            q: {d.doc_id: float(d.score or 0.0) for d in r.docs} for q, r in run.rankings.items()
        }
        assert_matches_pytrec(result, golden, raw)


# -- convert ------------------------------------------------------------------------------------


def test_convert_golden_to_trec_and_back(tmp_path: Path) -> None:
    g = write(tmp_path / "g.qrels.yaml", GOLDEN)
    r = qrels_lsp(
        "convert", g, "-o", tmp_path / "g.qrels", "--topics", tmp_path / "topics.txt", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    trec = (tmp_path / "g.qrels").read_text(encoding="utf-8")
    assert parse_trec_qrels(trec).findings == []
    golden = parse_golden(GOLDEN)
    answerable = {q: g for q, g in golden.grades().items() if g}
    assert parse_trec_qrels(trec).grades() == answerable
    # pytrec_eval reads the converted file to the same judgments.
    assert pytrec_eval.parse_qrel(trec.splitlines()) == answerable

    r = qrels_lsp(
        "convert",
        tmp_path / "g.qrels",
        "-o",
        tmp_path / "back.qrels.yaml",
        "--topics",
        tmp_path / "topics.txt",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    back = parse_golden((tmp_path / "back.qrels.yaml").read_text(encoding="utf-8"))
    assert [f.code for f in back.findings] == []
    assert {q: g for q, g in back.grades().items() if g} == answerable
    # Every question comes back, a topic with no judgment too (with `relevant: []`).
    assert {q: x.question for q, x in back.queries.items()} == {
        q: x.question for q, x in golden.queries.items()
    }
    # An unanswerable question has no TREC line: converting says so instead of dropping it silently.
    r = qrels_lsp("convert", g, "-o", tmp_path / "again.qrels", cwd=tmp_path)
    assert r.returncode == 0
    assert "left out: mars" in r.stderr


def test_convert_run_yaml_to_trec_and_back(tmp_path: Path) -> None:
    for name, text in [("listed", RUN_LIST), ("scored", RUN_SCORED)]:
        src = write(tmp_path / f"{name}.run.yaml", text)
        r = qrels_lsp("convert", src, "-o", tmp_path / f"{name}.trec", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        trec = (tmp_path / f"{name}.trec").read_text(encoding="utf-8")
        original = parse_run_yaml(text).ranked_ids()
        converted = parse_trec_run(trec)
        assert converted.findings == []
        assert converted.ranked_ids() == original  # trec_eval's order is the YAML's order
        assert {line.split()[5] for line in trec.splitlines()} == {name}
        r = qrels_lsp(
            "convert",
            tmp_path / f"{name}.trec",
            "-o",
            tmp_path / f"{name}.back.run.yaml",
            cwd=tmp_path,
        )
        assert r.returncode == 0, r.stderr
        back = parse_run_yaml((tmp_path / f"{name}.back.run.yaml").read_text(encoding="utf-8"))
        assert back.findings == []
        assert back.ranked_ids() == original


def test_convert_refuses_input_with_errors(tmp_path: Path) -> None:
    src = write(tmp_path / "e.qrels.yaml", ERROR)
    r = qrels_lsp("convert", src, "-o", tmp_path / "e.qrels", cwd=tmp_path)
    assert r.returncode == 2
    assert "QR103" in r.stderr
    assert not (tmp_path / "e.qrels").exists()


# -- demo ---------------------------------------------------------------------------------------


@pytest.mark.skipif(
    not (EXAMPLES / "support.qrels.yaml").exists(), reason="the embedded example has not landed"
)
def test_demo_with_every_question_prints_findings_and_scores() -> None:
    r = qrels_lsp("demo", "--questions", "--findings")
    assert r.returncode == 0, r.stderr
    assert "Findings" in r.stdout and "Every question" in r.stdout
    findings = re.findall(r"^  \S+:\d+:\d+: (?:error|warning|info) (QR\d{3}) ", r.stdout, re.M)
    assert len(findings) == 15, r.stdout  # every one (the planted mistakes and the runs')
    assert re.search(r"^mean \(\d+\)(\s+\d\.\d{4})+$", r.stdout, re.M), r.stdout
    assert "Traceback" not in r.stderr


VERDICT = re.compile(
    r"^  (\S.*?)  +(better|worse|no difference detected|too few questions to tell"
    r"(?: \([\d,]+ needed\))?)  +[+-]\d\.\d{4}  ",
    re.M,
)


def test_demo_fits_a_screen_and_says_what_compare_says(tmp_path: Path) -> None:
    """The first command shows the point: at most 60 lines of 100 columns, with each run's
    verdict against the base, the words `compare --format json` gives on the same files."""
    import shutil

    shutil.copytree(EXAMPLES, tmp_path / "demo")
    report = tmp_path / "demo" / "demo.html"
    demo, compared = qrels_lsp_many(
        [
            ["demo", "--report", "demo.html"],
            ["compare", "support.qrels.yaml", "--format", "json"],
        ],
        cwd=tmp_path / "demo",
    )
    assert demo.returncode == 0 and compared.returncode == 0, demo.stderr + compared.stderr
    lines = demo.stdout.splitlines()
    assert len(lines) <= 60, demo.stdout
    assert max(len(line) for line in lines) <= 100, demo.stdout
    assert re.search(r"^Findings: 1 error, 8 warnings, 6 info ", demo.stdout, re.M)
    data = json.loads(compared.stdout)
    want = {}
    for c in data["comparisons"]:
        if c["metric"] == "recall@5":
            needed = c["verdict_needed"]
            want[c["run"]] = c["verdict"] + (f" ({needed:,} needed)" if needed else "")
    assert f"Against {data['base']} on recall@5" in demo.stdout
    assert dict(VERDICT.findall(demo.stdout)) == want, demo.stdout
    assert len(want) == 5
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
