"""VS Code (code-server 4.139, the real workbench) in headless Chromium, with the freshly built
.vsix from editors/vscode and the real server: lens titles with the numbers of
`qrels-lsp score --format json`, the planted findings in the Problems panel, TREC highlighting."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, Hostile, need, run, scratch_env
from .expect import (
    compare_json,
    golden_lenses,
    key_lines,
    planted,
    pool_json,
    score_json,
    summary,
)

HERE = Path(__file__).resolve().parent
VSCODE = ROOT / "editors" / "vscode"

WORKBENCH = {
    "security.workspace.trust.enabled": False,
    "workbench.startupEditor": "none",
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "workbench.tips.enabled": False,
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "telemetry.telemetryLevel": "off",
    "extensions.autoUpdate": False,
    "extensions.autoCheckUpdates": False,
    "extensions.ignoreRecommendations": True,
    "update.mode": "none",
    "chat.disableAIFeatures": True,
    "editor.minimap.enabled": False,
    "window.commandCenter": False,
    "workbench.layoutControl.enabled": False,
    "breadcrumbs.enabled": False,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def tools() -> dict[str, str]:
    node_path = need("playwright-core (QRELS_CI_NODE_PATH)", os.environ.get("QRELS_CI_NODE_PATH"))
    need("playwright-core", str(Path(node_path) / "playwright-core"))
    return {
        "code_server": need(
            "code-server (QRELS_CI_CODE_SERVER)", os.environ.get("QRELS_CI_CODE_SERVER")
        ),
        "vsix": need("the .vsix (QRELS_CI_VSIX)", os.environ.get("QRELS_CI_VSIX")),
        "node_path": node_path,
        "chromium": need("chromium", "/usr/bin/chromium"),
    }


# Workspace trust on, as in a default VS Code, without the startup dialog: the folder opens in
# Restricted Mode and stays there unless the test trusts it.
UNTRUSTED = {
    "security.workspace.trust.enabled": True,
    "security.workspace.trust.startupPrompt": "never",
    "security.workspace.trust.banner": "always",
}


def launch(
    tools: dict[str, str],
    base: Path,
    ws: Path,
    settings: dict[str, Any],
    expect: dict[str, Any],
    shots: dict[str, Path],
    *,
    untrusted: bool = False,
    path_prefix: str | None = None,
) -> tuple[int, str, dict[str, Any], str]:
    """A fresh code-server profile, the .vsix installed, the workbench driven by drive.js.

    ``settings`` are the user's (User/settings.json); ``untrusted`` leaves workspace trust on and
    the folder untrusted; ``path_prefix`` goes first on the PATH that code-server (and so the
    extension) sees. The report's ``output`` is the extension's output channel."""
    # Chromium and code-server put unix sockets under TMPDIR/--user-data-dir: keep the paths short
    base = Path(tempfile.mkdtemp(prefix="qcs-", dir="/tmp"))
    try:
        return _launch(tools, base, ws, settings, expect, shots, untrusted, path_prefix)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _launch(
    tools: dict[str, str],
    base: Path,
    ws: Path,
    settings: dict[str, Any],
    expect: dict[str, Any],
    shots: dict[str, Path],
    untrusted: bool,
    path_prefix: str | None,
) -> tuple[int, str, dict[str, Any], str]:
    env = scratch_env(base)
    if path_prefix:
        env["PATH"] = f"{path_prefix}{os.pathsep}{env.get('PATH', '')}"
        # The extension host takes PATH from a login shell (whose profile would reset it) unless
        # VS Code was launched from the CLI, as by `code .` in a terminal: say it was.
        env["VSCODE_CLI"] = "1"
    data, ext = base / "data", base / "ext"
    (data / "User").mkdir(parents=True)
    user = WORKBENCH | (UNTRUSTED if untrusted else {}) | settings
    (data / "User" / "settings.json").write_text(json.dumps(user, indent=1))
    port = free_port()
    config = base / "config.yaml"
    config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
    cs = [
        tools["code_server"],
        "--config",
        str(config),
        "--user-data-dir",
        str(data),
        "--extensions-dir",
        str(ext),
    ]
    installed = run([*cs, "--install-extension", tools["vsix"]], timeout=180, env=env)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert any(p.name.startswith("qrels-lsp.qrels-lsp-") for p in ext.iterdir())
    log = (base / "code-server.log").open("w")
    trust = [] if untrusted else ["--disable-workspace-trust"]
    server = subprocess.Popen(
        [*cs, "--bind-addr", f"127.0.0.1:{port}", "--auth", "none", "--disable-telemetry",
         "--disable-update-check", *trust, "--disable-getting-started-override",
         "--reconnection-grace-time", "5", str(ws)],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).close()
                break
            except OSError:
                time.sleep(0.25)
        drive_env = env | {
            "NODE_PATH": tools["node_path"],
            "CS_URL": f"http://127.0.0.1:{port}/?folder={ws}",
            "EXPECT": json.dumps(expect),
            **{k: str(v) for k, v in shots.items()},
        }
        proc = run(["node", str(HERE / "vscode" / "drive.js")], timeout=400, env=drive_env)
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # code-server, its extension hosts and our server
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        log.close()
    out = proc.stdout + proc.stderr
    report = {}
    for line in proc.stdout.splitlines():
        if line.startswith("REPORT="):
            report = json.loads(line.removeprefix("REPORT="))
    server_log = (base / "code-server.log").read_text(errors="replace")
    channels = [p.read_text(errors="replace") for p in data.rglob("*qrels*.log")]
    report["output"] = "\n".join(channels)
    ext_logs = "\n".join(c[-3000:] for c in channels)
    return proc.returncode, out, report, server_log[-3000:] + ext_logs


def test_golden_set_lenses_problems_and_trec_highlighting(
    tools: dict[str, str], server_bin: str, workspace: Path, artefacts: Path, tmp_path: Path
) -> None:
    golden = workspace / "support.qrels.yaml"
    text = golden.read_text(encoding="utf-8")
    scores = score_json(server_bin, golden)
    expected = golden_lenses(
        text, scores, compare_json(server_bin, golden), pool_json(server_bin, golden)
    )
    lines = key_lines(text)
    # the header lens (line 1) and the first question's lens, both on the first screen
    first = min(lines, key=lines.__getitem__)
    lens_titles = expected[0] + expected[lines[first]]
    assert [t.split(" · ")[0] for t in expected[0] if " vs " in t] == [
        "dense vs bm25",
        "passages vs bm25",  # a run of chunks, scored by document
        "hybrid vs bm25",
        "rrf vs bm25",  # the golden set's fused run
    ]
    problems = []
    for line, code in sorted(planted(text).items()):
        problems.append(code)
        problems.append(f"[Ln {line + 1}, Col")
    qr106_line = next(line for line, code in planted(text).items() if code == "QR106")
    [hybrid] = [r for r in scores["runs"] if r["name"] == "hybrid"]
    shot = artefacts / "vscode.png"
    expect = {
        "golden": golden.name,
        "lenses": lens_titles,
        "problems": problems,
        "gotoLine": qr106_line - 2,  # 1-based: a few lines above QR106, centred
        "trec": "hybrid.trec",
        "trecFolder": "runs",
        "trecLanguage": "TREC run",
        "trecLens": f"hybrid vs {golden.name} · {summary(hybrid)}",
    }
    rc, out, report, logs = launch(
        tools,
        tmp_path / "cs",
        workspace,
        # the baseline run is off (score's JSON has none): also shows that qrels.* settings arrive
        {"qrels.server.command": [server_bin, "serve"], "qrels.bm25_baseline": False},
        expect,
        {"SHOT": shot, "SHOT_TREC": artefacts / "vscode-trec.png"},
    )
    assert rc == 0, f"{out}\n--- code-server / extension logs:\n{logs}"
    # golden sets stay YAML (highlighting kept), lenses carry score's numbers
    assert report["language"].strip() == "YAML"
    seen = "\n".join(report["lenses"])
    for title in lens_titles:
        assert title in seen
    assert "baseline" not in seen
    assert report["squiggles"] >= 1
    rows = "\n".join(report["problems"])
    for line, code in planted(text).items():
        assert code in rows and f"[Ln {line + 1}, Col" in rows, (code, rows)
    # TREC run: the six fields of a line are tokens in at least four distinct colours
    tokens = report["trecTokens"]
    first_line = (workspace / "runs" / "hybrid.trec").read_text().splitlines()[0].split()
    assert [t[0].strip() for t in tokens] == first_line, tokens
    assert len({t[2] for t in tokens}) >= 4, tokens
    assert shot.stat().st_size < 300_000, shot.stat().st_size
    docs = ROOT / "docs" / "screenshots"
    docs.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, docs / "vscode.png")


def test_missing_server_says_how_to_install(
    tools: dict[str, str], workspace: Path, artefacts: Path, tmp_path: Path
) -> None:
    """With no server where the settings point, the user is told the install command."""
    expect = {
        "golden": "support.qrels.yaml",
        "missing": True,
        "notification": "pipx install /path/to/qrels-lsp",
    }
    rc, out, report, logs = launch(
        tools,
        tmp_path / "cs",
        workspace,
        {"qrels.server.command": [str(tmp_path / "nowhere" / "qrels-lsp"), "serve"]},
        expect,
        {"SHOT": artefacts / "vscode-missing-server.png", "SHOT_TREC": tmp_path / "unused.png"},
    )
    assert rc == 0, f"{out}\n--- logs:\n{logs}"
    assert "pipx install /path/to/qrels-lsp" in report["notification"]
    assert "was not found" in report["notification"]


# -- a workspace's own code is never run unasked ----------------------------------------------------


def test_untrusted_workspace_runs_none_of_its_code(
    tools: dict[str, str], server_bin: str, hostile: Hostile, artefacts: Path, tmp_path: Path
) -> None:
    """A folder left untrusted, with a planted .venv, venv and qrels_lsp/ (each writes a marker
    when run) and the real server only on PATH: the workbench shows Restricted Mode, the lenses
    come from the real server, and nothing of the folder's ran. Trusting the folder then restarts
    the server with the trusted lookup, which picks the folder's .venv: its marker appears."""
    golden = hostile.ws / "support.qrels.yaml"
    text = golden.read_text(encoding="utf-8")
    lines = key_lines(text)
    expected = golden_lenses(
        text,
        score_json(server_bin, golden),
        compare_json(server_bin, golden),
        pool_json(server_bin, golden),
    )
    first = min(lines, key=lines.__getitem__)
    expect = {
        "golden": golden.name,
        "untrusted": True,
        "lenses": expected[0] + expected[lines[first]],
        "markers": [str(hostile.venv_marker), str(hostile.shadow_marker)],
        "grantTrust": str(hostile.venv_marker),
    }
    rc, out, report, logs = launch(
        tools,
        tmp_path / "cs",
        hostile.ws,
        {"qrels.bm25_baseline": False},  # no qrels.server.*: the server comes from PATH
        expect,
        {"SHOT": artefacts / "vscode-untrusted.png", "SHOT_TREC": tmp_path / "unused.png"},
        untrusted=True,
        path_prefix=str(Path(server_bin).parent),
    )
    # what the test is about first: nothing of the workspace ran while it was untrusted
    assert report.get("ranBeforeTrust") == [], f"{report}\n{out}\n{logs}"
    assert rc == 0, f"{out}\n--- code-server / extension logs:\n{logs}"
    assert "Restricted Mode" in report["restricted"]["status"]
    assert "Restricted Mode" in report["restricted"]["banner"]
    # the server on PATH (the real one), not anything of the workspace
    assert f"starting {Path(server_bin).parent / 'qrels-lsp'} serve (from PATH," in report["output"]
    seen = "\n".join(report["lenses"])
    for title in expect["lenses"]:
        assert title in seen
    # trusted, the workspace's settings apply (the extension restarted on the grant): they start
    # its .venv server
    assert report["ranAfterTrust"] is True, report["output"]
    assert "(from workspace setting qrels.server.command," in report["output"]
    # (it exits at once, so the client tries again a few times: one line per start)
    assert set(hostile.venv_marker.read_text().splitlines()) == {".venv serve --stdio"}
    assert not hostile.shadow_marker.exists()


