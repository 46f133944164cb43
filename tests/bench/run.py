"""Every speed benchmark of issue 6 ("Speed at scale"), against real peers on the same machine.

    python tests/bench/run.py [--trec-eval PATH] [--edits 50] [--skip BENCH ...]

One command: installs the peers (yaml-language-server from npm into ~/.cache/qrels-lsp-bench/node;
pytrec-eval-terrier, rank_bm25 and bm25s from PyPI into this interpreter when missing), generates
the seeded inputs (into $TMPDIR/qrels-lsp-bench/data, reused while the generator's parameters
match), runs each benchmark, prints one table (workload, ours, peer, ratio, target, pass/fail)
and writes everything, samples included, to tests/bench/results/bench-<timestamp>.json.

``ratio`` is always ours / peer for the quantity in the row (time or memory): below 1.00x ours is
faster or smaller. Targets are stated in the same terms. Rows marked ``info`` have no target.
Absolute times depend on the machine; only the ratios are targets. Nothing here runs under
pytest. Exit status 0 whatever the verdicts (a benchmark that could not run is an error, 2).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import bench_api  # noqa: E402
import bench_compare  # noqa: E402
import bench_fusion  # noqa: E402
import bench_index  # noqa: E402
import bench_lsp  # noqa: E402
import bench_score  # noqa: E402
import generate  # noqa: E402

CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qrels-lsp-bench"
# yaml-language-server's glob matching skips dot-folders (picomatch), so the generated golden set
# must not live under ~/.cache: the temp folder holds the data.
DATA = Path(tempfile.gettempdir()) / "qrels-lsp-bench" / "data"
YAML_LS_VERSION = "1.25.0"
PY_PEERS = {"pytrec_eval": "pytrec-eval-terrier", "rank_bm25": "rank_bm25", "bm25s": "bm25s"}
BENCHES = (
    "start", "lsp", "yaml", "large", "history", "index", "score", "bm25", "memory", "compare",
    "fusion", "api",
)  # fmt: skip


# -- setup ----------------------------------------------------------------------------------------


def setup_peers(node_prefix: Path) -> dict[str, str]:
    """Install what is missing; return the versions in use."""
    missing = [pkg for mod, pkg in PY_PEERS.items() if importlib.util.find_spec(mod) is None]
    if missing:
        print(f"installing {', '.join(missing)} from PyPI", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", *missing], check=True)
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise SystemExit("node and npm must be on PATH (yaml-language-server is a peer)")
    pkg_json = node_prefix / "node_modules" / "yaml-language-server" / "package.json"
    installed = json.loads(pkg_json.read_text())["version"] if pkg_json.is_file() else None
    if installed != YAML_LS_VERSION:
        print(
            f"installing yaml-language-server@{YAML_LS_VERSION} into {node_prefix}", file=sys.stderr
        )
        node_prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(node_prefix),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                f"yaml-language-server@{YAML_LS_VERSION}",
            ],
            check=True,
        )
    compile_ours()
    from importlib.metadata import version

    return {
        "yaml-language-server": YAML_LS_VERSION,
        "node": subprocess.run(
            ["node", "--version"], capture_output=True, text=True
        ).stdout.strip(),
        **{pkg: version(pkg) for pkg in PY_PEERS.values()},
        "pygls": version("pygls"),
        "qrels-lsp": version("qrels-lsp"),
    }


def compile_ours() -> None:
    """Byte-compile qrels_lsp as pip does for a regular install.

    The peers were compiled by pip when installed; an editable install of ours is compiled on
    first import, or never where PYTHONDONTWRITEBYTECODE is set, and every start would then time
    the compiler rather than the server.
    """
    spec = importlib.util.find_spec("qrels_lsp")
    assert spec is not None and spec.submodule_search_locations
    for folder in spec.submodule_search_locations:
        subprocess.run([sys.executable, "-m", "compileall", "-q", folder], check=True)


def machine() -> dict[str, Any]:
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()[:10]
    mem = (
        Path("/proc/meminfo").read_text().splitlines()[0] if Path("/proc/meminfo").exists() else ""
    )
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--", "server"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return {
        "nproc": os.cpu_count(),
        "lscpu": lscpu,
        "memory": mem,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "commit": commit + ("+uncommitted server changes" if dirty else ""),
    }


# -- rows -----------------------------------------------------------------------------------------


def row(
    workload: str,
    ours: float | None,
    peer: float | None,
    peer_name: str,
    unit: str,
    target: str,
    passed: bool | None,
    note: str = "",
) -> dict[str, Any]:
    ratio = ours / peer if ours is not None and peer else None
    return {
        "workload": workload,
        "ours": ours,
        "peer": peer,
        "peer_name": peer_name,
        "unit": unit,
        "ratio": ratio,
        "target": target,
        "pass": passed,
        "note": note,
    }


def lsp_rows(ours: dict[str, Any], yaml: dict[str, Any]) -> list[dict[str, Any]]:
    peer_ok = bool(yaml.get("schema_applied"))
    y95, y50 = yaml["diagnostics_p95_s"], yaml["diagnostics_p50_s"]
    note = f"N={ours['n_edits']} / {yaml['n_edits']} edits"
    if not peer_ok:
        note += "; PEER INVALID: yaml-language-server did not apply the schema"
    out = []
    for what, key in (("diagnostics", "diagnostics"), ("lenses", "lenses")):
        o95 = ours[f"{key}_p95_s"]
        out.append(
            row(
                f"edit -> {what} p95, 10k-question golden set",
                o95,
                y95,
                "yaml-language-server (edit -> diagnostics, schema)",
                "s",
                "p95 <= 50 ms and <= 0.05x",
                peer_ok and o95 <= 0.050 and o95 / y95 <= 0.05,
                note,
            )
        )
        out.append(
            row(
                f"edit -> {what} p50",
                ours[f"{key}_p50_s"],
                y50,
                "yaml-language-server",
                "s",
                "info",
                None,
            )
        )
    out.append(
        row(
            "outline (documentSymbol) after an edit p95",
            ours["outline_p95_s"],
            yaml["outline_p95_s"],
            "yaml-language-server",
            "s",
            "info",
            None,
            f"{ours['symbol_count']} / {yaml['symbol_count']} symbols, nested ones included",
        )
    )
    out.append(
        row(
            "open -> first diagnostics, same file",
            ours["open_median_s"],
            yaml["open_median_s"],
            "yaml-language-server",
            "s",
            "<= 1.00x",
            peer_ok and ours["open_median_s"] <= yaml["open_median_s"],
            f"median of {len(ours['open_s'])} fresh servers each",
        )
    )
    if ours.get("server_peak_rss_mb") and yaml.get("server_peak_rss_mb"):
        out.append(
            row(
                "server peak RSS after open + edits",
                ours["server_peak_rss_mb"],
                yaml["server_peak_rss_mb"],
                "yaml-language-server",
                "MB",
                "info",
                None,
            )
        )
    return out


def score_rows(r: dict[str, Any], trec_eval_given: bool) -> list[dict[str, Any]]:
    med = r["median_s"]
    agree = "means equal pytrec_eval's" if r["means_agree"] else "MEANS DIFFER from pytrec_eval"
    out = [
        row(
            "qrels-lsp score, 1k x 1k-deep TREC run (1M lines)",
            med["ours"],
            med["pytrec_eval"],
            "pytrec_eval (python -c: parse + evaluate)",
            "s",
            "< 1.00x",
            med["ours"] < med["pytrec_eval"] and r["means_agree"],
            f"whole processes, median of {r['repeats']}; {agree}",
        )
    ]
    if trec_eval_given:
        out.append(
            row(
                "qrels-lsp score, same files",
                med["ours"],
                med["trec_eval"],
                "trec_eval (C binary, -q)",
                "s",
                "<= 1.50x",
                med["ours"] <= 1.5 * med["trec_eval"],
                f"median of {r['repeats']}",
            )
        )
    else:
        out.append(
            row(
                "qrels-lsp score vs trec_eval",
                med["ours"],
                None,
                "trec_eval: not given (--trec-eval PATH)",
                "s",
                "<= 1.50x",
                None,
                "not measured",
            )
        )
    return out


def start_row(r: dict[str, Any]) -> dict[str, Any]:
    o, b = r["ours_median_s"], r["bare_median_s"]
    return row(
        "server start -> initialize result, empty workspace",
        o,
        b,
        "bare pygls 2 LanguageServer (python -c)",
        "s",
        "<= 1.20x",
        o <= 1.2 * b,
        f"median of {r['runs']} interleaved runs",
    )


def first_diagnostics_row(r: dict[str, Any]) -> dict[str, Any]:
    return row(
        "server start -> first diagnostics of the demo golden set, opened at the answer",
        r["first_diagnostics_median_s"],
        r["bare_median_s"],
        "bare pygls 2 start -> initialize result (the row above)",
        "s",
        "info",
        None,
        f"median of {r['runs']}, interleaved with the row above; the core is imported after "
        "the initialize answer",
    )


def _close_enough(ours: float, peer: float) -> bool:
    """Within 1.5x, or within 3 ms (below that, the ratio of two small numbers is noise)."""
    return ours <= max(1.5 * peer, peer + 0.003)


def index_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    builds = ", ".join(f"{s:.1f}" for s in r["build_s"])
    note = (
        f"N={len(r['during_s'])} / {len(r['after_s'])} keystrokes over {r['servers']} servers; "
        f"builds took {builds} s"
    )
    return [
        row(
            f"edit -> diagnostics p{q} during a {r['docs']:,}-doc index build",
            r[f"during_p{q}_s"],
            r[f"after_p{q}_s"],
            "the same edits once the index is built (same server)",
            "s",
            "<= 1.5x or +3 ms",
            _close_enough(r[f"during_p{q}_s"], r[f"after_p{q}_s"]),
            note,
        )
        for q in (50, 95)
    ]


def index_lens_row(r: dict[str, Any]) -> dict[str, Any]:
    """Issue 19: a keystroke during a build gets its diagnostics and its lenses in 50 ms."""
    o, peer = r["during_lens_p95_s"], r["after_lens_p95_s"]
    return row(
        f"edit -> diagnostics + lenses p95 during a {r['docs']:,}-doc index build",
        o,
        peer,
        "the same edits once the index is built (same server)",
        "s",
        "p95 <= 50 ms",
        o <= 0.050,
        f"N={len(r['during_lens_s'])} / {len(r['after_lens_s'])}",
    )


def yaml_rows(ours: dict[str, Any], yaml: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Issue 19: the 10k golden set with its run as run YAML (12 MB), in the editor."""
    out = []
    if yaml is not None:
        peer = yaml["open_median_s"]
        out.append(
            row(
                "run YAML 10k x 100: open -> first diagnostics of the golden set",
                ours["open_median_s"],
                peer,
                "yaml-language-server on the golden set alone (the lsp rows' open)",
                "s",
                "<= 1.00x",
                bool(yaml.get("schema_applied")) and ours["open_median_s"] <= peer,
                f"median of {len(ours['open_s'])} fresh servers",
            )
        )
    o = ours["lenses_p95_s"]
    out.append(
        row(
            "run YAML 10k x 100: edit -> diagnostics + lenses p95",
            o,
            yaml["diagnostics_p95_s"] if yaml is not None else None,
            "yaml-language-server edit -> diagnostics, golden set alone",
            "s",
            "p95 <= 50 ms",
            o <= 0.050,
            f"N={ours['n_edits']}; diagnostics p95 {ours['diagnostics_p95_s'] * 1000:.0f} ms",
        )
    )
    return out


