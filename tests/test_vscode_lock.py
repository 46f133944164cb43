"""The VS Code extension's first-start install is pinned and hash-checked.

editors/vscode/requirements.lock (made by editors/vscode/lock.sh) pins every runtime dependency
of pyproject.toml to one version per Python, with sha256 hashes; build.sh puts it in the .vsix
beside the server's wheel and that wheel's own hash; bundled.js installs both with
``pip install --require-hashes --only-binary :all:``. Here: the lock against pyproject's ranges
(offline), the lock against what lock.sh makes from the index at the lock's date, and the
extension's own install code (bundled.js under node) with real pip against a local wheelhouse:
a missing wheel and an altered hash fail with the two-line message, the locked set installs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from qrels_lsp import __version__

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

VSCODE = ROOT / "editors" / "vscode"
LOCK = VSCODE / "requirements.lock"
BIN = "Scripts" if os.name == "nt" else "bin"
# the Pythons and platforms one .vsix serves (lock.sh checks each has a wheel of every pin)
PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]
PLATFORMS = [("linux", "Linux"), ("darwin", "Darwin"), ("win32", "Windows")]


@dataclass(frozen=True)
class Pin:
    requirement: Requirement
    hashes: tuple[str, ...]


def read_lock(text: str) -> list[Pin]:
    """The lock's requirements, each with its ``--hash`` options (pip's requirements format:
    ``\\`` continues a line, ``#`` starts a comment)."""
    logical = re.sub(r"\\\n", " ", text)
    pins = []
    for line in logical.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if not line:
            continue
        spec, *options = re.split(r"\s+(?=--)", line)
        hashes = tuple(o.removeprefix("--hash=") for o in options if o.startswith("--hash="))
        assert len(hashes) == len(options), f"only --hash options in the lock: {line[:200]}"
        pins.append(Pin(Requirement(spec), hashes))
    return pins


def target(python: str, platform: tuple[str, str]) -> dict[str, str]:
    """A marker environment for that Python (x.y.0) on that platform."""
    return default_environment() | {
        "python_version": python,
        "python_full_version": f"{python}.0",
        "implementation_version": f"{python}.0",
        "sys_platform": platform[0],
        "platform_system": platform[1],
    }


def applies(req: Requirement, env: dict[str, str]) -> bool:
    return req.marker is None or req.marker.evaluate(env)


def runtime_dependencies() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [Requirement(d) for d in project["project"]["dependencies"]]


def pinned_for(pins: list[Pin], env: dict[str, str]) -> dict[str, str]:
    """name -> the version the lock installs in that environment."""
    out: dict[str, str] = {}
    for pin in pins:
        if applies(pin.requirement, env):
            name = canonicalize_name(pin.requirement.name)
            assert name not in out, f"{name} pinned twice for {env['python_full_version']}"
            [spec] = pin.requirement.specifier
            out[name] = spec.version
    return out


def test_the_lock_pins_every_runtime_dependency_with_hashes() -> None:
    """Every line is one exact version (``==``) with at least one sha256; for every Python and
    platform the extension serves, each dependency of pyproject.toml that applies there is
    pinned once, to a version inside pyproject's range."""
    pins = read_lock(LOCK.read_text(encoding="utf-8"))
    assert pins
    for pin in pins:
        [spec] = pin.requirement.specifier
        assert spec.operator == "==", pin.requirement
        assert pin.requirement.url is None and not pin.requirement.extras, pin.requirement
        assert pin.hashes, f"{pin.requirement} has no hash"
        assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in pin.hashes), pin.hashes
    for python in PYTHONS:
        for platform in PLATFORMS:
            env = target(python, platform)
            versions = pinned_for(pins, env)
            for dep in runtime_dependencies():
                if not applies(dep, env):
                    continue
                name = canonicalize_name(dep.name)
                assert name in versions, f"{dep} is not pinned for Python {python} on {platform}"
                assert dep.specifier.contains(versions[name], prereleases=True), (
                    f"the lock pins {name}=={versions[name]} for Python {python}, outside {dep}"
                )


