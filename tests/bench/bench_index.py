"""BM25 speed and index memory rows of the benchmark table.

- speed: ``bench_bm25.py --one gen-50k SYSTEM`` (the colleague's benchmark, unchanged: seeded
  50,000-document corpus, 100 questions, top-100, each system in its own process; ours must equal
  ``BM25Okapi.get_scores`` bit for bit and give the same top-100).
- memory: the server's own path on a 100,000-document JSONL corpus (``generate.corpus_jsonl``):
  ``load_corpus`` + ``build_index``, peak RSS (``ru_maxrss``) of a fresh process. For context, the
  same corpus read and tokenized in Python and indexed by rank_bm25 (``BM25Okapi``) and bm25s.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from spawn import run_measured  # noqa: E402

MEMORY_SCRIPT = """
import json, resource, sys, time
from pathlib import Path
system, path = sys.argv[1], Path(sys.argv[2])
t0 = time.perf_counter()
if system == "ours":
    from qrels_lsp.core.search.bm25 import build_index
    from qrels_lsp.core.formats.corpus import load_corpus
    corpus = load_corpus(path)
    index = build_index(corpus)
    n = len(index)
else:
    from qrels_lsp.core.search.bm25 import tokenize
    docs = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            docs.append(tokenize(obj.get("title", "") + " " + obj["text"]))
    if system == "rank_bm25":
        from rank_bm25 import BM25Okapi
        index = BM25Okapi(docs)
    else:
        import bm25s
        index = bm25s.BM25(k1=1.5, b=0.75, method="robertson")
        index.index(docs, show_progress=False)
    n = len(docs)
print(json.dumps({
    "system": system,
    "docs": n,
    "seconds": time.perf_counter() - t0,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "vm_hwm_mb": int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) / 1024,
}))
"""


def _last_json(stdout: str) -> dict[str, Any]:
    return dict(json.loads(stdout.strip().splitlines()[-1]))


def _measured(cmd: list[str]) -> dict[str, Any]:
    """The JSON a measuring subprocess prints, started from a small launcher so that its own
    ``ru_maxrss`` is not inflated by this (possibly large) process (see ``spawn.py``)."""
    with tempfile.TemporaryDirectory(prefix="qrels-bench-index-") as tmp:
        out = Path(tmp) / "stdout"
        r = run_measured(cmd, out)
        if r["exit"] != 0:
            raise RuntimeError(f"{' '.join(cmd[-3:])} exited with {r['exit']}")
        result = _last_json(out.read_text())
    result["launcher_peak_rss_mb"] = r["peak_rss_mb"]
    return result


def bm25_speed(workload: str = "gen-50k") -> dict[str, Any]:
    by_system: dict[str, dict[str, Any]] = {}
    for system in ("ours", "rank_bm25", "bm25s"):
        by_system[system] = _measured(
            [sys.executable, str(HERE / "bench_bm25.py"), "--one", workload, system]
        )
    ours, ref = by_system["ours"], by_system["rank_bm25"]
    same_top = ours.pop("tops") == ref.pop("tops")
    same_scores = ours.pop("scores_of_top") == ref.pop("scores_of_top")
    return {
        "workload": workload,
        "docs": ours["docs"],
        "questions": ours["questions"],
        "identical_top100": same_top and same_scores,
        "bit_identical_scores": bool(ref["bit_identical"]),
        "max_abs_diff": ref["max_abs_diff"],
        "query_s": {s: r["query_s"] for s, r in by_system.items()},
        "build_s": {s: r["build_s"] for s, r in by_system.items()},
        "peak_rss_mb": {s: r["peak_rss_mb"] for s, r in by_system.items()},
        "systems": by_system,
    }


def index_memory(corpus: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for system in ("ours", "rank_bm25", "bm25s"):
        out[system] = _measured([sys.executable, "-c", MEMORY_SCRIPT, system, str(corpus)])
    return out


if __name__ == "__main__":
    from generate import corpus_jsonl

    data = Path(tempfile.gettempdir()) / "qrels-lsp-bench" / "data" / "corpus-100k"
    corpus_jsonl(data)
    print(json.dumps(index_memory(data / "corpus.jsonl"), indent=2))
    r = bm25_speed()
    r.pop("systems")
    print(json.dumps(r, indent=2))
