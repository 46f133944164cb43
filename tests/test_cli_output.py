"""`score` and `check` never print a silent zero: a run or qrels that cannot be read is an error
(exit 2, no table), every line left out is counted on stderr (`--strict` fails on any), a path
`check` cannot classify is an error; and the output formats: trec_eval's lines, Markdown tables
followed by a blank line, the runs' means side by side, `--summary`, `recall` with `-k`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import pytrec_eval
from conftest import TEST_DATA
from test_cli import qrels_lsp, write

GOLDEN = """\
k: 3
queries:
  q1:
    question: reset
    relevant: {d1: 1, d2: 2}
  q2:
    question: pairing
    relevant: [d3]
  q3:
    question: slow
    relevant: [d4, d5]
"""
RUN_A = """\
name: a
qrels: g.qrels.yaml
results:
  q1: [d2, d9, d1]
  q2: [d8, d3]
  q3: [d5]
"""
RUN_B_TREC = """\
q1 Q0 d1 1 3.0 tagB
q1 Q0 d9 2 2.0 tagB
q2 Q0 d3 1 5.0 tagB
q3 Q0 d7 1 1.0 tagB
q3 Q0 d4 2 0.5 tagB
"""


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    golden = write(tmp_path / "g.qrels.yaml", GOLDEN)
    a = write(tmp_path / "a.run.yaml", RUN_A)
    b = write(tmp_path / "b.trec", RUN_B_TREC)
    return golden, a, b


# -- never a silent zero ------------------------------------------------------------------------


def test_an_unreadable_run_is_an_error_with_no_table(tmp_path: Path) -> None:
    golden, a, _b = _files(tmp_path)
    bad = write(tmp_path / "bad.trec", "not a run\nnor this\n")
    r = qrels_lsp("score", golden, a, bad, cwd=tmp_path)
    assert r.returncode == 2
    assert "bad.trec" in r.stderr and "read as TREC run" in r.stderr and "no ranking" in r.stderr
    assert "bad" not in r.stdout.replace("bad.trec", "")  # no table of zeros for it
    assert r.stdout.startswith("a  (")  # the readable run is still scored


def test_a_qrels_that_reads_as_empty_is_an_error(tmp_path: Path) -> None:
    _golden, _a, b = _files(tmp_path)
    qrels = write(tmp_path / "empty.qrels", "q1 d1\nq2 d3\n")  # no grade column: nothing read
    r = qrels_lsp("score", qrels, b, cwd=tmp_path)
    assert r.returncode == 2
    assert "holds no judgments" in r.stderr and "QR" not in r.stdout
    assert r.stdout == ""


def test_lines_left_out_are_counted_on_stderr_and_strict_fails(tmp_path: Path) -> None:
    golden, _a, _b = _files(tmp_path)
    run = write(
        tmp_path / "c.trec",
        RUN_B_TREC + "q1 Q0 d1 3 1.0 tagB\n" + "q2 Q0 broken\n",  # a duplicate, a short line
    )
    r = qrels_lsp("score", golden, run, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    [said] = [line for line in r.stderr.splitlines() if "c.trec" in line]
    assert "2 left out of the scores" in said
    assert "1 QR203 run-duplicate-document" in said and "1 QR301 malformed-line" in said
    strict = qrels_lsp("score", golden, run, "--strict", cwd=tmp_path)
    assert strict.returncode == 1 and strict.stdout == r.stdout
    clean = qrels_lsp("score", golden, tmp_path / "b.trec", "--strict", cwd=tmp_path)
    assert clean.returncode == 0 and clean.stderr == ""


def test_yaml_ids_typed_as_bool_or_null_are_counted(tmp_path: Path) -> None:
    golden = write(
        tmp_path / "g.qrels.yaml", GOLDEN.replace("relevant: [d3]", "relevant: [d3, yes, null]")
    )
    write(tmp_path / "b.trec", RUN_B_TREC)
    r = qrels_lsp("score", golden, tmp_path / "b.trec", "--strict", cwd=tmp_path)
    assert r.returncode == 1
    assert "g.qrels.yaml: 2 left out of the scores (2 QR004 wrong-type)" in r.stderr


def test_check_on_a_path_it_cannot_classify_is_an_error(tmp_path: Path) -> None:
    notes = write(tmp_path / "notes.md", "# notes\n")
    r = qrels_lsp("check", notes, cwd=tmp_path)
    assert r.returncode == 2 and "notes.md" in r.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    r = qrels_lsp("check", empty, cwd=tmp_path)
    assert r.returncode == 2 and "holds no golden set" in r.stderr


# -- output formats -----------------------------------------------------------------------------


def test_trec_format_is_trec_eval_q_output(tmp_path: Path) -> None:
    """Names, runid, query order, measure order and rounding of `trec_eval -c -q -m ...`,
    with pytrec_eval's values (its keys are trec_eval's names)."""
    golden, _a, b = _files(tmp_path)
    r = qrels_lsp(
        "score",
        golden,
        b,
        "--format",
        "trec",
        "--metrics",
        "ndcg@3,recall@3,mrr,map,P@3",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    qrels = {"q1": {"d1": 1, "d2": 2}, "q2": {"d3": 1}, "q3": {"d4": 1, "d5": 1}}
    run: dict[str, dict[str, float]] = {}
    for line in RUN_B_TREC.splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    names = ["map", "recip_rank", "P_3", "recall_3", "ndcg_cut_3"]  # trec_eval's table order
    measures = {"map", "recip_rank", "P.3", "recall.3", "ndcg_cut.3"}
    oracle = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    want = [f"{n:<22}\t{q}\t{oracle[q][n]:6.4f}" for q in sorted(qrels) for n in names]
    want += [f"{'runid':<22}\tall\ttagB", f"{'num_q':<22}\tall\t3"]
    want += [f"{n:<22}\tall\t{sum(oracle[q][n] for q in qrels) / 3:6.4f}" for n in names]
    assert r.stdout.splitlines() == want
    summary = qrels_lsp(
        "score", golden, b, "--format", "trec", "--summary", "--metrics", "recall@3", cwd=tmp_path
    )
    assert summary.stdout.splitlines() == [want[-7], want[-6], want[-2]]


def test_markdown_tables_are_followed_by_a_blank_line(tmp_path: Path) -> None:
    golden, a, b = _files(tmp_path)
    r = qrels_lsp("score", golden, a, b, "--format", "markdown", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("|") and not lines[i + 1].startswith("|"):
            assert lines[i + 1] == "", (i, lines[i + 1])
    assert "### Means" in lines
    means = lines[lines.index("### Means") + 2 :]
    assert means[0].startswith("| run |") and means[2].startswith("| a |")
    assert means[3].startswith("| b |")


def test_several_runs_get_their_means_side_by_side_and_summary_only_those(
    tmp_path: Path,
) -> None:
    golden, a, b = _files(tmp_path)
    full = qrels_lsp("score", golden, a, b, "--metrics", "recall@3,mrr", cwd=tmp_path)
    summary = qrels_lsp(
        "score", golden, a, b, "--metrics", "recall@3,mrr", "--summary", cwd=tmp_path
    )
    assert full.returncode == summary.returncode == 0
    assert summary.stdout.splitlines()[0] == "Means"
    rows = [line.split() for line in summary.stdout.splitlines()[1:] if line]
    assert rows[0] == ["run", "recall@3", "mrr", "queries"]
    as_json = json.loads(
        qrels_lsp(
            "score", golden, a, b, "--metrics", "recall@3,mrr", "--format", "json", cwd=tmp_path
        ).stdout
    )
    for row, run in zip(rows[1:], as_json["runs"], strict=True):
        assert row == [
            run["name"],
            f"{run['mean']['recall@3']:6.4f}",
            f"{run['mean']['mrr']:6.4f}",
            str(run["n_queries"]),
        ]
    assert full.stdout.endswith(summary.stdout)
    assert "q1" not in summary.stdout


def test_recall_with_k_means_recall_at_k(tmp_path: Path) -> None:
    golden, a, _b = _files(tmp_path)
    for metrics in ("recall", "recall@k"):
        r = qrels_lsp(
            "score", golden, a, "-k", "2", "--metrics", metrics, "--format", "json", cwd=tmp_path
        )
        assert r.returncode == 0, r.stderr
        assert list(json.loads(r.stdout)["runs"][0]["mean"]) == ["recall@2"]
    r = qrels_lsp("score", golden, a, "--metrics", "recall", "--format", "json", cwd=tmp_path)
    assert list(json.loads(r.stdout)["runs"][0]["mean"]) == ["recall@3"]  # the golden set's k


def test_demo_prints_each_finding_once() -> None:
    r = qrels_lsp("demo")
    assert r.returncode == 0, r.stderr
    findings = [line for line in r.stdout.splitlines() if re.match(r"  \S+:\d+:\d+: ", line)]
    assert findings and len(findings) == len(set(findings))


def test_trec_eval_fixtures_in_trec_format() -> None:
    """trec_eval's own test files: the `all` lines equal its expected output (out.test) for
    the measures both compute."""
    data = TEST_DATA / "trec_eval"
    r = qrels_lsp(
        "score",
        data / "qrels.test",
        data / "results.test",
        "--format",
        "trec",
        "--summary",
        "--metrics",
        "map,mrr,P@5,P@10,P@100,P@1000",
    )
    assert r.returncode == 0, r.stderr
    expected = {
        tuple(line.split("\t")[::2])
        for line in (data / "out.test").read_text().splitlines()
        if line.split("\t")[0].strip() in {"runid", "num_q", "map", "recip_rank"}
        or re.fullmatch(r"P_(5|10|100|1000)\s*", line.split("\t")[0])
    }
    got = {tuple(line.split("\t")[::2]) for line in r.stdout.splitlines()}
    assert got == expected


def test_messages_about_a_trec_qrels_name_its_qrels_table(tmp_path: Path) -> None:
    """A TREC qrels file has no `runs:` or `corpus:` of its own: messages point at `[[qrels]]`."""
    from qrels_lsp.core.base.boundary import Boundary
    from qrels_lsp.core.project.config import load_config
    from qrels_lsp.core.project.project import Project
    from qrels_lsp.ide.lenses import lens_groups

    qrels = write(tmp_path / "test.qrels", "q1 0 d1 1\nq2 0 d2 1\n")
    for args in (["score", qrels], ["score", qrels, "--baseline", "bm25"]):
        r = qrels_lsp(*args, cwd=tmp_path)
        assert r.returncode == 2 and "[[qrels]]" in r.stderr, r.stderr
        assert "`runs:`" not in r.stderr and "`corpus:`" not in r.stderr
    analysis = Project(load_config(tmp_path), boundary=Boundary.of([tmp_path])).analyse(qrels)
    assert analysis is not None
    [header] = lens_groups(analysis)[0][1]
    assert "no runs" in header and "[[qrels]]" in header and "`runs:`" not in header


# -- convert ------------------------------------------------------------------------------------


def test_convert_keeps_topics_with_no_judgments(tmp_path: Path) -> None:
    import yaml

    qrels = write(tmp_path / "t.qrels", "1 0 d1 1\n3 0 d3 2\n")
    topics = write(
        tmp_path / "t.trec",
        "".join(f"<top>\n<num> {n}\n<title> question {n}\n</top>\n" for n in ("1", "2", "3")),
    )
    out = tmp_path / "g.qrels.yaml"
    r = qrels_lsp("convert", qrels, "--topics", topics, "-o", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "1 topic(s) have no judgment" in r.stderr and ": 2" in r.stderr
    queries = yaml.safe_load(out.read_text(encoding="utf-8"))["queries"]
    assert list(queries) == ["1", "2", "3"]  # the topics' order
    assert queries["2"] == {"question": "question 2", "relevant": []}
    check = qrels_lsp("check", out, cwd=tmp_path)
    assert "QR104" in check.stdout  # the unlinked question is said, not lost


def test_convert_name_option_wins_over_the_runs_own_name(tmp_path: Path) -> None:
    run = write(tmp_path / "a.run.yaml", RUN_A)  # name: a
    out = tmp_path / "a.trec"
    assert qrels_lsp("convert", run, "-o", out, "--name", "renamed", cwd=tmp_path).returncode == 0
    assert {line.split()[5] for line in out.read_text().splitlines()} == {"renamed"}
    assert qrels_lsp("convert", run, "-o", out, cwd=tmp_path).returncode == 0
    assert {line.split()[5] for line in out.read_text().splitlines()} == {"a"}


def test_converted_runs_keep_their_scores_and_their_numbers() -> None:
    """Vaswani's BM25 run (175 tied score pairs) to YAML and back: the same scores, and the YAML
    run scores what pytrec_eval gives the original."""
    import tempfile

    vaswani = TEST_DATA / "vaswani"
    with tempfile.TemporaryDirectory() as tmp:
        yaml_run, back = Path(tmp) / "bm25.run.yaml", Path(tmp) / "back.trec"
        assert qrels_lsp("convert", vaswani / "bm25_top100.run", "-o", yaml_run).returncode == 0
        assert qrels_lsp("convert", yaml_run, "-o", back, cwd=Path(tmp)).returncode == 0

        def scores(path: Path) -> dict[tuple[str, str], float]:
            return {
                (q, d): float(s)
                for q, _, d, _, s, *_ in map(str.split, path.read_text().splitlines())
            }

        assert scores(back) == scores(vaswani / "bm25_top100.run")
        r = qrels_lsp(  # the test data's qrels and a run in a temporary folder
            "score", vaswani / "qrels", yaml_run, "--metrics", "map,ndcg@10", "--format", "json",
            "--allow-outside",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
    qrels = pytrec_eval.parse_qrel((vaswani / "qrels").open())
    original = pytrec_eval.parse_run((vaswani / "bm25_top100.run").open())
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10"}).evaluate(original)
    got = json.loads(r.stdout)["runs"][0]["queries"]
    for qid, values in oracle.items():
        assert got[qid]["map"] == values["map"]
        assert got[qid]["ndcg@10"] == values["ndcg_cut_10"]


def test_convert_writes_the_header_asked_for(tmp_path: Path) -> None:
    import yaml

    qrels = write(tmp_path / "t.qrels", "1 0 d1 1\n")
    out = tmp_path / "g.qrels.yaml"
    r = qrels_lsp(
        "convert", qrels, "-o", out, "--corpus", "corpus/", "-k", "5",
        "--runs", "runs/*.trec", "--runs", "dense.run.yaml", cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert (doc["corpus"], doc["k"], doc["runs"]) == (
        "corpus/",
        5,
        ["runs/*.trec", "dense.run.yaml"],
    )
    run = write(tmp_path / "b.trec", RUN_B_TREC)
    out_run = tmp_path / "b.run.yaml"
    r = qrels_lsp("convert", run, "-o", out_run, "--qrels", "g.qrels.yaml", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert yaml.safe_load(out_run.read_text(encoding="utf-8"))["qrels"] == "g.qrels.yaml"
    for wrong in (
        ["convert", run, "-o", out_run, "-k", "3"],  # a run has no k
        ["convert", qrels, "-o", out, "--qrels", "x"],  # a golden set has no qrels:
        ["convert", out, "-o", tmp_path / "x.qrels", "--corpus", "c"],  # TREC has no header
    ):
        r = qrels_lsp(*wrong, cwd=tmp_path)
        assert r.returncode == 2 and "only for a" in r.stderr


def test_check_says_a_listed_run_cannot_be_scored(tmp_path: Path) -> None:
    """`check` scores nothing, but a run the golden set names that reads as no ranking is an
    error where it is named, with the format it was read as."""
    write(tmp_path / "g.qrels.yaml", "runs: [bad.trec]\n" + GOLDEN)
    write(tmp_path / "bad.trec", "not a run\n")
    r = qrels_lsp("check", tmp_path / "g.qrels.yaml", cwd=tmp_path)
    assert r.returncode == 1
    [line] = [x for x in r.stdout.splitlines() if "QR111" in x]
    assert ":1:8: error QR111 `bad.trec` is not scored: read as TREC run" in line


COMMANDS_OF_RUNS = [
    ["score", "{golden}", "{empty}"],
    ["score", "{golden}", "{b}", "{empty}", "--strict"],
    ["compare", "{golden}", "{b}", "{empty}"],
    ["gate", "{golden}", "--base", "{b}", "--head", "{empty}"],
    ["pool", "{golden}", "{empty}"],
    ["fuse", "{b}", "{empty}", "--method", "rrf", "-o", "fused.trec"],
]


@pytest.mark.parametrize("args", COMMANDS_OF_RUNS, ids=lambda a: a[0])
@pytest.mark.parametrize("content", ["", "\n\n"])
def test_an_empty_run_file_is_named_and_exits_2(
    tmp_path: Path, args: list[str], content: str
) -> None:
    """trec_eval refuses an empty run ("Cannot read results file"); a table of zeros with exit 0
    would hide it. Every command that reads runs names the file on stderr and exits 2."""
    golden, _a, b = _files(tmp_path)
    empty = write(tmp_path / "empty.trec", content)
    r = qrels_lsp(*(a.format(golden=golden, b=b, empty=empty) for a in args), cwd=tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "empty.trec" in r.stderr and "holds no ranking" in r.stderr
    assert "Traceback" not in r.stderr
    assert "empty  (" not in r.stdout  # no table for it
    assert not (tmp_path / "fused.trec").exists()


def test_check_says_an_empty_run_is_not_scored(tmp_path: Path) -> None:
    """In the editor (and `check`) an empty run bound to a golden set is an error on the run
    (QR202) and where the golden set names it (QR111)."""
    write(tmp_path / "g.qrels.yaml", "runs: [empty.trec]\n" + GOLDEN)
    write(tmp_path / "empty.trec", "")
    r = qrels_lsp("check", "g.qrels.yaml", "empty.trec", cwd=tmp_path)
    assert r.returncode == 1
    assert "g.qrels.yaml:1:8: error QR111 `empty.trec` is not scored" in r.stdout
    assert "empty.trec:1:1: error QR202 This run holds no ranking" in r.stdout


@pytest.mark.parametrize(
    ("line", "where"),
    [
        ("q1 0 d2 2 extra\n", "g.qrels:2:11: error QR301"),  # the extra field, where it starts
        ("q1 0 d2 2\rq2 0 d3 1\n", "g.qrels:3:1: error QR301"),  # a lone CR: one line of eight
    ],
)
def test_a_qrels_line_trec_eval_refuses_is_left_out_and_said_where(
    tmp_path: Path, line: str, where: str
) -> None:
    """trec_eval refuses a qrels line of more than four fields (a lone CR is a blank to it, so
    two lines joined by one are one line of eight fields). `check` calls it an error; `score`
    leaves the line out, as the parser does, says so on stderr where `check` would (path, line,
    column) and exits 1 with --strict. The scores are those of the file without the line."""
    write(tmp_path / "g.qrels", "q1 0 d1 1\n" + line + "q2 0 d4 1\n")
    write(tmp_path / "clean.qrels", "q1 0 d1 1\nq2 0 d4 1\n")
    b = write(tmp_path / "b.trec", RUN_B_TREC)
    r = qrels_lsp("score", "g.qrels", b, "--format", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    [said] = r.stderr.splitlines()
    assert "g.qrels: 1 left out of the scores (1 QR301 malformed-line)" in said
    assert f"the first: {where}" in said and "trec_eval refuses the file" in said
    clean = qrels_lsp("score", "clean.qrels", b, "--format", "json", cwd=tmp_path)
    assert (
        json.loads(r.stdout)["runs"][0]["queries"] == json.loads(clean.stdout)["runs"][0]["queries"]
    )
    assert qrels_lsp("score", "g.qrels", b, "--strict", cwd=tmp_path).returncode == 1
    check = qrels_lsp("check", "g.qrels", cwd=tmp_path)
    assert check.returncode == 1 and where in check.stdout


BIG = "9" * 309  # past a float: float() of it raised in the gains, the report, trec output


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("g.qrels.yaml", GOLDEN.replace("{d1: 1, d2: 2}", f"{{d1: 1, d2: {BIG}}}"), ":5:27:"),
        ("g.json", f'{{"q1": {{"d1": 1, "d2": {BIG}}}, "q2": {{"d3": 1}}}}', ":1:24:"),
        ("g.qrels", f"q1 0 d1 1\nq1 0 d2 {2**63 - 1}\nq2 0 d3 1\n", ":2:9:"),
    ],
    ids=["golden", "json", "trec-long-max"],
)
def test_a_grade_out_of_range_is_an_error_not_a_traceback(
    tmp_path: Path, name: str, text: str, where: str
) -> None:
    """Every command that reads the grade says where it is (QR307) and leaves it out; score
    counts it on stderr and fails with --strict; 9223372036854775807, C's LONG_MAX, is one too:
    trec_eval's count of grade levels, grade + 1, overflows on it."""
    golden = write(tmp_path / name, text)
    b = write(tmp_path / "b.trec", RUN_B_TREC)
    check = qrels_lsp("check", golden, cwd=tmp_path)
    assert check.returncode == 1 and f"{name}{where} error QR307" in check.stdout, check.stdout
    for fmt in ("table", "json", "trec"):
        bounds = [] if fmt == "trec" else ["--bounds"]
        r = qrels_lsp("score", golden, b, "--format", fmt, *bounds, cwd=tmp_path)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        assert "1 left out of the scores (1 QR307 grade-out-of-range)" in r.stderr
    assert qrels_lsp("score", golden, b, "--strict", cwd=tmp_path).returncode == 1
    for args in (["compare", b, "--base", b], ["report", b, "-o", "r.html"], ["pool", b]):
        r = qrels_lsp(args[0], golden, *args[1:], cwd=tmp_path)
        assert "Traceback" not in r.stderr, (args, r.stderr)