def test_the_lock_says_how_it_was_made() -> None:
    """Its header is lock.sh's command with the date it resolved at: re-running it gives it."""
    header = LOCK.read_text(encoding="utf-8").splitlines()[:2]
    assert header[0].startswith("# This file was autogenerated by uv")
    assert re.fullmatch(r"#\s+bash editors/vscode/lock\.sh \d{4}-\d{2}-\d{2}", header[1]), header


def lock_date() -> str:
    line = LOCK.read_text(encoding="utf-8").splitlines()[1]
    return line.split()[-1]


def tool(name: str) -> str:
    """A program the tests need: uv is in the test extra, node is what build.sh needs."""
    exe = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert exe is not None, f"{name} is needed here (uv: the test extra; node: Node 20+)"
    return exe


@pytest.mark.slow
def test_lock_sh_makes_the_lock_again_at_its_date(tmp_path: Path) -> None:
    """lock.sh at the date the lock records resolves the same versions and hashes from the index
    (only files uploaded by then count), and finds a wheel of every pin for each target."""
    out = tmp_path / "requirements.lock"
    made = subprocess.run(
        ["bash", str(VSCODE / "lock.sh"), lock_date(), str(out)],
        capture_output=True, text=True, timeout=900, check=False,
        env=os.environ | {"UV": tool("uv")},
    )  # fmt: skip
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    assert out.read_text(encoding="utf-8") == LOCK.read_text(encoding="utf-8")


# -- the extension's install, with real pip --------------------------------------------------

ENSURE = """
const [bundledJs, ext, storage, base] = process.argv.slice(1);
const bundled = require(bundledJs);
const wheel = bundled.bundledWheel(ext);
const layout = bundled.envLayout(storage);
const log = [];
const plan = bundled.plan(layout, wheel);
bundled
  .ensure({ layout, wheel, base, cwd: storage, env: process.env, log: (line) => log.push(line) })
  .then((done) => console.log(JSON.stringify({ ...done, plan, log })));
"""


