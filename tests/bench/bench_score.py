"""`qrels-lsp score` as a whole process against pytrec_eval's and trec_eval's whole processes.

Workload (``generate.trec_eval_pair``): TREC qrels (1,000 topics, 100,000 judgments) and a
1,000-query x 1,000-deep TREC run (1,000,000 lines). Every system computes the same five measures
per query and their means, and writes them to stdout:

- ours: ``qrels-lsp score QRELS RUN --format json --metrics recall@10,precision@10,mrr,ndcg@10,map``
- pytrec_eval: ``python -c`` reading both files line by line as a user would, then
  ``RelevanceEvaluator(qrels, {recall.10, P.10, recip_rank, ndcg_cut.10, map}).evaluate(run)``
  and ``json.dump`` of the per-query results and means
- trec_eval (when given): ``trec_eval -q -m recall.10 -m P.10 -m recip_rank -m ndcg_cut.10 -m map``

Runs are interleaved, R times each (median reported); stdout goes to a file; wall time is spawn ->
exit, peak RSS from ``wait4`` in a small launcher (see ``spawn.py``). Our means must equal pytrec_eval's.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spawn import run_measured

OURS_METRICS = "recall@10,precision@10,mrr,ndcg@10,map"
PYTREC_MEASURES = ["recall.10", "P.10", "recip_rank", "ndcg_cut.10", "map"]
SAME = {
    "recall@10": "recall_10",
    "precision@10": "P_10",
    "mrr": "recip_rank",
    "ndcg@10": "ndcg_cut_10",
    "map": "map",
}

PYTREC_SCRIPT = """
import json, sys
import pytrec_eval

qrels = {}
with open(sys.argv[1]) as f:
    for line in f:
        qid, _, doc, rel = line.split()
        qrels.setdefault(qid, {})[doc] = int(rel)
run = {}
with open(sys.argv[2]) as f:
    for line in f:
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(sys.argv[3].split(",")))
per_query = evaluator.evaluate(run)
names = sorted(next(iter(per_query.values())))
mean = {m: sum(v[m] for v in per_query.values()) / len(per_query) for m in names}
json.dump({"queries": per_query, "mean": mean}, sys.stdout, indent=2)
"""


def _ours_command() -> list[str]:
    script = Path(sys.executable).with_name("qrels-lsp")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "qrels_lsp.cli"]


def commands(qrels: Path, run: Path, trec_eval: Path | None) -> dict[str, list[str]]:
    out = {
        "ours": [
            *_ours_command(),
            "score",
            str(qrels),
            str(run),
            "--format",
            "json",
            "--metrics",
            OURS_METRICS,
        ],
        "pytrec_eval": [
            sys.executable,
            "-c",
            PYTREC_SCRIPT,
            str(qrels),
            str(run),
            ",".join(PYTREC_MEASURES),
        ],
    }
    if trec_eval is not None:
        measures = [a for m in PYTREC_MEASURES for a in ("-m", m)]
        out["trec_eval"] = [str(trec_eval), "-q", *measures, str(qrels), str(run)]
    return out


def timed(cmd: list[str], stdout: Path, cwd: Path) -> tuple[float, float, int]:
    """(wall seconds spawn -> exit, peak RSS MB, exit status), through a small launcher."""
    r = run_measured(cmd, stdout, cwd)
    return r["wall_s"], r["peak_rss_mb"], r["exit"]


def run(qrels: Path, run_path: Path, trec_eval: Path | None, repeats: int = 3) -> dict[str, Any]:
    cmds = commands(qrels, run_path, trec_eval)
    for p in (qrels, run_path):  # the page cache holds both for every system
        with p.open("rb") as f:
            while f.read(1 << 24):
                pass
    measured = processes(cmds, repeats, qrels.parent)
    outputs = measured.pop("outputs")
    ours_mean = json.loads(outputs["ours"])["runs"][0]["mean"]
    ref_mean = json.loads(outputs["pytrec_eval"])["mean"]
    diff = max(abs(ours_mean[a] - ref_mean[b]) for a, b in SAME.items())
    result: dict[str, Any] = {
        **measured,
        "means_ours": ours_mean,
        "means_pytrec_eval": ref_mean,
        "max_abs_mean_diff": diff,
        "means_agree": diff < 1e-9,
    }
    if "trec_eval" in outputs:
        te = {}
        for line in outputs["trec_eval"].splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "all" and parts[0] in SAME.values():
                te[parts[0]] = float(parts[2])
        result["means_trec_eval"] = te
    return result


if __name__ == "__main__":
    import argparse

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from generate import trec_eval_pair

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--data", type=Path, default=Path(tempfile.gettempdir()) / "qrels-lsp-bench/data"
    )
    p.add_argument("--trec-eval", type=Path)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    trec_eval_pair(a.data / "trec")
    print(
        json.dumps(
            run(
                a.data / "trec" / "qrels.txt", a.data / "trec" / "run.trec", a.trec_eval, a.repeats
            ),
            indent=2,
        )
    )


PYTREC_JSON_SCRIPT = PYTREC_SCRIPT.replace(
    """run = {}
