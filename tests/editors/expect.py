"""What the editors must show, worked out without the editor: planted `# demo: QRnnn` markers for
diagnostics, `qrels-lsp score --format json` for the numbers in lens titles, yaml.safe_load of the
golden set for inlay judgments."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml
from qrels_lsp.lsp.encoders import JOIN


def planted(text: str) -> dict[int, str]:
    """0-based line -> code, from the demo's `# demo: QRnnn` markers."""
    return {
        i: m.group(1)
        for i, line in enumerate(text.splitlines())
        if (m := re.search(r"# demo: (QR\d{3})", line))
    }


def key_lines(text: str, indent: int = 2) -> dict[str, int]:
    """0-based line of each mapping key at ``indent`` spaces (query ids of `queries:`/`results:`)."""
    pattern = re.compile(rf"^ {{{indent}}}(?!- )([^\s#:][^:]*):(\s|$)")  # (not a `- ` item)
    out: dict[str, int] = {}
    for i, line in enumerate(text.splitlines()):
        m = pattern.match(line)
        if m:
            out.setdefault(m.group(1).strip(), i)
    return out


def cli_json(server_bin: str, *args: str | Path, cwd: Path) -> dict[str, Any]:
    """What a `qrels-lsp` command run in ``cwd`` (the command line's workspace: the files named
    must be under it) prints with `--format json`, parsed (it must exit 0)."""
    proc = subprocess.run(
        [server_bin, *map(str, args), "--format", "json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def score_json(server_bin: str, golden: Path, *runs: Path) -> dict[str, Any]:
    return cli_json(server_bin, "score", golden, *runs, cwd=golden.parent)


def compare_json(server_bin: str, golden: Path, *runs: Path) -> dict[str, Any]:
    """`qrels-lsp compare --format json` with the BM25 baseline off, as the editors are set."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:  # outside the workspace: not a workspace config
        config = Path(folder) / "qrels-lsp.toml"
        config.write_text("bm25_baseline = false\n", encoding="utf-8")
        return cli_json(server_bin, "compare", "--config", config, golden, *runs, cwd=golden.parent)


def p_text(p: float) -> str:
    """Three decimals, more where three would round across alpha = 0.05 (docs/compare.md)."""
    if p < 0.001:
        return "< 0.001"
    digits = 3
    while (float(f"{p:.{digits}f}") < 0.05) != (p < 0.05):
        digits += 1
    return f"{p:.{digits}f}"


def compare_title(c: dict[str, Any], base: str) -> str:
    """A first-line comparison lens, from `compare --format json`'s entry for recall@k."""
    word = c["verdict"]
    if c["verdict_needed"] is not None:
        word += f" ({c['verdict_needed']:,} needed)"
    mark = {"better": "▲ ", "worse": "▼ "}.get(c["verdict"], "")
    return (
        f"{c['run']} vs {base}: {mark}{word} · {c['metric']} {c['delta']:+.2f}"
        f" · p {p_text(c['p_adjusted'])} (Holm) · {c['wins']}W {c['losses']}L {c['ties']}T"
    )


def compare_titles(compared: dict[str, Any], k: int, run: str | None = None) -> list[str]:
    metric = f"recall@{k}"
    return [
        compare_title(c, compared["base"])
        for c in compared["comparisons"]
        if c["metric"] == metric and run in (None, c["run"])
    ]


def two(x: float) -> str:
    return f"{x:.2f}"


def values(v: dict[str, float], k: int, base: dict[str, float] | None = None) -> str:
    """A question's lens numbers, each marked ▲/▼ where it is above/below the base run's."""

    def mark(key: str) -> str:
        if base is None or v[key] == base[key]:
            return ""
        return "▲" if v[key] > base[key] else "▼"

    recall = f"recall@{k}"
    return f"{recall} {two(v[recall])}{mark(recall)} · MRR {two(v['mrr'])}{mark('mrr')}"


def summary(run: dict[str, Any], coverage: bool = False) -> str:
    """A run's means on a first line; ``coverage``: with its judged@k (some run's is low)."""
    k = run["k"]
    judged = f" · judged@{k} {two(run['mean'][f'judged@{k}'])}" if coverage else ""
    text = f"{values(run['mean'], k)}{judged} (mean of {run['n_queries']})"
    if run["missing"]:
        text += f" · {len(run['missing'])} missing"
    if run["unknown"]:
        text += f" · {len(run['unknown'])} not in the golden set"
    return text


MIN_JUDGED = 0.9  # the setting's default
REPORT_TITLE = "report: curves, deltas, coverage"


POOLED = False  # the demo golden set says `judgments: exhaustive`: its coverage never warns


def low_coverage(scores: dict[str, Any], pooled: bool = POOLED) -> bool:
    """Whether the first line warns of coverage: pooled judgments, and a run below min_judged."""
    return pooled and any(r["mean"][f"judged@{r['k']}"] < MIN_JUDGED for r in scores["runs"])


def judge_title(scores: dict[str, Any], pooled: list[dict[str, Any]]) -> list[str]:
    """The first line's judging lens, from `pool --format json` (none when nothing is left)."""
    if not pooled:
        return []
    k = scores["runs"][0]["k"]
    warning = f"judged@{k} below {MIN_JUDGED:g} · " if low_coverage(scores) else ""
    return [f"{warning}{len(pooled):,} unjudged in the top 10 · judge next"]


def pool_json(server_bin: str, golden: Path) -> list[dict[str, Any]]:
    return cli_json(server_bin, "pool", golden, cwd=golden.parent)  # type: ignore[return-value]


def golden_lenses(
    text: str, scores: dict[str, Any], compared: dict[str, Any], pooled: list[dict[str, Any]]
) -> dict[int, list[str]]:
    """0-based line -> lens titles of a golden set, numbers from `score --format json`,
    `compare --format json` (the comparison lenses, and which run the marks compare with) and
    `pool --format json` (the judging lens)."""
    data = yaml.safe_load(text)
    queries = data["queries"]
    unanswerable = [q for q, e in queries.items() if (e or {}).get("unanswerable") is True]
    runs = scores["runs"]
    head = f"{len(queries)} questions" + (
        f" · {len(unanswerable)} unanswerable" if unanswerable else ""
    )
    k = runs[0]["k"]
    coverage = low_coverage(scores)
    summaries = [f"{r['name']}: {summary(r, coverage)}" for r in runs]
    out: dict[int, list[str]] = {
        0: [
            head,
            *summaries,
            *compare_titles(compared, k),
            *judge_title(scores, pooled),
            *([REPORT_TITLE] if runs else []),
        ]
    }
    base = next(r for r in runs if r["name"] == compared["base"])
    lines = key_lines(text)
    for qid in queries:
        if qid in unanswerable:
            out[lines[qid]] = ["unanswerable · excluded from the means"]
            continue
        titles = []
        for r in runs:
            if qid in r["missing"]:
                titles.append(f"{r['name']}: not in the run · scores 0")
            else:
                against = base["queries"].get(qid) if r is not base else None
                titles.append(f"{r['name']}: {values(r['queries'][qid], r['k'], against)}")
        out[lines[qid]] = [JOIN.join(titles)]  # one lens, the runs' titles joined
    return out


def run_lenses(
    text: str,
    golden_name: str,
    run: dict[str, Any],
    golden: dict[str, Any],
    compared: dict[str, Any],
) -> dict[int, list[str]]:
    """0-based line -> lens titles of a run YAML file (its comparison from `compare`'s JSON of
    the golden set's runs)."""
    queries = golden["queries"]
    head = f"{run['name']} vs {golden_name} · {summary(run)}"
    out: dict[int, list[str]] = {0: [head, *compare_titles(compared, run["k"], run["name"])]}
    results_at = next(i for i, line in enumerate(text.splitlines()) if line.startswith("results:"))
    for qid, line in key_lines(text).items():
        if line < results_at:
            continue
        if qid not in queries:
            title = "not in the golden set · ignored"
        elif (queries[qid] or {}).get("unanswerable") is True:
            title = "unanswerable · excluded from the means"
        else:
            title = values(run["queries"][qid], run["k"])
        out[line] = [title]
    return out


def run_chunk_labels(text: str, golden: dict[str, Any], sep: str = "#") -> dict[int, str]:
    """0-based line -> the inlay label after a chunk id of a run YAML of `chunk: score` lines
    (the golden set's `chunks: {separator: ...}`): `→ document ✓grade` (or ✗grade, ?), and
    ` · dropped` after a later chunk of a document already ranked (trec_eval's order: score
    descending, then id descending)."""
    out: dict[int, str] = {}
    results = yaml.safe_load(text)["results"]
    lines = text.splitlines()
    for qid, chunks in results.items():
        entry = golden["queries"].get(qid)
        if entry is None:
            continue
        rel = entry.get("relevant") or []
        grades = {d: 1 for d in rel} if isinstance(rel, list) else dict(rel)
        start = lines.index(f"  {qid}:")
        at: dict[str, int] = {}
        for i in range(start + 1, len(lines)):
            if not lines[i].startswith("    "):
                break
            at.setdefault(lines[i].split(":")[0].strip(), i)
        seen: set[str] = set()
        for chunk in sorted(chunks, key=lambda c: (chunks[c], c), reverse=True):
            doc = chunk.split(sep)[0]
            grade = grades.get(doc)
            if grade is not None and not (isinstance(grade, int) and not isinstance(grade, bool)):
                grade = None  # a grade written as text is reported (QR103), not judged
            mark = "?" if grade is None else (f"✓{grade}" if grade >= 1 else f"✗{grade}")
            out[at[chunk]] = f"→ {doc} {mark}" + (" · dropped" if doc in seen else "")
            seen.add(doc)
    return out


def run_judgments(text: str, golden: dict[str, Any]) -> dict[int, str]:
    """0-based line -> the inlay label after a retrieved id of a run YAML: ✓grade, ✗grade or ?.

    Ids whose golden-set grade is not an integer (reported as QR103) are left out."""
    out: dict[int, str] = {}
    qid = None
    for i, line in enumerate(text.splitlines()):
        if m := re.match(r"^  ([^\s#:][^:]*):\s*(#.*)?$", line):
            qid = m.group(1).strip()
            continue
        m = re.match(r"^    (?:- )?([^\s#:][^\s:]*?)(?::\s.*)?\s*(#.*)?$", line)
        if not m or qid is None or qid not in golden["queries"]:
            continue
        entry = golden["queries"][qid] or {}
        rel = entry.get("relevant") or []
        grades = {d: 1 for d in rel} if isinstance(rel, list) else dict(rel)
        doc = m.group(1)
        grade = grades.get(doc)
        if grade is None:
            out[i] = "?"
        elif isinstance(grade, int) and not isinstance(grade, bool):
            out[i] = f"✓{grade}" if grade >= 1 else f"✗{grade}"
    return out
