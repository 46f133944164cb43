"""One verdict (docs/compare.md): the same data gives the same word in the editor (the first
line's lens and hover), `compare`, `gate` and the report. The data is the demo's golden set with
two of its runs (dense against bm25) and two metrics, so that each output's family of
comparisons (Holm's) is the same one: dense vs bm25 on recall@5 and ndcg@5."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import EXAMPLES, Workspace, diagnostics, open_doc, settled_lenses

GOLDEN = "support.qrels.yaml"
METRICS = ["recall@5", "ndcg@5"]
CLI = [sys.executable, "-m", "qrels_lsp.cli"]
WORDS = r"better|worse|no difference detected|too few questions to tell"


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    for other in ("passages.run.yaml", "hybrid.trec"):  # (the first names the golden set too)
        (root / "runs" / other).unlink()
    text = (root / GOLDEN).read_text(encoding="utf-8")
    text = text.replace(
        "runs: [runs/*.run.yaml, runs/*.trec]", "runs: [runs/dense.run.yaml, runs/bm25.run.yaml]"
    )
    text = re.sub(r"(?m)^fusions:.*\n(  - .*\n)+", "", text)
    text = text.replace(
        'kb/factory-reset.md: "2"', "kb/factory-reset.md: 2"
    )  # (the gate refuses QR103)
    (root / GOLDEN).write_text("compare_to: bm25\n" + text, encoding="utf-8")
    (root / "qrels-lsp.toml").write_text(
        f"metrics = {json.dumps(METRICS)}\nbm25_baseline = false\n", encoding="utf-8"
    )
    return root


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], cwd=root, capture_output=True, text=True, timeout=300, check=False
    )


class Verdicts(HTMLParser):
    """The report's verdict cells: (run, metric) -> word."""

    def __init__(self) -> None:
        super().__init__()
        self.found: dict[tuple[str, str], str] = {}
        self.table = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self.table = a.get("class") or ""
        if tag == "td" and a.get("class") == "decision" and self.table == "decisions":
            self.found[(a["data-run"] or "", a["data-metric"] or "")] = a["data-verdict"] or ""


@pytest.mark.asyncio
async def test_the_editor_compare_gate_and_report_say_the_same_word(
    client: LanguageClient, ws: Workspace, tmp_path: Path
) -> None:
    compared = cli(ws.root, "compare", GOLDEN, "--format", "json")
    assert compared.returncode == 0, compared.stderr
    family = json.loads(compared.stdout)["comparisons"]
    assert [(c["run"], c["metric"]) for c in family] == [("dense", m) for m in METRICS]
    words = {c["metric"]: c["verdict"] for c in family}

    gate = cli(
        ws.root, "gate", GOLDEN, "--base", "bm25", "--head", "dense", "--metric",
        ",".join(METRICS), "--summary", str(tmp_path / "summary.md"),
    )  # fmt: skip
    assert gate.returncode in (0, 1), gate.stderr
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    for metric in METRICS:
        line = next(x for x in gate.stdout.splitlines() if x.strip().startswith(f"{metric}:"))
        assert line.endswith(f": {words[metric]}") or f": {words[metric]} (" in line, line
        assert f"| {metric} | {words[metric]}" in summary

    report = cli(ws.root, "report", GOLDEN, "-o", str(tmp_path / "report.html"))
    assert report.returncode == 0, report.stderr
    parser = Verdicts()
    parser.feed((tmp_path / "report.html").read_text(encoding="utf-8"))
    assert parser.found == {("dense", m): words[m] for m in METRICS}

    uri = await open_doc(client, ws, GOLDEN)
    await diagnostics(client, uri, version=1)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    for metric in METRICS:
        row = next(r for r in hover.contents.value.splitlines() if r.startswith(f"| {metric} |"))
        assert re.match(rf"\| {re.escape(metric)} \| ({WORDS})", row)
        assert f"| {metric} | {words[metric]}" in row
    lenses = await settled_lenses(client, uri)
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    (lens,) = [t for t in titles if t.startswith("dense vs bm25: ")]
    assert re.search(rf": (?:[▲▼] )?{re.escape(words['recall@5'])}\b", lens), lens
