"""VS Code (code-server 4.139, the real workbench) in headless Chromium, with the freshly built
.vsix from editors/vscode and the real server: lens titles with the numbers of
`qrels-lsp score --format json`, the planted findings in the Problems panel, TREC highlighting."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
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
    profile: Path | None = None,
    path: str | None = None,
    env: dict[str, str] | None = None,
) -> tuple[int, str, dict[str, Any], str]:
    """A fresh code-server profile, the .vsix installed, the workbench driven by drive.js.

    ``settings`` are the user's (User/settings.json); ``untrusted`` leaves workspace trust on and
    the folder untrusted; ``path_prefix`` goes first on the PATH that code-server (and so the
    extension) sees, ``path`` replaces it; ``env`` is added to code-server's environment.
    ``profile`` keeps the profile (and the extension's storage) in that folder for another
    launch. The report's ``output`` is the extension's output channel (this launch's)."""
    # Chromium and code-server put unix sockets under TMPDIR/--user-data-dir: keep the paths short
    if profile is not None:
        return _launch(
            tools, profile, ws, settings, expect, shots, untrusted, path_prefix, path, env
        )
    base = Path(tempfile.mkdtemp(prefix="qcs-", dir="/tmp"))
    try:
        return _launch(tools, base, ws, settings, expect, shots, untrusted, path_prefix, path, env)
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
    path: str | None = None,
    extra: dict[str, str] | None = None,
) -> tuple[int, str, dict[str, Any], str]:
    env = scratch_env(base) | (extra or {})
    if path_prefix or path is not None:
        env["PATH"] = (
            path if path is not None else f"{path_prefix}{os.pathsep}{env.get('PATH', '')}"
        )
        # The extension host takes PATH from a login shell (whose profile would reset it) unless
        # VS Code was launched from the CLI, as by `code .` in a terminal: say it was.
        env["VSCODE_CLI"] = "1"
    data, ext = base / "data", base / "ext"
    (data / "User").mkdir(parents=True, exist_ok=True)
    logs_before = set(data.rglob("*qrels*.log"))
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
    installed = run([*cs, "--install-extension", tools["vsix"], "--force"], timeout=180, env=env)
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
            "T_MS": str(expect.get("timeout_ms", 120000)),
            **{k: str(v) for k, v in shots.items()},
        }
        budget = int(expect.get("timeout_ms", 120000)) / 1000 * 3 + 60
        proc = run(
            ["node", str(HERE / "vscode" / "drive.js")], timeout=max(400, budget), env=drive_env
        )
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
    channels = [
        p.read_text(errors="replace") for p in data.rglob("*qrels*.log") if p not in logs_before
    ]
    report["output"] = "\n".join(channels)
    ext_logs = "\n".join(c[-3000:] for c in channels)
    return proc.returncode, out, report, server_log[-3000:] + ext_logs


def demo_expect(server_bin: str, workspace: Path) -> dict[str, Any]:
    """What the workbench must show on the demo: the header lens and the first question's lens
    (both on the first screen), the planted findings in the Problems panel, then the TREC run's
    language, highlighting and lens. Numbers from `qrels-lsp score/compare --format json`."""
    golden = workspace / "support.qrels.yaml"
    text = golden.read_text(encoding="utf-8")
    scores = score_json(server_bin, golden)
    expected = golden_lenses(
        text, scores, compare_json(server_bin, golden), pool_json(server_bin, golden)
    )
    lines = key_lines(text)
    first = min(lines, key=lines.__getitem__)
    assert [re.split(" · |: ", t)[0] for t in expected[0] if " vs " in t] == [
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
    return {
        "golden": golden.name,
        "lenses": expected[0] + expected[lines[first]],
        "problems": problems,
        "gotoLine": qr106_line - 2,  # 1-based: a few lines above QR106, centred
        "trec": "hybrid.trec",
        "trecFolder": "runs",
        "trecLanguage": "TREC run",
        "trecLens": f"hybrid vs {golden.name} · {summary(hybrid)}",
    }


def assert_demo_shown(report: dict[str, Any], expect: dict[str, Any], workspace: Path) -> None:
    """The lenses with score's numbers, the planted findings, a squiggle, TREC highlighting."""
    text = (workspace / "support.qrels.yaml").read_text(encoding="utf-8")
    assert report["language"].strip() == "YAML"  # golden sets stay YAML (highlighting kept)
    seen = "\n".join(report["lenses"])
    for title in expect["lenses"]:
        assert title in seen
    assert "baseline" not in seen
    assert report["squiggles"] >= 1
    rows = "\n".join(report["problems"])
    for line, code in planted(text).items():
        assert code in rows and f"[Ln {line + 1}, Col" in rows, (code, rows)
    # TREC run: the six fields of a line are tokens in at least four distinct colours
    tokens = report["trecTokens"]
    first_line = (workspace / "runs" / "hybrid.trec").read_text().splitlines()[0].split()
    assert [tok[0].strip() for tok in tokens] == first_line, tokens
    assert len({tok[2] for tok in tokens}) >= 4, tokens


def test_golden_set_lenses_problems_and_trec_highlighting(
    tools: dict[str, str], server_bin: str, workspace: Path, artefacts: Path, tmp_path: Path
) -> None:
    expect = demo_expect(server_bin, workspace)
    shot = artefacts / "vscode.png"
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
    assert_demo_shown(report, expect, workspace)
    assert shot.stat().st_size < 300_000, shot.stat().st_size
    docs = ROOT / "docs" / "screenshots"
    docs.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, docs / "vscode.png")


