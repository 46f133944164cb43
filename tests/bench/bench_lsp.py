"""Language-server benchmarks: our server against yaml-language-server and a bare pygls server.

Every server is a real process driven over stdio by :mod:`lsp_client`, exactly as an editor
drives it:

- **edit**: initialize, configure, didOpen the 10,000-question golden set, then N one-character
  incremental didChange edits inside questions (spread over the second half of the file), each
  followed by waiting for the publishDiagnostics of that version, (ours) a codeLens request, and
  the documentSymbol request an editor's outline makes (both servers).
  Edits are sequential with a short pause, so each is measured alone. yaml-language-server
  validates the same file against ``grammars/golden-set.schema.json`` (``yaml.schemas``, given
  through workspace/configuration and didChangeConfiguration); a planted schema error proves the
  schema is applied.
- **open**: didOpen -> first publishDiagnostics, in a fresh server each time (median of R).
- **start**: process spawn -> initialize result in an empty workspace, ours against a minimal
  pygls 2 ``LanguageServer`` started with ``python -c`` (interleaved, median of R); and, in the
  same loop, spawn -> the first diagnostics of the embedded example's golden set, opened as soon
  as ``initialize`` is answered (an editor started on that file): ours imports the core after
  the answer, so this is where that import shows.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from lsp_client import Client, diagnostics_for  # noqa: E402

SCHEMA = ROOT / "grammars" / "golden-set.schema.json"
EXAMPLES = ROOT / "server" / "qrels_lsp" / "examples"
DEMO_GOLDEN = "support.qrels.yaml"
BARE_PYGLS = (
    "from pygls.lsp.server import LanguageServer\nLanguageServer('bare-pygls', '0').start_io()\n"
)
PAUSE_S = 0.3  # between edits: each edit is measured on a quiet server


def ours_command() -> list[str]:
    script = Path(sys.executable).with_name("qrels-lsp")
    if script.is_file():
        return [str(script), "serve"]
    return [sys.executable, "-m", "qrels_lsp.cli", "serve"]


def yaml_ls_command(node_prefix: Path) -> list[str]:
    main = node_prefix / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
    return ["node", str(main), "--stdio"]


def yaml_settings(golden: Path) -> dict[str, Any]:
    return {
        "validate": True,
        "schemas": {SCHEMA.as_uri(): [golden.name, "*.qrels.yaml"]},
        "schemaStore": {"enable": False},
        "format": {"enable": False},
    }


def _settings_fn(kind: str, golden: Path, ours: dict[str, Any] | None = None) -> Any:
    yaml = yaml_settings(golden)

    def settings(section: str | None) -> Any:
        if kind == "ours":
            return dict(ours or {}) if section in ("qrels", None) else None
        return {
            "yaml": yaml,
            "http": {"proxy": "", "proxyStrictSSL": False},
            "[yaml]": {},
            "editor": {"tabSize": 2, "detectIndentation": True},
            "files": {"associations": {}},
        }.get(section or "")

    return settings


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    s = sorted(values)
    if not s:
        return float("nan")
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def _vm_hwm_mb(pid: int) -> float | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    m = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(m.group(1)) / 1024 if m else None


def _children_hwm_mb(pid: int) -> float | None:
    """Peak RSS of the server process (node or python; the launcher script execs it)."""
    return _vm_hwm_mb(pid)


def _start(
    kind: str,
    ws: Path,
    golden: Path,
    node_prefix: Path,
    log: Any,
    settings: dict[str, Any] | None = None,
) -> Client:
    cmd = ours_command() if kind == "ours" else yaml_ls_command(node_prefix)
    client = Client(cmd, cwd=ws, settings=_settings_fn(kind, golden, settings), log=log)
    client.initialize(ws)
    if kind == "yaml":
        client.notify(
            "workspace/didChangeConfiguration", {"settings": {"yaml": yaml_settings(golden)}}
        )
    # Both servers pull their settings after `initialized`; open only once they have them.
    if not client.wait_server_request("workspace/configuration", 15):
        raise RuntimeError(f"{kind}: the server never asked for its configuration")
    time.sleep(0.5)
    return client


def _open(client: Client, golden: Path, text: str) -> tuple[float, list[dict[str, Any]]]:
    uri = golden.as_uri()
    mark = client.mark()
    t0 = client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
    )
    t, msg, _ = client.wait_notification(diagnostics_for(uri, 1), mark, timeout=600)
    return t - t0, msg["params"]["diagnostics"]


def editor_session(
    kind: str,
    ws: Path,
    meta: dict[str, Any],
    node_prefix: Path,
    *,
    opens: int = 3,
    edits: int = 50,
    warmup: int = 3,
    log_dir: Path,
    time_budget_s: float = 300.0,
) -> dict[str, Any]:
    """Open timings over ``opens`` fresh servers; edits in the last one."""
    golden = ws / "golden.qrels.yaml"
    text = golden.read_text(encoding="utf-8")
    uri = golden.as_uri()
    out: dict[str, Any] = {"server": kind, "open_s": [], "edits": []}
    with (log_dir / f"{kind}-server.log").open("wb") as log:
        for n in range(opens):
            client = _start(kind, ws, golden, node_prefix, log)
            try:
                open_s, diags = _open(client, golden, text)
                out["open_s"].append(open_s)
                out["open_diagnostics"] = len(diags)
                out["open_messages"] = sorted({d["message"][:90] for d in diags})[:12]
                if n < opens - 1:
                    continue
                out.update(_edit_loop(kind, client, uri, meta, edits, warmup, time_budget_s))
                out["server_peak_rss_mb"] = _children_hwm_mb(client.proc.pid)
            finally:
                client.close()
    out["open_median_s"] = statistics.median(out["open_s"])
    if kind == "yaml":
        # The planted `"3"` grade is a schema error only a schema-aware validator reports.
        out["schema_applied"] = any("integer" in m.lower() for m in out["open_messages"])
    return out


def _edit_loop(
    kind: str,
    client: Client,
    uri: str,
    meta: dict[str, Any],
    edits: int,
    warmup: int,
    budget_s: float,
) -> dict[str, Any]:
    lines: list[int] = meta["edit_lines"]
    col = int(meta["question_col"]) + 3
    version = 1
    samples: list[dict[str, Any]] = []
    started = time.perf_counter()
    lens_count = symbol_count = None
    for i in range(warmup + edits):
        line = lines[(i * 131) % len(lines)]
        version += 1
        t0, t_diag = _keystroke(client, uri, version, line, col)
        sample = {"line": line, "diagnostics_s": t_diag - t0}
        if kind == "ours":
            rid, _ = client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
            t_lens, resp = client.response(rid, timeout=300)
            sample["lenses_s"] = t_lens - t0
            lens_count = len(resp.get("result") or [])
        # The outline (and breadcrumbs) an editor asks for after a change: both servers answer it.
        rid, t_ask = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        t_outline, resp = client.response(rid, timeout=300)
        sample["outline_s"] = t_outline - t_ask
        symbol_count = _count_symbols(resp.get("result") or [])
        if i >= warmup:
            samples.append(sample)
        if time.perf_counter() - started > budget_s and len(samples) >= 10:
            break
        time.sleep(PAUSE_S)
    diag = [s["diagnostics_s"] for s in samples]
    outline = [s["outline_s"] for s in samples]
    out: dict[str, Any] = {
        "edits": samples,
        "n_edits": len(samples),
        "diagnostics_p50_s": percentile(diag, 0.5),
        "diagnostics_p95_s": percentile(diag, 0.95),
        "outline_p50_s": percentile(outline, 0.5),
        "outline_p95_s": percentile(outline, 0.95),
        "symbol_count": symbol_count,
    }
    if kind == "ours":
        lens = [s["lenses_s"] for s in samples]
        out |= {
            "lenses_p50_s": percentile(lens, 0.5),
            "lenses_p95_s": percentile(lens, 0.95),
            "lens_count": lens_count,
        }
    return out


def history_session(
    ws: Path, meta: dict[str, Any], log_dir: Path, *, edits: int = 50, warmup: int = 5
) -> dict[str, Any]:
    """The history lens's cost: two of our servers on the same git workspace, one with
    ``diff_base`` off, typing the same characters into the same questions, one edit each in
    turn (which goes first alternates), so both see the same machine load; each sample is
    edit -> diagnostics -> codeLens answered."""
    golden = ws / "golden.qrels.yaml"
    text = golden.read_text(encoding="utf-8")
    uri = golden.as_uri()
    lines: list[int] = meta["edit_lines"]
    col = int(meta["question_col"]) + 3
    labels = ("off", "on")
    out: dict[str, Any] = {label: {"lenses_s": [], "diagnostics_s": []} for label in labels}
    with (log_dir / "ours-history-server.log").open("wb") as log:
        settings = {"off": {"diff_base": "off"}, "on": {"diff_base": "auto"}}
        clients = {k: _start("ours", ws, golden, Path(), log, settings[k]) for k in labels}
        try:
            for label, client in clients.items():
                out[label]["open_s"], _ = _open(client, golden, text)
            for i in range(warmup + edits):
                line = lines[(i * 131) % len(lines)]
                order = labels if i % 2 else labels[::-1]
                for label in order:
                    client = clients[label]
                    t0, t_diag = _keystroke(client, uri, i + 2, line, col)
                    t_lens = _lenses_answered(client, uri)
                    if i >= warmup:
                        out[label]["diagnostics_s"].append(t_diag - t0)
                        out[label]["lenses_s"].append(t_lens - t0)
                    time.sleep(PAUSE_S)
            for label, client in clients.items():  # (each question's lens, and the first line's)
                rid, _ = client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
                out[label]["lens_count"] = len(client.response(rid, timeout=600)[1]["result"])
        finally:
            for client in clients.values():
                client.close()
    for label in labels:
        got = out[label]
        got["n_edits"] = len(got["lenses_s"])
        for q, name in ((0.5, "p50"), (0.95, "p95")):
            got[f"lenses_{name}_s"] = percentile(got["lenses_s"], q)
            got[f"diagnostics_{name}_s"] = percentile(got["diagnostics_s"], q)
    return out


def _count_symbols(symbols: list[dict[str, Any]]) -> int:
    """Symbols in an outline, nested ones included (the servers nest differently)."""
    return sum(1 + _count_symbols(s.get("children") or []) for s in symbols)


INDEX_TITLE = "Indexing corpus (BM25)"


def _progress(title: str) -> Callable[[dict[str, Any]], bool]:
    """A predicate: the begin of work-done progress titled ``title``."""

    def pred(msg: dict[str, Any]) -> bool:
        value = (msg.get("params") or {}).get("value") or {}
        return msg.get("method") == "$/progress" and value.get("title") == title

    return pred


def _ended(token: str) -> Callable[[dict[str, Any]], bool]:
    def pred(msg: dict[str, Any]) -> bool:
        params = msg.get("params") or {}
        return (
            msg.get("method") == "$/progress"
            and params.get("token") == token
            and (params.get("value") or {}).get("kind") == "end"
        )

    return pred


def _keystroke(client: Client, uri: str, version: int, line: int, col: int) -> tuple[float, float]:
    """One character typed into a question: when it was sent, and when that version's
    diagnostics arrived."""
    mark = client.mark()
    t0 = client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [
                {
                    "range": {
                        "start": {"line": line, "character": col},
                        "end": {"line": line, "character": col},
                    },
                    "text": "e",
                }
            ],
        },
    )
    t, _msg, _ = client.wait_notification(diagnostics_for(uri, version), mark, timeout=300)
    return t0, t


def _lenses_answered(client: Client, uri: str) -> float:
    """When the codeLens request an editor makes after a change was answered."""
    rid, _ = client.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
    t, _resp = client.response(rid, timeout=300)
    return t


def keystrokes_during_index(
    ws: Path, meta: dict[str, Any], log_dir: Path, *, servers: int = 3, per_server: int = 20
) -> dict[str, Any]:
    """edit -> diagnostics while the corpus's BM25 index is being built, and the same edits once
    it is built, in the same server: the build must never delay a keystroke.

    Each server starts with an empty index cache (so it really builds), opens the golden set,
    and types into questions from the moment the build's progress begins until it ends; then
    types as many more once the index is ready. The BM25 baseline is off (``bm25_baseline =
    false``; the index is built all the same, for completion), so a keystroke does the same work
    with and without the index: the build is the only difference. Only keystrokes answered
    before the build ended count as "during".
    """
    golden = ws / "golden.qrels.yaml"
    text = golden.read_text(encoding="utf-8")
    uri = golden.as_uri()
    lines: list[int] = meta["edit_lines"]
    col = int(meta["question_col"]) + 3
    during: list[float] = []
    after: list[float] = []
    during_lens: list[float] = []  # keystroke -> its diagnostics, then the lenses answered
    after_lens: list[float] = []
    builds: list[float] = []
    with (log_dir / "index-server.log").open("wb") as log:
        for n in range(servers):
            with tempfile.TemporaryDirectory(prefix="qrels-bench-cache-") as cache:
                client = Client(
                    ours_command(),
                    cwd=ws,
                    env={"XDG_CACHE_HOME": cache},
                    settings=lambda section: {"bm25_baseline": False},
                    log=log,
                )
                try:
                    client.initialize(ws)
                    if not client.wait_server_request("workspace/configuration", 15):
                        raise RuntimeError("the server never asked for its configuration")
                    mark = client.mark()
                    _open(client, golden, text)
                    t_begin, begin, _ = client.wait_notification(
                        _progress(INDEX_TITLE), mark, timeout=120
                    )
                    ended = _ended(begin["params"]["token"])
                    version, i = 1, n * 1000
                    while True:
                        version += 1
                        i += 1
                        sent, answered = _keystroke(
                            client, uri, version, lines[(i * 131) % len(lines)], col
                        )
                        lensed = _lenses_answered(client, uri)
                        if any(ended(m) for _, m in client.notifications[mark:]):
                            break  # answered after the build ended (or as it ended): not counted
                        during.append(answered - sent)
                        during_lens.append(lensed - sent)
                        time.sleep(PAUSE_S)
                    t_end, _, _ = client.wait_notification(ended, mark, timeout=600)
                    builds.append(t_end - t_begin)
                    time.sleep(2.0)  # the open file is analysed again with the index
                    for _ in range(per_server):
                        version += 1
                        i += 1
                        line = lines[(i * 131) % len(lines)]
                        sent, answered = _keystroke(client, uri, version, line, col)
                        after_lens.append(_lenses_answered(client, uri) - sent)
                        after.append(answered - sent)
                        time.sleep(PAUSE_S)
                finally:
                    client.close()
    return {
        "docs": meta["docs"],
        "servers": servers,
        "build_s": builds,
        "during_s": during,
        "after_s": after,
        "during_p50_s": percentile(during, 0.5),
        "during_p95_s": percentile(during, 0.95),
        "after_p50_s": percentile(after, 0.5),
        "after_p95_s": percentile(after, 0.95),
        "during_lens_s": during_lens,
        "after_lens_s": after_lens,
        "during_lens_p95_s": percentile(during_lens, 0.95),
        "after_lens_p95_s": percentile(after_lens, 0.95),
    }


def compile_bytecode() -> list[str]:
    """Byte-compile ours, pygls and lsprotocol before their start is timed, as installing a
    wheel does: an editable install under ``PYTHONDONTWRITEBYTECODE=1`` (this machine's setting)
    never caches our modules, and each start compiled them again (about 80 ms here), while pip
    had compiled the peer's at install. Returns the packages' folders."""
    import compileall
    import importlib.util

    folders = []
    for name in ("qrels_lsp", "pygls", "lsprotocol"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            folder = next(iter(spec.submodule_search_locations))
            compileall.compile_dir(folder, quiet=1)
            folders.append(folder)
    return folders


def start_times(runs: int = 20) -> dict[str, Any]:
    """spawn -> initialize result, ours and a bare pygls server, and spawn -> ours's first
    diagnostics of the demo golden set opened at the answer, interleaved, each with its bytecode
    compiled (:func:`compile_bytecode`)."""
    compiled = compile_bytecode()
    times: dict[str, list[float]] = {"ours": [], "bare": [], "first_diagnostics": []}
    with tempfile.TemporaryDirectory(prefix="qrels-bench-empty-") as tmp:
        root, demo = Path(tmp) / "empty", Path(tmp) / "demo"
        root.mkdir()
        shutil.copytree(EXAMPLES, demo)
        for _ in range(runs):
            for kind in ("ours", "bare"):
                cmd = ours_command() if kind == "ours" else [sys.executable, "-c", BARE_PYGLS]
                client = Client(cmd, cwd=root)
                try:
                    seconds, result = client.initialize(root)
                    assert result and "capabilities" in result, result
                    times[kind].append(seconds)
                finally:
                    client.close()
            times["first_diagnostics"].append(_first_diagnostics(demo))
    return {
        "runs": runs,
        "compiled": compiled,
        "ours_s": times["ours"],
        "bare_s": times["bare"],
        "first_diagnostics_s": times["first_diagnostics"],
        "ours_median_s": statistics.median(times["ours"]),
        "bare_median_s": statistics.median(times["bare"]),
        "first_diagnostics_median_s": statistics.median(times["first_diagnostics"]),
    }


def _first_diagnostics(ws: Path) -> float:
    """spawn -> the diagnostics of the demo golden set, opened the moment initialize is
    answered."""
    golden = ws / DEMO_GOLDEN
    uri, text = golden.as_uri(), golden.read_text(encoding="utf-8")
    client = Client(ours_command(), cwd=ws)
    try:
        client.initialize(ws)
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
        )
        t, msg, _ = client.wait_notification(diagnostics_for(uri, 1), timeout=60)
        assert msg["params"]["diagnostics"], "the demo golden set has findings"
        return t - client.started
    finally:
        client.close()


if __name__ == "__main__":
    import argparse

    from generate import golden_workspace

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path.home() / ".cache/qrels-lsp-bench/data")
    p.add_argument("--node", type=Path, default=Path.home() / ".cache/qrels-lsp-bench/node")
    p.add_argument("--edits", type=int, default=50)
    p.add_argument("--opens", type=int, default=3)
    p.add_argument("--only", choices=["ours", "yaml", "start", "index", "history"])
    a = p.parse_args()
    logs = HERE / "results"
    logs.mkdir(exist_ok=True)
    result: dict[str, Any] = {}
    if a.only in (None, "index"):
        from generate import index_workspace

        index_ws = a.data / "index-100k"
        result["index"] = keystrokes_during_index(index_ws, index_workspace(index_ws), logs)
        for key in ("during_s", "after_s"):
            result["index"].pop(key)
    ws = a.data / "golden"
    meta = golden_workspace(ws)
    if a.only in (None, "history"):
        from generate import history_workspace

        history_ws = a.data / "golden-history"
        history_meta = history_workspace(history_ws, ws)
        made = history_session(history_ws, history_meta, logs, edits=a.edits)
        for label in ("off", "on"):
            made[label].pop("lenses_s")
            made[label].pop("diagnostics_s")
        result["history"] = made
    if a.only in (None, "start"):
        result["start"] = start_times()
    for kind in ("ours", "yaml"):
        if a.only in (None, kind):
            r = editor_session(kind, ws, meta, a.node, opens=a.opens, edits=a.edits, log_dir=logs)
            r.pop("edits")
            result[kind] = r
    print(json.dumps(result, indent=2))