@pytest.mark.parametrize("where", ["golden", "config", "option"])
def test_a_cutoff_past_2_to_the_53_is_refused(tmp_path: Path, where: str) -> None:
    """`k: <309 digits>` in a golden set or the configuration is a located error (the default
    k is used); `-k <309 digits>` is a usage error (exit 2); no traceback in any command."""
    golden = write(
        tmp_path / "g.qrels.yaml",
        (f"k: {BIG}\n" if where == "golden" else "") + GOLDEN.removeprefix("k: 3\n"),
    )
    if where == "config":
        write(tmp_path / "qrels-lsp.toml", f"k = {BIG}\n")
    b = write(tmp_path / "b.trec", RUN_B_TREC)
    option = ["-k", BIG] if where == "option" else []
    for command in (
        ["score", "--format", "trec"],
        ["score", "--bounds"],
        ["report", "-o", "r.html"],
    ):
        r = qrels_lsp(command[0], golden, b, *command[1:], *option, cwd=tmp_path)
        assert "Traceback" not in r.stderr, r.stderr
        assert r.returncode == (2 if where == "option" else 0), r.stderr
        if where == "option":
            assert "-k must be a positive integer, at most 2^53" in r.stderr
    if where != "option":
        check = qrels_lsp("check", tmp_path if where == "config" else golden, cwd=tmp_path)
        assert "at most 2^53" in check.stdout, check.stdout


