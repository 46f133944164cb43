"""Emacs + eglot and Vim + ALE (Debian's packages), batch mode, with the configs from editors/emacs
and editors/vim and the real server: the planted findings of the demo golden set arrive."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from .conftest import ROOT, need, run, scratch_env
from .expect import planted

HERE = Path(__file__).resolve().parent


def parse(out: str) -> list[tuple[int, int, str, str]]:
    rows = []
    for line in out.splitlines():
        if m := re.match(r"DIAG (\d+) (\d+) (\S+) (.*)$", line):
            rows.append((int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)))
    return rows


def check(rows: list[tuple[int, int, str, str]], ws: Path, codes: dict[int, str]) -> None:
    text = (ws / "support.qrels.yaml").read_text(encoding="utf-8")
    marks = planted(text)
    assert {line for line, *_ in rows} == set(marks)
    for line, _col, _kind, message in rows:
        assert marks[line] in message, (line, message)  # eglot: "[QR106]", ALE: the code column
    qr106 = next(r for r in rows if marks[r[0]] == "QR106")
    assert qr106[1] == text.splitlines()[qr106[0]].index("errors/e1107-weak-backhual.md")
    assert "errors/e1107-weak-backhaul.md" in qr106[3]
    kinds = {marks[line]: kind for line, _c, kind, _m in rows}
    for code, kind in codes.items():
        assert kinds[code] == kind, (code, kinds)


def test_emacs_eglot_diagnostics(server_bin: str, workspace: Path, tmp_path: Path) -> None:
    emacs = need("emacs", shutil.which("emacs"))
    eglot = sorted(Path("/usr/share/emacs/site-lisp/elpa").glob("eglot-*"))
    need("eglot (Debian elpa-eglot)", str(eglot[-1]) if eglot else None)
    env = scratch_env(tmp_path) | {
        "HOME": str(tmp_path),
        "QRELS_EL": str(ROOT / "editors" / "emacs" / "qrels-lsp.el"),
        "QRELS_LSP_BIN": server_bin,
        "QRELS_FILE": str(workspace / "support.qrels.yaml"),
        "QRELS_ROOT": f"{workspace}/",
    }
    proc = run(
        [emacs, "--batch", "-l", str(HERE / "emacs" / "test_eglot.el")], timeout=180, env=env
    )
    assert proc.returncode == 0 and "DONE" in proc.stdout, proc.stdout + proc.stderr
    assert "MODE qrels-yaml-mode" in proc.stdout
    check(
        parse(proc.stdout),
        workspace,
        {"QR103": "eglot-error", "QR106": "eglot-warning", "QR110": "eglot-note"},
    )


def test_vim_ale_diagnostics(server_bin: str, workspace: Path, tmp_path: Path) -> None:
    vim = need("vim", shutil.which("vim"))
    need("ALE (Debian vim-ale)", "/usr/share/vim-ale/plugin/ale.vim")
    out = tmp_path / "ale.out"
    env = scratch_env(tmp_path) | {
        "HOME": str(tmp_path),
        "QRELS_VIM": str(ROOT / "editors" / "vim" / "qrels_lsp.vim"),
        "QRELS_LSP_BIN": server_bin,
        "QRELS_FILE": str(workspace / "support.qrels.yaml"),
        "ALE_OUT": str(out),
    }
    proc = run(
        [vim, "-Nu", "NONE", "-i", "NONE", "-n", "-es", "-S", str(HERE / "vim" / "test_ale.vim")],
        timeout=180,
        env=env,
    )
    text = out.read_text(encoding="utf-8") if out.exists() else ""
    assert proc.returncode == 0 and "DONE" in text, text + proc.stdout + proc.stderr
    assert "FILETYPE yaml.qrels" in text
    rows = [(line, col, kind, msg) for line, col, kind, msg in parse(text)]
    # ALE's line: "DIAG line col type code text"
    check(rows, workspace, {"QR103": "E", "QR106": "W"})
    for _line, _col, _kind, msg in rows:
        assert msg.startswith("QR"), msg