# -- zero setup: the server the extension carries ---------------------------------------------


def plain_path() -> str:
    """PATH without any folder holding a qrels-lsp: a machine where the server is not installed
    (python3 stays: the bundled server's environment is made with it)."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    kept = [f for f in folders if f and not (Path(f) / "qrels-lsp").exists()]
    assert not any(shutil.which("qrels-lsp", path=f) for f in kept)
    assert shutil.which("python3", path=os.pathsep.join(kept)), "python3 on PATH"
    return os.pathsep.join(kept)


def old_wheel(tmp_path: Path, version: str) -> Path:
    """The package as an older extension carried it: the same source, another version."""
    src = tmp_path / "old-src"
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "server", src / "server", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    init = src / "server" / "qrels_lsp" / "__init__.py"
    init.write_text(re.sub(r'__version__ = ".*"', f'__version__ = "{version}"', init.read_text()))
    out = tmp_path / "old-wheel"
    built = run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    [wheel] = out.glob("*.whl")
    return wheel


def installed_version(python: Path) -> str:
    got = run(
        [str(python), "-I", "-c", "import qrels_lsp; print(qrels_lsp.__version__)"], timeout=60
    )
    assert got.returncode == 0, got.stderr
    return got.stdout.strip()


def test_zero_setup_from_a_clean_profile_then_an_upgrade(
    tools: dict[str, str], server_bin: str, workspace: Path, artefacts: Path, tmp_path: Path
) -> None:
    """A clean profile on a machine with no qrels-lsp on PATH and no server setting: installing
    the .vsix and opening the demo folder is all it takes. The extension makes its own
    environment in its global storage (python3 on PATH, the wheel it carries, the dependencies
    from the package index: the lock's versions, wheels only, hash-checked), showing progress,
    and the lenses, diagnostics and the server's folds of a TREC run appear. Then an older
    extension's environment (another version of the package, installed in the same place,
    stamped without a lock as before the lock existed) is upgraded in place by this one."""
    from qrels_lsp import __version__

    before = sorted(str(p.relative_to(workspace)) for p in workspace.rglob("*"))
    expect = demo_expect(server_bin, workspace) | {
        "progress": True,
        "folding": True,
        "timeout_ms": 300_000,  # the first start installs numpy, scipy, pygls...
    }
    profile = Path(tempfile.mkdtemp(prefix="qcs-", dir="/tmp"))
    pip_cache = os.environ.get("QRELS_CI_PIP_CACHE")  # the machine's pip cache, as a user has one
    env = {"PIP_CACHE_DIR": pip_cache} if pip_cache else {}
    settings = {"qrels.bm25_baseline": False, "editor.showFoldingControls": "always"}
    shots = {
        "SHOT": artefacts / "vscode-zero-setup.png",
        "SHOT_TREC": tmp_path / "unused.png",
        "SHOT_FOLD": artefacts / "vscode-folding.png",
    }
    try:
        rc, out, report, logs = launch(
            tools, tmp_path, workspace, settings, expect, shots,
            profile=profile, path=plain_path(), env=env,
        )  # fmt: skip
        assert rc == 0, f"{out}\n--- code-server / extension logs:\n{logs}"
        storage = profile / "data" / "User" / "globalStorage" / "qrels-lsp.qrels-lsp"
        venv = storage / "server-env"
        python = venv / "bin" / "python"
        said = report["output"]
        assert "no `qrels-lsp` on PATH" not in said  # not an error: the bundled server
        assert f"Setting up the bundled server {__version__} in {venv}" in said, said[-3000:]
        assert f"starting {python} -I -m qrels_lsp.cli serve (from the bundled server, in " in said
        assert f"qrels-lsp {__version__} is running." in said
        pinned = "--require-hashes --only-binary :all: -r "  # the lock, then the server by hash
        assert re.search(rf"{pinned}\S+/server/requirements\.lock\s", said), said[-3000:]
        assert re.search(r"--no-deps --no-index .*-r \S+/server/qrels-lsp\.lock\s", said)
        assert any("qrels-lsp" in n and "install" in n for n in report["progress"]), report
        assert_demo_shown(report, expect, workspace)
        # the environment is the extension's, never the workspace's
        assert installed_version(python) == __version__
        assert sorted(str(p.relative_to(workspace)) for p in workspace.rglob("*")) == before
        # the server's folds of a TREC run (it has no indentation VS Code could fold by): one
        # per query, and Fold All leaves each query's first line
        trec = (workspace / "runs" / "hybrid.trec").read_text().splitlines()
        firsts = [
            line
            for i, line in enumerate(trec)
            if i == 0 or line.split()[0] != trec[i - 1].split()[0]
        ]
        assert report["foldMarkers"] >= 2, report  # one per query on the screen (10 lines each)
        shown = [line for line in report["foldedLines"] if line.strip()]  # (inlay hints too)
        assert [s.split()[:2] for s in shown[:10]] == [f.split()[:2] for f in firsts[:10]], shown
        assert shown[0].startswith(firsts[0].split(" 1 ")[0])

        # an older extension's environment: the package at another version, stamped as made
        # for another wheel; this extension upgrades it in place (no new environment)
        old = old_wheel(tmp_path, "0.0.1")
        pip = [str(python), "-I", "-m", "pip", "install", "-q", "--force-reinstall", "--no-deps"]
        assert run([*pip, str(old)], timeout=300).returncode == 0
        assert installed_version(python) == "0.0.1"
        stamp = venv / "qrels-lsp-bundled.json"
        made = json.loads(stamp.read_text())
        older = {k: v for k, v in made.items() if k != "lock"}  # its dependencies unchecked
        stamp.write_text(
            json.dumps(older | {"wheel": old.name, "version": "0.0.1", "sha256": "0" * 64})
        )
        inode = python.lstat().st_ino
        again = demo_expect(server_bin, workspace) | {"lensesOnly": True, "timeout_ms": 300_000}
        shots2 = {"SHOT": artefacts / "vscode-upgraded.png", "SHOT_TREC": tmp_path / "unused.png"}
        rc, out, report, logs = launch(
            tools, tmp_path, workspace, settings, again, shots2,
            profile=profile, path=plain_path(), env=env,
        )  # fmt: skip
        assert rc == 0, f"{out}\n--- code-server / extension logs:\n{logs}"
        said = report["output"]
        assert f"Upgrading the bundled server 0.0.1 -> {__version__} in {venv}" in said, said[
            -3000:
        ]
        assert "--force-reinstall --no-deps" in said and "-m venv" not in said
        assert "--only-binary :all: --force-reinstall -r " in said  # each dependency checked
        assert f"qrels-lsp {__version__} is running." in said
        assert installed_version(python) == __version__
        assert python.lstat().st_ino == inode  # the same environment
        assert json.loads(stamp.read_text())["version"] == __version__
    finally:
        shutil.rmtree(profile, ignore_errors=True)


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


def test_report_in_a_webview(
    tools: dict[str, str], server_bin: str, workspace: Path, artefacts: Path, tmp_path: Path
) -> None:
    """The first line's report lens shows the golden set's report in a webview beside it; its
    means are `score --format json`'s."""
    golden = workspace / "support.qrels.yaml"
    scores = score_json(server_bin, golden)
    shot = artefacts / "vscode-report.png"
    expect = {
        "golden": golden.name,
        "lenses": ["report: curves, deltas, coverage"],
        "report": "report: curves, deltas, coverage",
    }
    rc, out, report, logs = launch(
        tools,
        tmp_path / "cs",
        workspace,
        {"qrels.server.command": [server_bin, "serve"], "qrels.bm25_baseline": False},
        expect,
        {"SHOT": shot, "SHOT_TREC": tmp_path / "unused.png"},
    )
    assert rc == 0, f"{out}\n--- code-server / extension logs:\n{logs}"
    assert "Retrieval report: support.qrels.yaml" in report["reportTitle"]
    assert any("Report: support.qrels.yaml" in t for t in report["tabs"])  # beside the golden set
    assert report["reportSeries"] == len(scores["runs"])
    assert report["reportSort"] == "descending"  # its script ran: its policy lets it, by hash
    means = {row[0]: dict(row[1:]) for row in report["reportMeans"]}
    for doc in scores["runs"]:
        for metric, value in doc["mean"].items():
            assert float(means[doc["name"]][metric]) == value, (doc["name"], metric)
    docs = ROOT / "docs" / "screenshots"
    shutil.copyfile(shot, docs / "vscode-report.png")
