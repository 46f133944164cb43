"""Writes the demo's run of chunks, server/qrels_lsp/examples/runs/passages.run.yaml.

The demo's articles are split into passages at blank lines (a heading stays with the passage
under it; a passage id is the article's id, `#` and its 1-based number: `kb/factory-reset.md#3`),
and each question of the golden set is searched against the passages with qrels-lsp's BM25
(BM25Okapi statistics, k1 1.5, b 0.75); its 10 best passages are written with their scores (four
decimals). `tests/test_demo.py` checks that this script writes the file as it is, byte for byte.

    python scripts/make_demo_passages.py [OUTPUT]
"""

from __future__ import annotations

import sys
from pathlib import Path

from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.metrics import trec_eval_order
from qrels_lsp.core.search.bm25 import BM25Index
from qrels_lsp.core.search.tokens import tokenize

EXAMPLES = Path(__file__).resolve().parents[1] / "server" / "qrels_lsp" / "examples"
DEPTH = 10
HEADER = """\
# Passage retriever: every article split into passages at blank lines (a heading stays with the
# passage under it), BM25 over the passages, the 10 best per question with their scores.
# A passage id is its article's id, `#`, and the passage's number: kb/factory-reset.md#3 is the
# third passage of kb/factory-reset.md. The golden set judges articles: its `chunks:` rule maps
# each passage to its article, and an article counts once, at its best passage (so k = 5 counts
# articles, not passages). Made by scripts/make_demo_passages.py.
qrels: ../support.qrels.yaml
name: passages
results:
"""


def passages(corpus: Path) -> list[tuple[str, str]]:
    """(passage id, text) of every article, in path order."""
    out = []
    for path in sorted(corpus.rglob("*.md")):
        doc = path.relative_to(corpus).as_posix()
        blocks = [b.strip() for b in path.read_text(encoding="utf-8").split("\n\n") if b.strip()]
        merged: list[str] = []
        for block in blocks:
            if merged and merged[-1].startswith("#") and "\n" not in merged[-1]:
                merged[-1] += "\n" + block  # a heading alone joins the passage under it
            else:
                merged.append(block)
        out += [(f"{doc}#{i}", text) for i, text in enumerate(merged, start=1)]
    return out


def main(output: Path) -> None:
    golden = parse_golden((EXAMPLES / "support.qrels.yaml").read_text(encoding="utf-8"))
    chunks = passages(EXAMPLES / "corpus")
    index = BM25Index.from_tokens([c for c, _ in chunks], (tokenize(t) for _, t in chunks))
    assert index is not None
    lines = [HEADER.rstrip("\n")]
    for qid, query in golden.queries.items():
        if query.unanswerable or not (query.question or "").strip():
            continue
        scored = {c: round(s, 4) for c, s in index.top_ids(tokenize(query.question or ""), DEPTH)}
        lines.append(f"  {qid}:")
        lines += [f"    {c}: {scored[c]:.4f}" for c in trec_eval_order(scored.items())]
    output.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLES / "runs" / "passages.run.yaml")