with open(sys.argv[2]) as f:
    for line in f:
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
""",
    """with open(sys.argv[2]) as f:
    run = json.load(f)
""",
)


def processes(cmds: dict[str, list[str]], repeats: int, cwd: Path) -> dict[str, Any]:
    """Each command as a whole process, interleaved, ``repeats`` times, in ``cwd`` (the folder
    of the files: the command line reads only under the current folder): median wall time, peak
    RSS and the last stdout of each."""
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    rss: dict[str, float] = {}
    outputs: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="qrels-bench-score-") as tmp:
        for _ in range(repeats):
            for name, cmd in cmds.items():
                out = Path(tmp) / f"{name}.out"
                wall, peak, code = timed(cmd, out, cwd)
                if code != 0:
                    raise RuntimeError(f"{name} exited with {code}: {' '.join(cmd[:4])} ...")
                walls[name].append(wall)
                rss[name] = max(rss.get(name, 0.0), peak)
                outputs[name] = out.read_text()
    return {
        "repeats": repeats,
        "wall_s": walls,
        "median_s": {k: statistics.median(v) for k, v in walls.items()},
        "peak_rss_mb": rss,
        "outputs": outputs,
    }


def _ours_score(*args: Path | str) -> list[str]:
    return [
        *_ours_command(),
        "score",
        *map(str, args),
        "--format",
        "json",
        "--metrics",
        OURS_METRICS,
    ]


def _mean(output: str) -> dict[str, float]:
    return dict(json.loads(output)["runs"][0]["mean"])


def yaml_run(ws: Path, repeats: int = 3) -> dict[str, Any]:
    """`score` of the 10k golden set with its run as run YAML, against the same ranking as TREC."""
    golden = ws / "golden.qrels.yaml"
    r = processes(
        {
            "yaml": _ours_score(golden, ws / "runs" / "bm25.run.yaml"),
            "trec": _ours_score(golden, ws / "runs" / "bm25.trec"),
        },
        repeats,
        ws,
    )
    outputs = r.pop("outputs")
    r["means_agree"] = _mean(outputs["yaml"]) == _mean(outputs["trec"])
    return r


def json_run(folder: Path, repeats: int = 3) -> dict[str, Any]:
    """`score` of a ranx JSON run of 10^6 entries against pytrec_eval's whole process
    (json.load of the run, the qrels read line by line, evaluate)."""
    qrels, run_path = folder / "qrels.txt", folder / "run.run.json"
    r = processes(
        {
            "ours": _ours_score(qrels, run_path),
            "pytrec_eval": [
                sys.executable,
                "-c",
                PYTREC_JSON_SCRIPT,
                str(qrels),
                str(run_path),
                ",".join(PYTREC_MEASURES),
            ],
        },
        repeats,
        folder,
    )
    outputs = r.pop("outputs")
    ours, ref = _mean(outputs["ours"]), json.loads(outputs["pytrec_eval"])["mean"]
    r["max_abs_mean_diff"] = max(abs(ours[a] - ref[b]) for a, b in SAME.items())
    r["means_agree"] = r["max_abs_mean_diff"] < 1e-9
    return r


def deep_run(folder: Path, trec_eval: Path, repeats: int = 1) -> dict[str, Any]:
    """`score` of a 7-million-line TREC run (streamed) against trec_eval, with peak memory."""
    qrels, run_path = folder / "qrels.txt", folder / "run.trec"
    measures = [a for m in PYTREC_MEASURES for a in ("-m", m)]
    r = processes(
        {
            "ours": _ours_score(qrels, run_path),
            "trec_eval": [str(trec_eval), *measures, str(qrels), str(run_path)],
        },
        repeats,
        folder,
    )
    outputs = r.pop("outputs")
    ours = _mean(outputs["ours"])
    te = {}
    for line in outputs["trec_eval"].splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "all" and parts[0] in SAME.values():
            te[parts[0]] = float(parts[2])
    r["max_abs_mean_diff"] = max(abs(round(ours[a], 4) - te[b]) for a, b in SAME.items())
    r["means_agree"] = r["max_abs_mean_diff"] < 1e-9
    return r
