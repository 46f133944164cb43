"""The HTML report (issue 17) in a real browser: `qrels-lsp report` on the demo, opened from
file:// in headless Chromium (Debian's, driven by playwright-core) at 1280x800. No console error
and no request leaves the page; the curves have one series per run; every number read back from
the page equals `qrels-lsp score --format json` or `compare --format json`; the questions table
sorts; a screenshot goes to docs/screenshots/report.png."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, need, run, scratch_env
from .expect import cli_json

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def node_path() -> str:
    path = need("playwright-core (QRELS_CI_NODE_PATH)", os.environ.get("QRELS_CI_NODE_PATH"))
    need("playwright-core", str(Path(path) / "playwright-core"))
    need("chromium", "/usr/bin/chromium")
    return path


def read_page(node_path: str, report: Path, shot: Path) -> dict[str, Any]:
    # Chromium puts unix sockets under TMPDIR: a short path, as for code-server
    base = Path(tempfile.mkdtemp(prefix="qrp-", dir="/tmp"))
    try:
        env = scratch_env(base) | {"NODE_PATH": node_path, "REPORT": str(report), "SHOT": str(shot)}
        proc = run(["node", str(HERE / "report" / "check.js")], timeout=120, env=env)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert data.get("ok"), data.get("error")
    return data


def test_the_report_in_chromium(
    node_path: str, server_bin: str, workspace: Path, artefacts: Path, tmp_path: Path
) -> None:
    golden = workspace / "support.qrels.yaml"
    out = tmp_path / "report.html"
    made = run([server_bin, "report", str(golden), "-o", str(out)], timeout=120, cwd=workspace)
    assert made.returncode == 0, made.stderr
    shot = artefacts / "report.png"
    page = read_page(node_path, out, shot)
    assert page["console"] == [] and page["requests"] == []  # self-contained, no errors

    # The runs the report draws are compare's: the golden set's and its BM25 baseline.
    scores = cli_json(server_bin, "score", golden, "--baseline", "bm25", cwd=workspace)
    compared = cli_json(server_bin, "compare", golden, cwd=workspace)
    names = [r["name"] for r in scores["runs"]]
    assert page["embedded"] == {"scores": scores, "comparisons": compared}
    k = scores["runs"][0]["k"]

    # Curves: one series per run, in a legend too, each point the mean `score` gives.
    cutoffs = ",".join(f"{m}@{i}" for m in ("recall", "precision") for i in range(1, 101))
    curves = cli_json(
        server_bin,
        "score",
        golden,
        "--baseline",
        "bm25",
        "--metrics",
        cutoffs,
        "--summary",
        cwd=workspace,
    )
    assert page["legend"] == names and page["kMark"] == f"k = {k}"
    for metric in ("recall", "precision"):
        series = page["curves"][metric]
        assert [s["run"] for s in series] == names
        for s, run_doc in zip(series, curves["runs"], strict=True):
            assert s["values"] == [run_doc["mean"][f"{metric}@{i}"] for i in range(1, 101)]
            assert [k for k, _v in s["points"]] == [1, k, 10, 20, 50, 100]
            assert all(v == run_doc["mean"][f"{metric}@{i}"] for i, v in s["points"])

    # Means, the questions table, judged@k, the distribution: score's numbers.
    by_name = {r["name"]: r for r in scores["runs"]}
    assert [name for name, _ in page["means"]] == names
    for name, means in page["means"]:
        assert means == by_name[name]["mean"]
    for name, value in page["judged"]:
        assert value == by_name[name]["mean"][f"judged@{k}"]
    headline = f"recall@{k}"
    for qid, values in page["questions"]:
        for name, value in values.items():
            assert value == by_name[name]["queries"][qid][headline], (qid, name)
    for name, b, count in page["bins"]:
        per_query = by_name[name]["queries"]
        counted = [q for q in per_query if q not in by_name[name]["unanswerable"]]
        expected = sum(1 for q in counted if min(int(per_query[q][headline] * 10), 9) == b)
        assert count == expected, (name, b)

    # Each run against the base: one strip per run, a bar per question, its delta score's.
    base = by_name[compared["base"]]
    assert [s["run"] for s in page["strips"]] == [n for n in names if n != compared["base"]]
    for strip in page["strips"]:
        run_doc = by_name[strip["run"]]
        deltas = [d for _q, d, _c in strip["bars"]]
        assert deltas == sorted(deltas)
        for qid, delta, cls in strip["bars"]:
            assert delta == run_doc["queries"][qid][headline] - base["queries"][qid][headline]
            assert cls == "bar " + ("win" if delta > 0 else "loss" if delta < 0 else "tie")
        c = next(
            c
            for c in compared["comparisons"]
            if c["run"] == strip["run"] and c["metric"] == headline
        )
        assert sum(d > 0 for d in deltas) == c["wins"] and sum(d < 0 for d in deltas) == c["losses"]

    # Why relevant documents are missed: every relevant document out of a run's top k, once.
    from qrels_lsp.core.formats.golden import parse_golden

    grades = parse_golden(golden.read_text(encoding="utf-8")).grades()
    for name, causes in page["causes"]:
        per_query = by_name[name]["queries"]
        missed = 0.0
        for qid, values in per_query.items():
            num_rel = sum(1 for g in grades.get(qid, {}).values() if g >= 1)
            missed += num_rel * (1 - values[headline])
        assert sum(causes.values()) == round(missed), (name, causes)

    # At 1280 x 800 nothing scrolls sideways: the page and every table fit their boxes.
    width, client = page["overflow"]["page"]
    assert width <= client, page["overflow"]
    for cls, scroll, box, right in page["overflow"]["tables"]:
        assert scroll <= box and right <= client, (cls, scroll, box, right)
    # The header says what the means are over; the distribution's last bin visibly ends at 1.0.
    counted = by_name[names[0]]
    unanswerable = len(counted["unanswerable"])
    assert page["counts"].startswith(
        f"{counted['n_queries'] + unanswerable} questions: {counted['n_queries']} scored, "
        f"{unanswerable} unanswerable"
    )
    assert page["ticks"] == [f"{i / 10:.1f}" for i in range(11)]
    # The verdicts: compare's, word for word (the same data: the same family).
    words = {(c["run"], c["metric"]): c for c in compared["comparisons"]}
    assert len(page["verdicts"]) == len(words)
    for run_name, metric, word, shown in page["verdicts"]:
        c = words[(run_name, metric)]
        assert word == c["verdict"] and shown.startswith(word), (run_name, metric)
    # By tag: the demo's tags, each with its questions and the runs' verdicts on them.
    by_tag = cli_json(
        server_bin, "compare", golden, "--by", "tag", "--metrics", headline, cwd=workspace
    )
    for tag, n, verdicts in page["tagRows"]:
        mine = [c for c in by_tag["comparisons"] if c["tag"] == tag]
        assert n == mine[0]["n_queries"] and verdicts == [c["verdict"] for c in mine], tag

    # A question id links to its text; the table sorts by a click on a header.
    assert page["linkTarget"]
    assert page["sorted"]["down"] == sorted(page["sorted"]["down"], reverse=True)
    assert page["sorted"]["up"] == sorted(page["sorted"]["up"])
    assert page["sorted"]["sort"] == "ascending"
    assert shot.stat().st_size > 20_000
    docs = ROOT / "docs" / "screenshots"
    docs.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, docs / "report.png")


def test_the_reports_policy_runs_its_own_script_and_no_other(
    node_path: str, server_bin: str, tmp_path: Path
) -> None:
    """The report of the hostile workspace (tests/hostile_world.py): its own script runs (the
    table sorts) with no policy violation; the same page with a script and an event handler
    slipped in, as an escaping mistake would, runs neither (the title stays) and Chromium reports
    them blocked by script-src."""
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from hostile_world import GOLDEN, build

    ws = tmp_path / "ws"
    build(ws)
    page = tmp_path / "report.html"
    made = run([server_bin, "report", GOLDEN, "-o", str(page)], timeout=120, cwd=ws)
    assert made.returncode == 0, made.stderr
    tampered = tmp_path / "tampered.html"
    slipped = (
        "<script>document.title='pwned'</script><img src=x onerror=\"document.title='pwned'\">"
    )
    html = page.read_text(encoding="utf-8")
    tampered.write_text(html.replace("<body>", "<body>" + slipped, 1), encoding="utf-8")
    base = Path(tempfile.mkdtemp(prefix="qrp-", dir="/tmp"))
    try:
        env = scratch_env(base) | {"NODE_PATH": node_path, "PAGES": json.dumps([str(page), str(tampered)])}  # fmt: skip
        proc = run(["node", str(HERE / "report" / "csp.js")], timeout=120, env=env)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result.get("ok"), result.get("error")
    clean, bad = result["pages"]
    assert clean["title"].startswith("qrels-lsp report: g`|<img src=x onerror=alert(1)>")
    assert clean["sort"] == "descending" and clean["violations"] == [] and clean["console"] == []
    assert bad["title"] == clean["title"]  # neither the script nor the handler ran
    assert bad["sort"] == "descending"  # the page's own script still did
    directives = {v["directive"] for v in bad["violations"]}
    assert directives == {"script-src-elem", "script-src-attr", "img-src"}, bad["violations"]
