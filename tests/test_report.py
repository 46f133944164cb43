"""`qrels-lsp report` (issue 17) without a browser: the page is self-contained (nothing fetched,
nothing a file's author wrote left unescaped), embeds the very documents `score` and `compare`
print, and is made for one run and for TREC qrels too. tests/editors/test_report.py opens it in
Chromium."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from conftest import EXAMPLES, TEST_DATA
from test_cli import qrels_lsp, write


class Page(HTMLParser):
    """Every tag with its attributes, the script bodies, the text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        (self.scripts if self._in_script else self.text).append(data)


def parsed(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_the_report_embeds_score_and_compare(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    golden = EXAMPLES / "support.qrels.yaml"
    r = qrels_lsp("report", golden, "-o", out)
    assert r.returncode == 0, r.stderr
    page = parsed(out)
    [data] = [
        s
        for t, a in page.tags
        if t == "script" and a.get("id") == "qrels-data"
        for s in page.scripts[:1]
    ]
    embedded = json.loads(data)
    scores = json.loads(qrels_lsp("score", golden, "--baseline", "bm25", "--format", "json").stdout)
    compared = json.loads(qrels_lsp("compare", golden, "--format", "json").stdout)
    assert embedded == {"scores": scores, "comparisons": compared}
    # self-contained: no element loads anything, every link stays in the page
    for tag, attrs in page.tags:
        assert "src" not in attrs and tag not in ("link", "iframe", "img", "object"), (tag, attrs)
        if tag == "a":
            assert (attrs.get("href") or "").startswith("#"), attrs
    others = len({c["run"] for c in compared["comparisons"]})
    assert others == 5  # bm25, dense, passages (a run of chunks), hybrid and rrf (fused)
    assert (
        sum(1 for t, a in page.tags if t == "svg") == 2 + others + 2
    )  # curves, a strip per run compared, histogram and coverage


def test_what_files_say_is_escaped(tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script>"
    write(tmp_path / "corpus" / "a.md", "# a\nabout things\n")
    write(
        tmp_path / "g.qrels.yaml",
        "corpus: corpus/\nruns: [r.run.yaml]\nqueries:\n"
        f'  "q<img src=x onerror=alert(2)>":\n    question: "{hostile} </script><b>x"\n    relevant: [a.md]\n'
        "  q2:\n    question: plain\n    relevant: [a.md]\n",
    )
    write(
        tmp_path / "r.run.yaml",
        'name: "</title><script>alert(3)</script>"\nresults:\n  q2: [a.md]\n',
    )
    out = tmp_path / "r.html"
    r = qrels_lsp("report", tmp_path / "g.qrels.yaml", "-o", out, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    page = parsed(out)
    assert [t for t, _ in page.tags].count("script") == 2  # the data and the sorter: no other
    assert not any(t == "img" or "onerror" in a for t, a in page.tags)
    assert not any(t == "b" for t, _ in page.tags)
    text = "".join(page.text)
    assert hostile in text and "q<img src=x onerror=alert(2)>" in text  # shown, as text
    raw = out.read_text(encoding="utf-8")
    data = re.search(r'id="qrels-data">(.*?)</script>', raw, re.S)
    assert data is not None and "<" not in data.group(1)  # the data cannot close its element
    assert (
        json.loads(data.group(1))["scores"]["runs"][0]["name"]
        == "</title><script>alert(3)</script>"
    )


def test_one_run_and_trec_qrels(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    qrels, run = TEST_DATA / "trec_eval" / "qrels.test", TEST_DATA / "trec_eval" / "results.test"
    r = qrels_lsp("report", qrels, run, "-o", out)
    assert r.returncode == 0, r.stderr
    page = parsed(out)
    svgs = [a.get("class") for t, a in page.tags if t == "svg"]
    assert (
        svgs.count("chart strip") == 0 and "chart curve curve-recall" in svgs
    )  # no base to compare with
    assert "No corpus" in "".join(page.text)
    none = qrels_lsp("report", qrels, "-o", out)
    assert none.returncode == 2 and "no runs" in none.stderr


def test_the_curves_are_the_means_score_gives() -> None:
    """The report's curves come from one walk and a running count; they must be the very means
    of recall@i and precision@i as evaluate scores them one metric at a time."""
    from dataclasses import replace

    from qrels_lsp.core.metrics import Metric, evaluate
    from qrels_lsp.core.project.results import QrelsContext, RunResult
    from qrels_lsp.ide.report.data import curves
    from trec_data import qrels_of, run_of

    for qrels_name, run_name, level in [
        ("vaswani/qrels", "vaswani/bm25_top100.run", 1),
        ("trec_eval/qrels.rel_level", "trec_eval/results.test", 2),
        ("trec_eval/qrels.test", "trec_eval/results.trunc", 1),
    ]:
        qrels = qrels_of(qrels_name)
        grades = qrels.grades()
        unanswerable = {next(iter(grades))}  # one left out of the means
        rankings = run_of(run_name).ranked_ids()
        metrics = [Metric(m, i) for m in ("recall", "precision") for i in range(1, 101)]
        ev = evaluate(grades, rankings, metrics, level, unanswerable)
        ctx = QrelsContext(Path("g"), "trec-qrels", qrels, 5, level, [], None, None, [])
        ctx = replace(ctx, grades=grades, unanswerable=unanswerable)
        run = RunResult(Path("r"), "r", None, ev, rankings=rankings)
        got = curves(ctx, run)
        for m in ("recall", "precision"):
            assert got[m] == [ev.mean[f"{m}@{i}"] for i in range(1, 101)], (qrels_name, m)