def test_python_path_is_not_shadowed_by_the_workspace(
    tools: dict[str, str],
    server_bin: str,
    server_python: str,
    hostile: Hostile,
    artefacts: Path,
    tmp_path: Path,
) -> None:
    """User setting qrels.server.pythonPath: `python -m qrels_lsp.cli serve` would import the
    workspace's planted `qrels_lsp/` if started in the workspace folder. In a trusted workspace
    the user's setting still wins over the workspace's qrels.server.command and .venv, and of
    qrels.allow_outside the server gets the user's value, never the workspace's `true` (the LSP
    trace shows what is sent)."""
    golden = hostile.ws / "support.qrels.yaml"
    text = golden.read_text(encoding="utf-8")
    lines = key_lines(text)
    expected = golden_lenses(
        text,
        score_json(server_bin, golden),
        compare_json(server_bin, golden),
        pool_json(server_bin, golden),
    )
    first = min(lines, key=lines.__getitem__)
    shared = tmp_path / "shared-corpus"
    expect = {
        "golden": golden.name,
        "lenses": expected[0] + expected[lines[first]],
        "lensesOnly": True,
    }
    rc, out, report, logs = launch(
        tools,
        tmp_path / "cs",
        hostile.ws,
        {
            "qrels.server.pythonPath": server_python,
            "qrels.bm25_baseline": False,
            "qrels.trace.server": "verbose",
            "qrels.allow_outside": [str(shared)],
        },
        expect,
        {"SHOT": artefacts / "vscode-python-path.png", "SHOT_TREC": tmp_path / "unused.png"},
    )
    assert hostile.ran() == {}, f"{report}\n{out}\n{logs}"
    assert rc == 0, f"{out}\n--- code-server / extension logs:\n{logs}"
    started = next(line for line in report["output"].splitlines() if "starting " in line)
    version = run(
        [server_python, "-c", "import sys; print(sys.version_info >= (3, 11))"], timeout=30
    )
    safe = "-P " if version.stdout.strip() == "True" else ""  # -P exists from Python 3.11
    how = "(from user setting qrels.server.pythonPath, in "
    assert f"starting {server_python} {safe}-m qrels_lsp.cli serve {how}" in started, started
    assert str(hostile.ws) not in started.split(", in ")[1]  # its working directory
    # the settings sent (initialize, workspace/configuration): the user's allow_outside only
    sent = report["output"]
    assert '"bm25_baseline": false' in sent, sent[-3000:]
    assert '"allow_outside": [\n' in sent and json.dumps(str(shared)) in sent, sent[-3000:]
    assert '"allow_outside": true' not in sent
    seen = "\n".join(report["lenses"])
    for title in expect["lenses"]:
        assert title in seen
