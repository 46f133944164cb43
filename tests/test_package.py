"""The package as users get it: one version, written once; an sdist and a wheel that hold the demo
and everything the server needs; the wheel installed (not editable) into a fresh virtual
environment runs `qrels-lsp demo` and an LSP session; `pipx run` and `uvx` run it as the README
says."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT
from lsp.raw import RawClient
from qrels_lsp import __version__

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

VSCODE = ROOT / "editors" / "vscode"
BIN = "Scripts" if os.name == "nt" else "bin"


def test_the_version_is_written_once() -> None:
    """pyproject reads it from ``qrels_lsp.__version__``; the extension's manifest, which VS Code
    needs as a literal, and every file name it makes in the docs agree with it."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    attr = project["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "qrels_lsp.__version__"
    assert json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))["version"] == (
        __version__
    )
    lock = json.loads((VSCODE / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["version"] == lock["packages"][""]["version"] == __version__
    for doc in [ROOT / "README.md", *ROOT.glob("editors/*/README.md")]:
        text = doc.read_text(encoding="utf-8")
        for named in re.findall(r"qrels[-_]lsp-(\d+\.\d+\.\d+)(?:-py3|\.vsix|\.tar)", text):
            assert named == __version__, (doc, named)


def test_the_cli_says_its_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.strip() == f"qrels-lsp {__version__}"


def test_initialize_names_the_server_and_its_version(tmp_path: Path) -> None:
    client = RawClient(tmp_path, env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    try:
        result = client.initialize()["result"]
        assert result["serverInfo"] == {"name": "qrels-lsp", "version": __version__}
    finally:
        client.kill()


# -- the wheel, built and installed as a user would -------------------------------------------


def _tracked(root: Path) -> list[str]:
    """The checkout's files (what a clone holds): git's list when there is one."""
    try:
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z"],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "node_modules", "build", "dist", "__pycache__", "artefacts"}
        return [
            str(p.relative_to(root))
            for p in root.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(root).parts)
        ]
    return [name for name in listed.decode().split("\0") if name]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`python -m build` on a copy of the checkout (it writes build/ and egg-info)."""
    base = tmp_path_factory.mktemp("package")
    src = base / "src"
    for name in _tracked(ROOT):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    out = base / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [wheel] = out.glob("*.whl")
    [sdist] = out.glob("*.tar.gz")
    return {"base": base, "src": src, "wheel": wheel, "sdist": sdist}


def _package_files() -> set[str]:
    """What the server needs at run time: every tracked file of the package, less caches."""
    names = {
        n.removeprefix("server/")
        for n in _tracked(ROOT)
        if n.startswith("server/qrels_lsp/") and "__pycache__" not in n
    }
    assert "qrels_lsp/examples/support.qrels.yaml" in names
    return names


@pytest.mark.slow
def test_the_sdist_and_the_wheel_hold_the_package_and_its_demo(dist: dict[str, Path]) -> None:
    version = __version__
    wheel, sdist = dist["wheel"], dist["sdist"]
    assert wheel.name == f"qrels_lsp-{version}-py3-none-any.whl"
    assert sdist.name == f"qrels_lsp-{version}.tar.gz"
    needed = _package_files()
    with zipfile.ZipFile(wheel) as z:
        held = set(z.namelist())
        entry_points = z.read(f"qrels_lsp-{version}.dist-info/entry_points.txt").decode()
        metadata = z.read(f"qrels_lsp-{version}.dist-info/METADATA").decode()
    assert needed <= held, sorted(needed - held)
    assert "qrels-lsp = qrels_lsp.cli:main" in entry_points
    assert f"Version: {version}" in metadata
    assert "Requires-Dist: pygls" in metadata
    with tarfile.open(sdist) as t:
        in_sdist = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    top = f"qrels_lsp-{version}"
    assert {"README.md", "LICENSE", "pyproject.toml"} <= in_sdist, top
    assert {f"server/{n}" for n in needed} <= in_sdist
    assert not any(n.startswith("tests/") for n in in_sdist)  # the tests need the checkout


@pytest.fixture(scope="module")
def installed(dist: dict[str, Path]) -> Path:
    """A fresh virtual environment (no system site-packages) with the wheel installed, not
    editable: its dependencies come from the package index."""
    venv = dist["base"] / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / BIN / "python"
    pip = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(dist["wheel"])],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    return venv


def _outside(base: Path) -> Path:
    """A working folder that is neither the checkout nor a copy of it."""
    cwd = base / "elsewhere"
    cwd.mkdir(exist_ok=True)
    return cwd


def _plain_env() -> dict[str, str]:
    """The environment without this checkout on any path (PYTHONPATH, a venv activated)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not Path(p, "qrels-lsp").exists()
    )
    return env


@pytest.mark.slow
def test_the_installed_wheel_runs_the_demo(installed: Path, dist: dict[str, Path]) -> None:
    python = installed / BIN / "python"
    where = subprocess.run(
        [str(python), "-I", "-c", "import qrels_lsp; print(qrels_lsp.__file__)"],
        capture_output=True, text=True, timeout=60, check=True, cwd=_outside(dist["base"]),
    ).stdout.strip()  # fmt: skip
    assert Path(where).is_relative_to(installed), where  # the installed copy, not the checkout
    demo = subprocess.run(
        [str(installed / BIN / "qrels-lsp"), "demo"],
        capture_output=True, text=True, timeout=300, check=False,
        cwd=_outside(dist["base"]), env=_plain_env(),
    )  # fmt: skip
    assert demo.returncode == 0, demo.stderr
    here = subprocess.run(
        [sys.executable, "-m", "qrels_lsp.cli", "demo"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    # the same findings and numbers; only where the example lies differs
    ours = here.stdout.replace(str(EXAMPLES), "EXAMPLES")
    theirs = demo.stdout.replace(str(Path(where).parent / "examples"), "EXAMPLES")
    assert theirs == ours
    assert "QR106" in theirs and "recall@5" in theirs


@pytest.mark.slow
def test_the_installed_wheel_serves_lsp(installed: Path, dist: dict[str, Path]) -> None:
    """initialize (with the version in serverInfo), the demo golden set's diagnostics and code
    lenses, shutdown and exit, from the installed command."""
    site = subprocess.run(
        [str(installed / BIN / "python"), "-I", "-c",
         "import qrels_lsp, pathlib; print(pathlib.Path(qrels_lsp.__file__).parent)"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout.strip()  # fmt: skip
    ws = dist["base"] / "ws"
    shutil.copytree(Path(site) / "examples", ws, ignore=shutil.ignore_patterns("__pycache__"))
    env = _plain_env() | {"XDG_CACHE_HOME": str(dist["base"] / "cache")}
    client = RawClient(
        ws, env=env, command=[str(installed / BIN / "qrels-lsp"), "serve"], cwd=_outside(ws)
    )
    try:
        result = client.initialize()["result"]
        assert result["serverInfo"] == {"name": "qrels-lsp", "version": __version__}
        golden = ws / "support.qrels.yaml"
        uri = golden.as_uri()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                              "text": golden.read_text(encoding="utf-8")}},
        )  # fmt: skip
        published = client.notification("textDocument/publishDiagnostics", timeout=60)
        codes = {d["code"] for d in published["params"]["diagnostics"]}
        assert {"QR102", "QR103", "QR104", "QR106"} <= codes, codes
        client.request(1, "textDocument/codeLens", {"textDocument": {"uri": uri}})
        lenses = client.answer(1, timeout=60)["result"]
        titles = [lens["command"]["title"] for lens in lenses if lens.get("command")]
        assert any(t.startswith("36 questions") for t in titles), titles[:5]
        client.request(2, "shutdown")
        assert client.answer(2)["result"] is None
        client.notify("exit")
        assert client.wait_exit(30) == 0
    finally:
        client.kill()


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["pipx", "uvx"])
def test_pipx_run_and_uvx_run_the_wheel(tool: str, dist: dict[str, Path]) -> None:
    """The README's `pipx run --spec WHEEL qrels-lsp demo`, `uvx --from WHEEL qrels-lsp demo` and
    `pipx install WHEEL` (their own environments: pipx's home is a scratch folder here)."""
    exe = shutil.which(tool, path=str(Path(sys.executable).parent)) or shutil.which(tool)
    assert exe is not None, f"{tool} is in the test extra"
    wheel = str(dist["wheel"])
    home = dist["base"] / tool
    env = _plain_env() | {"PIPX_HOME": str(home / "home"), "PIPX_BIN_DIR": str(home / "bin")}
    cmd = (
        [exe, "run", "--spec", wheel, "qrels-lsp", "demo"]
        if tool == "pipx"
        else [exe, "--from", wheel, "qrels-lsp", "demo"]
    )
    out = subprocess.run(
        cmd, capture_output=True, text=True, timeout=900, check=False,
        cwd=_outside(dist["base"]), env=env,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "36 questions · 3 unanswerable" in out.stdout
    assert "QR106" in out.stdout
    if tool == "pipx":  # and the README's `pipx install WHEEL`: a qrels-lsp on pipx's PATH
        done = subprocess.run(
            [exe, "install", wheel], capture_output=True, text=True, timeout=900, check=False,
            cwd=_outside(dist["base"]), env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        version = subprocess.run(
            [str(home / "bin" / "qrels-lsp"), "--version"],
            capture_output=True, text=True, timeout=60, check=True, env=env,
        )  # fmt: skip
        assert version.stdout.strip() == f"qrels-lsp {__version__}"