def large_row(ours: dict[str, Any], small: dict[str, Any] | None) -> dict[str, Any]:
    """Issue 19: edits stay interactive at 100,000 questions."""
    o = ours["lenses_p95_s"]
    return row(
        "100,000 questions: edit -> diagnostics + lenses p95",
        o,
        small["lenses_p95_s"] if small is not None else None,
        "ours, the same edits at 10,000 questions (the lsp rows)",
        "s",
        "p95 <= 150 ms",
        o <= 0.150,
        f"N={ours['n_edits']}; {ours['lens_count']:,} lenses; diagnostics p95 "
        f"{ours['diagnostics_p95_s'] * 1000:.0f} ms; peak RSS {ours['server_peak_rss_mb']:.0f} MB",
    )


def history_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 34: the history lens (what changed since main, per question too) within the lens
    budget, against the same server and edits with ``diff_base`` off."""
    on, off = r["on"], r["off"]
    return [
        row(
            "10k questions in git: edit -> diagnostics + lenses p95 with the history lens",
            on["lenses_p95_s"],
            off["lenses_p95_s"],
            "ours, the same edits with diff_base off",
            "s",
            "p95 <= 50 ms",
            on["lenses_p95_s"] <= 0.050,
            f"N={on['n_edits']}, edits in turn with the other server; {on['lens_count']:,} "
            f"lenses (off: {off['lens_count']:,}); p50 {on['lenses_p50_s'] * 1000:.1f} ms vs "
            f"{off['lenses_p50_s'] * 1000:.1f} ms; open -> diagnostics {on['open_s']:.2f} s vs "
            f"{off['open_s']:.2f} s",
        )
    ]


def score_more_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    """Issue 19: `score` on run YAML, a ranx JSON run of 10^6 entries and a 7M-line TREC run."""
    out = []
    y = r["yaml"]
    out.append(
        row(
            "qrels-lsp score, 10k golden set, run YAML 10k x 100",
            y["median_s"]["yaml"],
            y["median_s"]["trec"],
            "qrels-lsp score, the same ranking as a TREC run",
            "s",
            "<= 2.00x",
            y["median_s"]["yaml"] <= 2 * y["median_s"]["trec"] and y["means_agree"],
            f"whole processes, median of {y['repeats']}; "
            + ("means equal" if y["means_agree"] else "MEANS DIFFER"),
        )
    )
    j = r["json"]
    out.append(
        row(
            "qrels-lsp score, ranx JSON run of 10^6 entries",
            j["median_s"]["ours"],
            j["median_s"]["pytrec_eval"],
            "pytrec_eval (python -c: json.load + evaluate)",
            "s",
            "<= 1.50x",
            j["median_s"]["ours"] <= 1.5 * j["median_s"]["pytrec_eval"] and j["means_agree"],
            f"median of {j['repeats']}; "
            + ("means equal pytrec_eval's" if j["means_agree"] else "MEANS DIFFER"),
        )
    )
    d = r.get("deep")
    if d is not None:
        peak = d["peak_rss_mb"]["ours"]
        out.append(
            row(
                "qrels-lsp score, 7M-line TREC run (255 MB, streamed)",
                d["median_s"]["ours"],
                d["median_s"]["trec_eval"],
                "trec_eval (C binary)",
                "s",
                "<= 1.50x, < 1 GB",
                d["median_s"]["ours"] <= 1.5 * d["median_s"]["trec_eval"]
                and peak < 1024
                and d["means_agree"],
                f"peak RSS {peak:.0f} MB (trec_eval {d['peak_rss_mb']['trec_eval']:.0f} MB); "
                + ("means equal trec_eval's" if d["means_agree"] else "MEANS DIFFER"),
            )
        )
    return out


def bm25_row(r: dict[str, Any]) -> list[dict[str, Any]]:
    q = r["query_s"]
    same = r["identical_top100"] and r["bit_identical_scores"]
    return [
        row(
            f"BM25 top-100, 100 questions, {r['docs']:,}-doc corpus (per question)",
            q["ours"],
            q["rank_bm25"],
            "rank_bm25 get_scores",
            "s",
            "<= 0.02x, identical scores",
            same and q["ours"] / q["rank_bm25"] <= 0.02,
            "identical top-100 and bit-identical scores" if same else "SCORES DIFFER",
        ),
        row(
            "BM25 top-100, same workload",
            q["ours"],
            q["bm25s"],
            "bm25s retrieve (speed only)",
            "s",
            "info",
            None,
        ),
    ]


def memory_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    ours = r["ours"]["peak_rss_mb"]
    return [
        row(
            f"memory: {r['ours']['docs']:,}-doc corpus loaded + indexed (peak RSS)",
            ours,
            r["rank_bm25"]["peak_rss_mb"],
            "rank_bm25 BM25Okapi on the same tokens",
            "MB",
            "< 1024 MB",
            ours < 1024,
            f"bm25s: {r['bm25s']['peak_rss_mb']:.0f} MB",
        )
    ]


def compare_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    family = f"{r['runs']} runs x {r['metrics']} metrics x {r['queries']:,} queries"
    equal = r["corrections_equal_fresh"]
    return [
        row(
            f"compare from scratch, {family} x {r['resamples']:,} resamples",
            r["fresh_median_s"],
            r["scipy_family_s"],
            "scipy permutation_test + bootstrap + ttest_rel, one comparison at a time",
            "s",
            "< 0.05x",
            r["fresh_median_s"] < 0.05 * r["scipy_family_s"],
            f"scipy timed on {r['scipy_comparisons_timed']} comparison(s), x {r['runs'] * r['metrics']}; "
            f"median of {len(r['fresh_s'])}; tracemalloc peak {r['fresh_peak_mb']:.0f} MB",
        ),
        row(
            "compare after a one-query edit (Comparer) p95",
            r["edit_p95_s"],
            r["fresh_median_s"],
            "compare from scratch, same family",
            "s",
            "<= 0.05x, equal answers",
            equal and r["edit_p95_s"] <= 0.05 * r["fresh_median_s"],
            f"N={len(r['edit_s'])} edits; p50 {r['edit_p50_s'] * 1000:.0f} ms; "
            + ("answers == fresh" if equal else "ANSWERS DIFFER from fresh"),
        ),
        row(
            "Comparer: memory kept between edits",
            r["kept_mb"],
            None,
            "signs as bits, bootstrap counts as bytes, sums, values",
            "MB",
            "info",
            None,
        ),
    ]


def fusion_rows(r: dict[str, Any]) -> list[dict[str, Any]]:
    shape = f"2 runs x {r['queries']:,} queries x {r['depth']}"
    rows = []
    for name, what in (("rrf", "RRF"), ("wsum", "weighted sum, zmuv")):
        c = r[name]
        rows.append(
            row(
                f"fuse {shape}, {what}",
                c["ours_s"],
                c["ranx_s"],
                "ranx " + ("rrf" if name == "rrf" else "fuse(norm='zmuv', method='wsum')"),
                "s",
                "< 1.00x, equal scores",
                c["equal"] and c["ours_s"] < c["ranx_s"],
                f"median of {r['repeats']}; kernels compiled first; "
                + ("every score == ranx's" if c["equal"] else "SCORES DIFFER from ranx's"),
            )
        )
    e = r["edit"]
    rows.append(
        row(
            "fuse again after a one-query edit (Fuser) p95",
            e["p95_s"],
            e["fresh_s"],
            "the same fusion from scratch",
            "s",
            "<= 0.05x, equal",
            e["equal"] and e["p95_s"] <= 0.05 * e["fresh_s"],
            f"p50 {e['p50_s'] * 1000:.0f} ms",
        )
    )
    return rows


def api_row(r: dict[str, Any]) -> dict[str, Any]:
    """The Python API's import costs no more than the command line's start."""
    return row(
        "python -c 'import qrels_lsp.api' (whole process)",
        r["api_median_s"],
        r["cli_median_s"],
        "qrels-lsp --help",
        "s",
        "<= 1.00x",
        r["api_median_s"] <= r["cli_median_s"],
        f"median of {r['runs']}, interleaved; -X importtime: qrels_lsp.api "
        f"{r['api_importtime_us'] / 1000:.0f} ms cumulative",
    )


# -- output ---------------------------------------------------------------------------------------


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "s":
        return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"
    return f"{value:.0f} {unit}"


def table(rows: list[dict[str, Any]]) -> str:
    head = ["workload", "ours", "peer", "ratio", "target", "result", "peer / notes"]
    body = []
    for r in rows:
        verdict = (
            "info"
            if r["pass"] is None and r["target"] == "info"
            else ("n/a" if r["pass"] is None else ("PASS" if r["pass"] else "FAIL"))
        )
        body.append(
            [
                r["workload"],
                _fmt(r["ours"], r["unit"]),
                _fmt(r["peer"], r["unit"]),
                f"{r['ratio']:.3g}x" if r["ratio"] is not None else "-",
                r["target"],
                verdict,
                r["peer_name"] + (f"; {r['note']}" if r["note"] else ""),
            ]
        )
    return markdown(head, body)


def markdown(head: list[str], body: list[list[str]]) -> str:
    widths = [max(len(x[i]) for x in [head, *body]) for i in range(len(head))]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for b in body:
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(b, widths, strict=True)) + " |")
    return "\n".join(lines)


# -- main -----------------------------------------------------------------------------------------


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trec-eval", type=Path, help="a trec_eval binary to compare `score` with")
    p.add_argument("--edits", type=int, default=50, help="measured edits per server (default 50)")
    p.add_argument("--opens", type=int, default=2, help="fresh servers timed for open (default 2)")
    p.add_argument("--starts", type=int, default=20, help="start -> initialize runs (default 20)")
    p.add_argument("--score-repeats", type=int, default=3)
    p.add_argument(
        "--edit-budget",
        type=float,
        default=330.0,
        help="seconds per server's edit loop before it stops early (min 20 edits)",
    )
    p.add_argument("--skip", nargs="*", choices=BENCHES, default=[])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--cache", type=Path, default=CACHE)
    a = p.parse_args()
    if a.trec_eval is not None and not os.access(a.trec_eval, os.X_OK):
        p.error(f"--trec-eval {a.trec_eval} is not an executable")

    t_start = time.perf_counter()
    results_dir = HERE / "results"
    results_dir.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    log_dir = results_dir / f"logs-{stamp}"
    log_dir.mkdir()
    node_prefix = a.cache / "node"
    report: dict[str, Any] = {"machine": machine(), "peers": setup_peers(node_prefix)}
    report["load_average_start"] = os.getloadavg()
    benches = [b for b in BENCHES if b not in a.skip]
    rows: list[dict[str, Any]] = []

    def step(name: str) -> None:
        print(f"[{time.perf_counter() - t_start:6.0f} s] {name}", file=sys.stderr, flush=True)

    step("generating inputs")
    gen: dict[str, Any] = {}
    if "lsp" in benches or "history" in benches:
        meta = generate.golden_workspace(a.data / "golden")
        gen["golden"] = {k: v for k, v in meta.items() if k != "edit_lines"}
    if "history" in benches:
        history_meta = generate.history_workspace(a.data / "golden-history", a.data / "golden")
    if "yaml" in benches or "score" in benches:
        meta = generate.yaml_run_workspace(a.data / "golden-yaml", a.data / "golden")
    if "large" in benches:
        large_meta = generate.large_workspace(a.data / "golden-100k", a.data / "golden")
        gen["large"] = {k: v for k, v in large_meta.items() if k != "edit_lines"}
    if "index" in benches:
        index_meta = generate.index_workspace(a.data / "index-100k")
    if "score" in benches:
        gen["trec"] = generate.trec_eval_pair(a.data / "trec")
        gen["json"] = generate.json_run(a.data / "json", a.data / "trec")
        if a.trec_eval is not None:
            gen["deep"] = generate.deep_trec_pair(a.data / "deep")
    if "memory" in benches:
        gen["corpus_100k"] = generate.corpus_jsonl(a.data / "corpus-100k")
    report["inputs"] = gen

    if "start" in benches:
        step("start -> initialize (ours, bare pygls)")
        report["start"] = bench_lsp.start_times(a.starts)
        rows.append(start_row(report["start"]))
        rows.append(first_diagnostics_row(report["start"]))

    def session(kind: str, folder: str, meta: dict[str, Any], opens: int) -> dict[str, Any]:
        return bench_lsp.editor_session(
            kind,
            a.data / folder,
            meta,
            node_prefix,
            opens=opens,
            edits=a.edits,
            log_dir=log_dir,
            time_budget_s=a.edit_budget,
        )

    if "lsp" in benches:
        sessions = {}
        for kind in ("ours", "yaml"):
            step(f"editor session: {kind}")
            sessions[kind] = session(kind, "golden", meta, a.opens)
        report["lsp"] = sessions
        rows[:0] = lsp_rows(sessions["ours"], sessions["yaml"])
    if "yaml" in benches:
        step("editor session: ours, the golden set with a run YAML")
        report["yaml"] = session("ours", "golden-yaml", meta, a.opens)
        yaml_peer = report.get("lsp", {}).get("yaml")
        rows += yaml_rows(report["yaml"], yaml_peer)
    if "large" in benches:
        step("editor session: ours, 100,000 questions")
        report["large"] = session("ours", "golden-100k", large_meta, 1)
        rows.append(large_row(report["large"], report.get("lsp", {}).get("ours")))
    if "history" in benches:
        step("editor sessions: ours, 10,000 questions in git, the history lens on and off")
        report["history"] = bench_lsp.history_session(
            a.data / "golden-history", history_meta, log_dir, edits=a.edits
        )
        rows += history_rows(report["history"])
    if "index" in benches:
        step("keystrokes during a BM25 index build (ours)")
        report["index"] = bench_lsp.keystrokes_during_index(
            a.data / "index-100k", index_meta, log_dir
        )
        rows += index_rows(report["index"])
        rows.append(index_lens_row(report["index"]))
    if "score" in benches:
        step("score (ours, pytrec_eval, trec_eval)")
        trec = a.data / "trec"
        report["score"] = bench_score.run(
            trec / "qrels.txt", trec / "run.trec", a.trec_eval, a.score_repeats
        )
        rows += score_rows(report["score"], a.trec_eval is not None)
        step("score: run YAML, a JSON run of 10^6 entries, a 7M-line TREC run")
        more = {
            "yaml": bench_score.yaml_run(a.data / "golden-yaml", a.score_repeats),
            "json": bench_score.json_run(a.data / "json", a.score_repeats),
        }
        if a.trec_eval is not None:
            more["deep"] = bench_score.deep_run(a.data / "deep", a.trec_eval)
        report["score_more"] = more
        rows += score_more_rows(more)
    if "bm25" in benches:
        step("BM25 top-100 (ours, rank_bm25, bm25s)")
        report["bm25"] = bench_index.bm25_speed()
        rows += bm25_row(report["bm25"])
    if "memory" in benches:
        step("index memory (ours, rank_bm25, bm25s)")
        report["memory"] = bench_index.index_memory(a.data / "corpus-100k" / "corpus.jsonl")
        rows += memory_rows(report["memory"])

    if "compare" in benches:
        step("compare: a family of comparisons, fresh and after edits (ours, scipy)")
        report["compare"] = bench_compare.run(edits=a.edits)
        rows += compare_rows(report["compare"])

    if "fusion" in benches:
        step("fusion: RRF and a weighted sum (ours, ranx), and after an edit")
        report["fusion"] = bench_fusion.run()
        rows += fusion_rows(report["fusion"])

    if "api" in benches:
        step("the Python API's import (ours, the command line's start)")
        report["api"] = bench_api.run(a.starts)
        rows.append(api_row(report["api"]))

    report["rows"] = rows
    report["load_average_end"] = os.getloadavg()
    report["seconds"] = time.perf_counter() - t_start
    text = table(rows)
    report["table"] = text
    out = results_dir / f"bench-{stamp}.json"
    out.write_text(json.dumps(report, indent=2))
    print(text)
    print(
        f"\n{report['machine']['nproc']} CPUs, Python {report['machine']['python']}, "
        f"load average {report['load_average_start'][0]:.1f} -> {report['load_average_end'][0]:.1f}; "
        f"{report['seconds'] / 60:.1f} min. Written to {out.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