@pytest.mark.parametrize(
    ("name", "text", "code"),
    [
        ("r.run.yaml", "results:\n  q1: [d1, null, d2]\n", "QR004"),  # fewer entries than lines
        ("r.run.json", '{"q1": {"d1": NaN, "d2": 1.0}}', "QR314"),  # one line, one entry
        ("g.json", '{"q1": {"d1": NaN, "d2": 1}, "q2": {"d3": 1}}', "QR314"),
    ],
)
def test_what_a_fast_reader_leaves_out_of_a_yaml_or_json_file_is_counted(
    tmp_path: Path, name: str, text: str, code: str
) -> None:
    """A run YAML or a JSON file is no file of one entry per line: counting its lines against
    the entries read said nothing was left out of a one-line JSON file or a YAML flow list (a
    null id, a NaN score or grade were dropped in silence, and --strict exited 0)."""
    golden, _a, b = _files(tmp_path)
    path = write(tmp_path / name, text)
    args = [path, b] if name == "g.json" else [golden, path]
    r = qrels_lsp("score", *args, "--strict", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert f"{name}: 1 left out of the scores (1 {code} " in r.stderr


def test_queries_judged_only_negative_are_said_by_score_as_check_says_them(tmp_path: Path) -> None:
    """A query whose grades are all negative: trec_eval 10 exits 4 or crashes on it
    (tests/test_trec_eval_diff.py), pytrec_eval scores it 0. `check` warns (QR104, saying
    why); `score` names it on stderr, scores it as pytrec_eval does, and fails with --strict as
    `check --strict` does."""
    qrels = write(tmp_path / "g.qrels", "q1 0 d1 1\nq1 0 d9 0\nq2 0 d3 -1\nq2 0 d8 -2\n")
    b = write(tmp_path / "b.trec", RUN_B_TREC)
    check = qrels_lsp("check", qrels, "--strict", cwd=tmp_path)
    assert check.returncode == 1
    assert "g.qrels:3:1: warning QR104 `q2` has no relevant document" in check.stdout
    assert "all negative" in check.stdout and "exits 4" in check.stdout
    r = qrels_lsp("score", qrels, b, "--format", "json", cwd=tmp_path)
    assert r.returncode == 0
    [said] = r.stderr.splitlines()
    assert "warning QR104: 1 query is judged only with negative grades (q2)" in said
    assert "exits 4" in said
    theirs = pytrec_eval.RelevanceEvaluator(
        {"q1": {"d1": 1, "d9": 0}, "q2": {"d3": -1, "d8": -2}}, {"map", "recip_rank"}
    ).evaluate({"q1": {"d1": 3.0, "d9": 2.0}, "q2": {"d3": 5.0}})
    ours = json.loads(r.stdout)["runs"][0]["queries"]
    assert {q: (v["map"], v["mrr"]) for q, v in ours.items()} == {
        q: (v["map"], v["recip_rank"]) for q, v in theirs.items()
    }
    assert qrels_lsp("score", qrels, b, "--strict", cwd=tmp_path).returncode == 1
    clean = write(tmp_path / "c.qrels", "q1 0 d1 1\nq2 0 d3 0\n")  # 0: judged, no trouble
    r = qrels_lsp("score", clean, b, "--strict", cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == ""


def test_depth_and_judged_only_options_score_the_cut_run(tmp_path: Path) -> None:
    """`score -M N -J` (trec_eval's options) scores what scoring the run cut by hand scores:
    each ranking's first N in trec_eval's order, then its unjudged documents removed; `compare`
    takes them too, and -M must be a positive integer."""
    qrels = write(tmp_path / "g.qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d4 1\nq2 0 d3 1\nq2 0 x 0\n")
    run = write(
        tmp_path / "r.trec",
        "q1 Q0 x1 1 5 r\nq1 Q0 d2 2 4 r\nq1 Q0 d1 3 3 r\nq1 Q0 x2 4 2 r\nq1 Q0 d4 5 1 r\n"
        "q2 Q0 y 1 9 r\nq2 Q0 x 2 9 r\nq2 Q0 d3 3 1 r\n",  # (x and y tie: y first, as trec_eval)
    )
    # -M 3: x1 d2 d1 and y x d3; then -J: d2 d1 and x d3
    by_hand = write(
        tmp_path / "cut.trec", "q1 Q0 d2 1 4 r\nq1 Q0 d1 2 3 r\nq2 Q0 x 1 9 r\nq2 Q0 d3 2 1 r\n"
    )

    def scores(*args: str | Path) -> object:
        r = qrels_lsp(
            "score", qrels, *args, "--format", "json", "--metrics", "map,P@2,ndcg,mrr",
            cwd=tmp_path,
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)["runs"][0]["queries"]

    assert scores(run, "-M", "3", "-J") == scores(by_hand)
    assert scores(run, "--depth", "3", "--judged-only") == scores(by_hand)
    assert scores(run, "-M", "3") != scores(run) != scores(run, "-J")
    compared = qrels_lsp(
        "compare", qrels, run, by_hand, "-M", "3", "-J", "--format", "json", cwd=tmp_path
    )
    assert compared.returncode == 0, compared.stderr
    assert all(c["delta"] == 0.0 for c in json.loads(compared.stdout)["comparisons"])
    bad = qrels_lsp("score", qrels, run, "-M", "0", cwd=tmp_path)
    assert bad.returncode == 2 and "-M must be a positive integer" in bad.stderr
