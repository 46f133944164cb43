"""Every id, run name, question, tag, document title and file name of a hostile repository
(tests/hostile_world.py) through every output of the real command line: the gate's Markdown
summary and `compare --format markdown` and `score --format markdown` as GitHub renders them
(cmark-gfm) and as markdown-it does, checked by their structure (each table row keeps its cells;
no link, image or HTML from the data; each id reads back as written); `score`, `check` and `gate`
as text and as workflow commands; the HTML report, parsed (its elements and attributes are those
of a report on harmless data; the JSON it embeds reads back as the same strings) with a
Content-Security-Policy that lets only its own style and script run."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import EXAMPLES
from hostile_world import (
    GOLDEN,
    PIECES,
    QIDS,
    RUN_NAMES,
    TAG,
    all_strings,
    assert_inert_markdown,
    assert_plain_line,
    build,
    renderings,
    shown,
)
from test_cli import qrels_lsp

COMMAND = re.compile(r"^\s*::|##\[")  # what GitHub's runner reads as a workflow command
RUNS = ("runs/base.run.yaml", "runs/head.run.yaml")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    build(root)
    return root


def _gate(world: Path, *more: str | Path) -> tuple[int, str]:
    r = qrels_lsp("gate", GOLDEN, "--base", RUNS[0], "--head", RUNS[1], "--critical", TAG, *more, cwd=world)  # fmt: skip
    assert r.returncode == 1, r.stdout + r.stderr  # worse, critical questions too
    return r.returncode, r.stdout


def test_the_gate_summary_shows_every_id_and_name_as_text(world: Path, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    _gate(world, "--summary", summary)
    markdown = summary.read_text(encoding="utf-8")
    assert not any(COMMAND.search(line) for line in markdown.splitlines())
    for renderer, tree in assert_inert_markdown(markdown).items():
        flips = [t for t in tree.tables if t[0][:2] == ["question", "line"]]
        assert len(flips) == 2, renderer  # worse, then better
        for row in (row for t in flips for row in t[1:]):
            assert row[1].isdigit() and all(re.fullmatch(r"[+-]\d\.\d{4}", c) for c in row[2:])
        firsts = [row[0].removesuffix(" (critical)") for t in flips for row in t[1:]]
        assert sorted(firsts) == sorted(shown(q) for q in QIDS), renderer  # each flipped
        coverage = next(t for t in tree.tables if t[0][0] == "run")
        assert [row[0] for row in coverage[1:]] == [shown(n) for n in RUN_NAMES], renderer
        text = "".join(tree.text)
        assert shown(GOLDEN) in text and all(shown(n) in text for n in RUN_NAMES), renderer


def test_compare_and_score_markdown_show_every_id_and_name_as_text(world: Path) -> None:
    r = qrels_lsp("compare", GOLDEN, *RUNS, "--format", "markdown", cwd=world)
    assert r.returncode == 0, r.stderr
    for renderer, tree in assert_inert_markdown(r.stdout).items():
        text = "".join(tree.text)
        assert all(f"{shown(n)} vs " in text for n in RUN_NAMES), renderer  # vs the baseline
        flipped = [c for c in tree.codes if c.startswith("q")]  # listed under each table
        assert len(flipped) >= len(QIDS) // 2 and set(flipped) <= {shown(q) for q in QIDS}
    r = qrels_lsp("score", GOLDEN, *RUNS, "--format", "markdown", cwd=world)
    assert r.returncode == 0, r.stderr
    for renderer, tree in assert_inert_markdown(r.stdout).items():
        per_query = [t for t in tree.tables if t[0][0] == "query"]
        assert len(per_query) == 2, renderer
        for table in per_query:
            assert [row[0] for row in table[1:-1]] == [shown(q) for q in QIDS], renderer
        means = next(t for t in tree.tables if t[0][0] == "run")
        assert [row[0] for row in means[1:]] == [shown(n) for n in RUN_NAMES], renderer


def test_text_and_workflow_commands_stay_one_line_each(world: Path) -> None:
    """Plain text: one printable line per line, none a workflow command; `--format github`:
    each line one command of the expected shape, its properties free of `:` and `,`."""
    for args in (("score", GOLDEN, *RUNS), ("compare", GOLDEN, *RUNS), ("check", ".")):
        r = qrels_lsp(*args, cwd=world)
        assert r.returncode in (0, 1), r.stderr
        for line in (r.stdout + r.stderr).splitlines():
            assert_plain_line(line)
            assert not COMMAND.search(line), line
    shape = re.compile(
        r"::(error|warning|notice) file=(?P<file>[^:,]*),line=\d+,(col=\d+,endLine=\d+,"
        r"endColumn=\d+,)?title=(?P<title>[^:,]*)::(?P<message>.*)"
    )
    r = qrels_lsp("check", ".", "--format", "github", cwd=world)
    _, gate = _gate(world, "--format", "github")
    commands = [line for line in (r.stdout + gate).splitlines() if line.startswith("::")]
    assert any("QR106" in line for line in commands)  # the unknown document, quoted
    assert sum("qrels-lsp gate" in line for line in commands) == len(QIDS) - len(QIDS) // 4
    for line in commands:
        assert_plain_line(line)
        m = shape.fullmatch(line)
        assert m is not None, line
        assert "##[" not in line
    for line in gate.splitlines():  # the verdict in words, after the annotations
        if not line.startswith("::"):
            assert_plain_line(line)
            assert not COMMAND.search(line), line


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.shape: set[tuple[str, tuple[str, ...]]] = set()  # each tag with its attributes
        self.attrs: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.styles: list[str] = []
        self.comments: list[str] = []
        self._raw: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.shape.add((tag, tuple(sorted(k for k, _ in attrs))))
        self.attrs.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._raw = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self.scripts.append((self.attrs[-1][1], self._raw or ""))
        elif tag == "style":
            self.styles.append(self._raw or "")
        self._raw = None

    def handle_data(self, data: str) -> None:
        if self._raw is not None:
            self._raw += data

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def parsed(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def sha256(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode() + "'"


def test_the_report_holds_the_data_as_text_and_runs_only_its_own_script(
    world: Path, tmp_path: Path
) -> None:
    out = tmp_path / "hostile.html"
    r = qrels_lsp("report", GOLDEN, *RUNS, "-o", out, cwd=world)
    assert r.returncode == 0, r.stderr
    demo = tmp_path / "demo.html"
    r = qrels_lsp("report", EXAMPLES / "support.qrels.yaml", "-o", demo, cwd=EXAMPLES)
    assert r.returncode == 0, r.stderr
    page, harmless = parsed(out), parsed(demo)
    # Every element and attribute is one a report on harmless data has: none is the data's.
    assert page.shape <= harmless.shape, page.shape - harmless.shape
    assert not page.comments
    (data_attrs, data), (code_attrs, code) = page.scripts
    assert data_attrs == {"type": "application/json", "id": "qrels-data"} and code_attrs == {}
    assert "</" not in data and "<!--" not in data
    strings = set(all_strings(json.loads(data)))
    assert {*QIDS, *RUN_NAMES} <= strings  # read back as the very strings written
    rows = [a["data-qid"] for t, a in page.attrs if t == "tr" and "data-qid" in a]
    assert sorted(rows) == sorted(QIDS)  # each question's row names it exactly
    titles = [a["title"] for t, a in page.attrs if t == "td" and a.get("class") == "text"]
    assert sorted(titles) == sorted(f"question {p}" for p in PIECES)
    assert not any(k.startswith("on") for _t, a in page.attrs for k in a)
    # Its policy: its own style and script by their hashes, nothing inline else.
    csp = next(a["content"] for t, a in page.attrs if a.get("http-equiv") == "Content-Security-Policy")  # fmt: skip
    assert csp is not None and "unsafe" not in csp
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";") if d.strip())
    assert directives["script-src"] == sha256(code)
    assert directives["style-src"] == sha256(page.styles[0]) and len(page.styles) == 1
    assert not any("style" in a for _t, a in page.attrs)  # no style attribute to allow


def test_tree_is_what_the_renderers_give() -> None:
    """The checks themselves: a `|` in a code span breaks its cell (so a cell's text says
    whether it held), and a link, an autolinked URL, an image and raw HTML are seen."""
    for renderer, tree in renderings("| a | b |\n| --- | --- |\n| `x|y` | 1 |\n").items():
        assert tree.tables == [[["a", "b"], ["`x", "y`"]]], renderer
    with pytest.raises(AssertionError):
        assert_inert_markdown("[x](http://e) ![i](i.png)")
    with pytest.raises(AssertionError):
        assert_inert_markdown("see http://e.example")
    with pytest.raises(AssertionError):
        assert_inert_markdown("<img src=x onerror=alert(1)>")


def test_the_report_of_an_id_with_an_undecodable_byte(tmp_path: Path) -> None:
    """A TREC id keeps an invalid byte (as trec_eval compares ids); the page shows it as its
    escape and its JSON as the string score's JSON holds, where writing it raised before."""
    (tmp_path / "g.qrels").write_bytes(b"q\xff1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "a.trec").write_bytes(b"q\xff1 Q0 d1 1 1.0 a\nq2 Q0 d2 1 1.0 a\n")
    (tmp_path / "b.trec").write_bytes(b"q\xff1 Q0 d2 1 1.0 b\nq2 Q0 d2 1 1.0 b\n")
    out = tmp_path / "r.html"
    r = qrels_lsp("report", "g.qrels", "a.trec", "b.trec", "-o", out, cwd=tmp_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    page = parsed(out)
    assert "q\\xff1" in [a.get("data-qid") for _t, a in page.attrs]
    assert "q\udcff1" in all_strings(json.loads(page.scripts[0][1]))