@dataclass
class Setup:
    ext: Path  # an extension folder: server/ as build.sh makes it
    storage: Path  # the extension's storage: the environment goes in server-env
    wheels: Path  # the locked set's wheels for this Python
    tmp: Path

    @property
    def server(self) -> Path:
        return self.ext / "server"

    @property
    def python(self) -> Path:
        return self.storage / "server-env" / BIN / "python"

    def ensure(self, wheels: Path) -> dict[str, object]:
        """bundled.js's ensure(), as the extension runs it, with pip finding only ``wheels``."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")} | {
            "PIP_CONFIG_FILE": os.devnull,  # none of this machine's pip.conf
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(wheels),
        }
        done = subprocess.run(
            [tool("node"), "-e", ENSURE, str(VSCODE / "bundled.js"), str(self.ext),
             str(self.storage), sys.executable],
            capture_output=True, text=True, timeout=900, check=False, env=env,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    """build.sh's server/ folder, and the lock's wheels for this Python downloaded once (pip's
    cache keeps them for the next run)."""
    tool("node")  # build.sh reads the version from package.json with it
    tmp = tmp_path_factory.mktemp("vscode-install")
    ext = tmp / "ext"
    built = subprocess.run(
        ["bash", str(VSCODE / "build.sh"), "--server", str(ext / "server")],
        capture_output=True, text=True, timeout=600, check=False,
        env=os.environ | {"QRELS_PYTHON": sys.executable},
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheels = tmp / "wheels"
    got = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
         "--require-hashes", "--only-binary", ":all:", "-r", str(LOCK), "-d", str(wheels)],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert got.returncode == 0, got.stdout[-3000:] + got.stderr[-3000:]
    storage = tmp / "storage"
    storage.mkdir()
    return Setup(ext, storage, wheels, tmp)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def pip_commands(result: dict[str, object]) -> list[str]:
    log = result["log"]
    assert isinstance(log, list)
    return [line for line in log if " -m pip install " in line]


@pytest.mark.slow
def test_the_first_start_installs_only_locked_wheels_by_hash(setup: Setup) -> None:
    """bundled.js's install with real pip: it makes the environment, then fails with the
    two-line message where a pinned version has no wheel and where a file's hash is not the
    lock's, installs exactly the locked versions once the wheels are right, and refuses its own
    wheel when that is not the one build.sh hashed."""
    server = setup.server
    # what build.sh put beside the wheel: the committed lock, and the wheel's sha256
    assert (server / "requirements.lock").read_bytes() == LOCK.read_bytes()
    [wheel] = server.glob("qrels_lsp-*.whl")
    pinned = (server / "qrels-lsp.lock").read_text(encoding="utf-8")
    assert pinned == f"qrels-lsp=={__version__} --hash=sha256:{sha256(wheel)}\n"

    # a platform where the index has no wheel of a pinned version (google-re2 on musl, say)
    partial = setup.tmp / "partial"
    partial.mkdir()
    for w in setup.wheels.iterdir():
        if not w.name.startswith("google_re2-"):
            shutil.copy2(w, partial / w.name)
    no_wheel = setup.ensure(partial)
    assert no_wheel["ok"] is False and no_wheel["plan"] == "create", no_wheel
    cause, fix = str(no_wheel["error"]).split("\n")
    assert re.search(r"no wheel of google-re2==\S+ for this platform", cause), cause
    assert "never a source build" in cause
    assert f"pipx install {wheel}" in fix and "qrels.server.command" in fix
    commands = pip_commands(no_wheel)
    assert commands, no_wheel["log"]
    assert all("--require-hashes --only-binary :all:" in c for c in commands), commands
    assert not (setup.storage / "server-env" / "qrels-lsp-bundled.json").exists()

    # a file whose sha256 is not the lock's (another index, a proxy, a tampered copy)
    [yaml] = [w for w in setup.wheels.iterdir() if w.name.lower().startswith("pyyaml-")]
    lock = server / "requirements.lock"
    good = lock.read_text(encoding="utf-8")
    assert sha256(yaml) in good
    lock.write_text(good.replace(sha256(yaml), hashlib.sha256(b"tampered").hexdigest()))
    try:
        tampered = setup.ensure(setup.wheels)
    finally:
        lock.write_text(good)
    assert tampered["ok"] is False, tampered
    cause, fix = str(tampered["error"]).split("\n")
    assert re.search(r"a file of pyyaml==\S+ whose sha256 is not the one the extension", cause)
    assert "PIP_INDEX_URL" in fix and f"pipx install {wheel}" in fix

    # the right wheels: exactly the locked versions, and the server
    done = setup.ensure(setup.wheels)
    assert done["ok"] is True and done["version"] == __version__, done
    assert all("--require-hashes --only-binary :all:" in c for c in pip_commands(done))
    listed = subprocess.run(
        [str(setup.python), "-I", "-m", "pip", "list", "--format", "json"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    have = {canonicalize_name(d["name"]): d["version"] for d in json.loads(listed.stdout)}
    here = default_environment()
    want = pinned_for(read_lock(good), here)
    assert {n: have.get(n) for n in want} == want
    extra = set(have) - set(want) - {"qrels-lsp", "pip", "setuptools", "wheel"}
    assert not extra, extra
    assert have["qrels-lsp"] == __version__

    # an extension whose wheel is not the one build.sh hashed: the upgrade refuses it
    stamp = (setup.storage / "server-env" / "qrels-lsp-bundled.json").read_text(encoding="utf-8")
    (server / "qrels-lsp.lock").write_text(
        f"qrels-lsp=={__version__} --hash=sha256:{hashlib.sha256(b'other').hexdigest()}\n"
    )
    try:
        damaged = setup.ensure(setup.wheels)
    finally:
        (server / "qrels-lsp.lock").write_text(pinned)
    assert damaged["ok"] is False and damaged["plan"] == "upgrade", damaged
    cause, fix = str(damaged["error"]).split("\n")
    assert "does not match the sha256 it was built with" in cause
    assert fix.startswith("Reinstall the extension")
    assert (setup.storage / "server-env" / "qrels-lsp-bundled.json").read_text() == stamp
