"""How ``vaswani/bm25_top100.run`` was made: ``python tests/data/make_bm25_run.py > run``.

rank_bm25's BM25Okapi with its defaults (k1 1.5, b 0.75, epsilon 0.25) over the Vaswani documents
of ``vaswani/corpus/doc-text.trec``; each of the 93 titles of ``vaswani/query-text.trec`` is scored
with ``get_scores`` and its 100 best documents written by score descending, equal scores by DOCNO
as text ascending, the score with six decimals, tag ``bm25_rank_bm25``. Tokens: runs of word
characters of the lower-cased text (``re.findall(r"\\w+", text.lower())``), in documents and
queries alike. The output equals the committed file byte for byte (tests/test_self_contained.py).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from rank_bm25 import BM25Okapi

VASWANI = Path(__file__).resolve().parent / "vaswani"
DOCUMENT = re.compile(r"<DOC>\s*<DOCNO>(.*?)</DOCNO>(.*?)</DOC>", re.S)
TOPIC = re.compile(r"<num>(.*?)</num><title>(.*?)</title>", re.S)


def tokens(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def bm25_run(vaswani: Path = VASWANI, depth: int = 100) -> str:
    """The run, as text: ``qid Q0 docno rank score bm25_rank_bm25`` lines, topics in file order."""
    corpus = (vaswani / "corpus" / "doc-text.trec").read_text(encoding="utf-8")
    documents = DOCUMENT.findall(corpus)
    ids = [docno.strip() for docno, _ in documents]
    okapi = BM25Okapi([tokens(text) for _, text in documents])
    lines = []
    for qid, title in TOPIC.findall((vaswani / "query-text.trec").read_text(encoding="utf-8")):
        scores = okapi.get_scores(tokens(title))
        best = sorted(range(len(ids)), key=lambda i: (-scores[i], ids[i]))[:depth]
        lines += [
            f"{qid.strip()} Q0 {ids[i]} {rank} {scores[i]:.6f} bm25_rank_bm25\n"
            for rank, i in enumerate(best, 1)
        ]
    return "".join(lines)


if __name__ == "__main__":
    sys.stdout.write(bm25_run())
