"""The command line as CI runs it, on a mutated copy of the demo: a mutated configuration (long
hostile settings among the mutations), mutated golden sets and runs, hostile names given to the
options that take them (metrics, runs, tags, codes, a run's name) and outputs (``-o``,
``--summary``, ``--topics``) pointed at what a hostile checkout plants: a symlink to a file
outside, a dangling one, a folder, a FIFO, a symlinked folder that leads out, a name longer than
a file name may be, a path longer than the cap.

Each command runs in a process of its own, bounded at 10 s (killed at 30). A failure: a
traceback, an exit code other than 0, 1 or 2, the bound passed, a file outside the checkout
written (but the one output named there on purpose), or text from outside in the output.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

from bounded import CLI, run_bounded

from .corpus import CONFIG, EXAMPLES, SEEDS, TOPICS
from .mutate import TOML_MUTATORS, hostile_text, mutate

SECONDS = 10.0
SECRET = "secret-outside-the-checkout-51c2"
GOLDEN = "support.qrels.yaml"
RUNS = ["bm25", "dense", "hybrid", "passages", "rrf"]
METRICS = ["recall@5", "ndcg@10", "P_5", "RBP(p=0.8)", "map", "bogus@x", "recall@k", ""]


def _name(rng: random.Random, known: list[str]) -> str:
    """A name an option takes: a known one, or hostile text under or over the caps."""
    if rng.random() < 0.5:
        return rng.choice(known)
    text = hostile_text(rng)[: rng.choice([150, 250, 4_000, 5_000, 90_000])]
    return text.replace("\x00", "")  # (an argument cannot hold one)


def _output(rng: random.Random, root: Path, outside: Path, suffix: str) -> tuple[str, Path | None]:
    """Where a command is told to write, and the file outside that it may then write (None:
    nothing outside may change)."""
    kind = rng.choice(
        [
            "new",
            "link-out",
            "dangling",
            "folder",
            "fifo",
            "outside",
            "linked-folder",
            "long-name",
            "long-path",
            "device",
        ]
    )
    name = f"out{rng.randrange(1000)}{suffix}"
    if kind == "new":
        return f"out/{name}", None
    if kind == "link-out":
        (root / name).symlink_to(outside / "victim.txt")
        return name, None
    if kind == "dangling":
        (root / name).symlink_to(outside / f"created-{name}")
        return name, None
    if kind == "folder":
        (root / name).mkdir()
        return name, None
    if kind == "fifo":
        os.mkfifo(root / name)
        return name, None
    if kind == "outside":
        return str(outside / f"asked-{name}"), outside / f"asked-{name}"
    if kind == "linked-folder":
        return f"outlink/{name}", None
    if kind == "long-name":
        return "n" * 300 + suffix, None
    if kind == "long-path":
        return "d/" * 2_600 + name, None
    return "/dev/null", None


Builder = Callable[[random.Random, Path, Path], tuple[list[str], Path | None]]


def _check(rng: random.Random, root: Path, outside: Path) -> tuple[list[str], Path | None]:
    args = ["check", rng.choice([".", GOLDEN, "runs"])]
    if rng.random() < 0.3:
        args += ["--ignore", _name(rng, ["QR110", "QR106,QR110", ""])]
    return [*args, "--format", rng.choice(["text", "json", "github"])], None


def _score(rng: random.Random, root: Path, outside: Path) -> tuple[list[str], Path | None]:
    args = ["score", GOLDEN]
    if rng.random() < 0.5:
        args += ["--metrics", ",".join(_name(rng, METRICS) for _ in range(rng.randint(1, 3)))]
    if rng.random() < 0.3:
        args += [_name(rng, RUNS)]
    if rng.random() < 0.2:
        args += ["-k", rng.choice(["0", "5", "9" * 309, "-5"])]
    return [*args, "--format", rng.choice(["table", "json", "markdown", "trec"])], None


def _gate(rng: random.Random, root: Path, outside: Path) -> tuple[list[str], Path | None]:
    args = ["gate", GOLDEN, "--base", _name(rng, RUNS), "--head", _name(rng, RUNS)]
    if rng.random() < 0.4:
        args += ["--metric", _name(rng, METRICS)]
    if rng.random() < 0.3:
        args += ["--critical", _name(rng, ["critical", "billing"])]
    written = None
    if rng.random() < 0.6:
        target, written = _output(rng, root, outside, ".md")
        args += ["--summary", target]
    return [*args, "--format", rng.choice(["text", "github"])], written


def _compare(rng: random.Random, root: Path, outside: Path) -> tuple[list[str], Path | None]:
    args = ["compare", GOLDEN]
    if rng.random() < 0.5:
        args += ["--base", _name(rng, RUNS)]
    if rng.random() < 0.3:
        args += ["--metrics", _name(rng, METRICS)]
    return args, None


def _report(rng: random.Random, root: Path, outside: Path) -> tuple[list[str], Path | None]:
    target, written = _output(rng, root, outside, ".html")
    return ["report", GOLDEN, "-o", target], written


def _convert(rng: random.Random, root: Path, outside: Path) -> tuple[list[str], Path | None]:
    target, written = _output(rng, root, outside, ".qrels")
    args = ["convert", GOLDEN, "-o", target]
    if rng.random() < 0.5:
        topics, also = _output(rng, root, outside, ".jsonl")
        args += ["--topics", topics]
        written = written or also
    return args, written


def _fuse(rng: random.Random, root: Path, outside: Path) -> tuple[list[str], Path | None]:
    target, written = _output(rng, root, outside, ".trec")
    args = ["fuse", "runs/bm25.run.yaml", "runs/dense.run.yaml", "-o", target]
    if rng.random() < 0.5:
        args += ["--name", _name(rng, ["fused", "rrf"])]
    return args, written


def _pool(rng: random.Random, root: Path, outside: Path) -> tuple[list[str], Path | None]:
    return ["pool", GOLDEN, "--format", rng.choice(["table", "json", "yaml"])], None


BUILDERS: dict[str, Builder] = {
    "check": _check,
    "score": _score,
    "gate": _gate,
    "compare": _compare,
    "report": _report,
    "convert": _convert,
    "fuse": _fuse,
    "pool": _pool,
}


def workspace(base: Path, rng: random.Random) -> tuple[Path, Path]:
    """A fresh copy of the demo (one file and the configuration perhaps mutated), beside an
    outside folder holding a secret, with a symlinked folder leading to it."""
    root, outside = base / "checkout", base / "outside"
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(outside, ignore_errors=True)
    shutil.copytree(EXAMPLES, root)
    outside.mkdir()
    (outside / "victim.txt").write_text(f"{SECRET}\n", encoding="utf-8")
    (root / "outlink").symlink_to(outside, target_is_directory=True)
    (root / "out").mkdir()
    (root / "topics.jsonl").write_text(TOPICS, encoding="utf-8")
    config = mutate(rng, CONFIG, TOML_MUTATORS) if rng.random() < 0.5 else CONFIG
    (root / "qrels-lsp.toml").write_text(config, encoding="utf-8", errors="surrogatepass")
    if rng.random() < 0.5:
        seed = rng.choice(SEEDS)
        text = mutate(rng, seed.text, seed.mutators)
        (root / seed.path).write_text(text, encoding="utf-8", errors="surrogatepass")
    return root, outside


def snapshot(folder: Path) -> dict[str, str]:
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            out[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def one(rng: random.Random, base: Path) -> tuple[str, list[str]]:
    """One command on one mutated checkout: (command name, what went wrong)."""
    root, outside = workspace(base, rng)
    name = rng.choice(list(BUILDERS))
    args, may_write = BUILDERS[name](rng, root, outside)
    before = snapshot(outside)
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    env["XDG_CACHE_HOME"] = str(base / "cache")
    problems: list[str] = []
    shown = " ".join(a if len(a) < 60 else f"<{len(a):,} characters>" for a in args)
    try:
        r = run_bounded([*CLI, *args], cwd=root, env=env, seconds=SECONDS, cpu=True)
    except AssertionError as exc:  # past the bound (killed) or over a gigabyte
        return name, [f"{shown}: {str(exc)[:300]}"]
    if "Traceback" in r.stderr:
        problems.append(f"{shown}: traceback\n{r.stderr[-3000:]}")
    if r.returncode not in (0, 1, 2):
        problems.append(f"{shown}: exit {r.returncode}\n{r.stderr[-1000:]}")
    if SECRET in r.stdout or SECRET in r.stderr:
        problems.append(f"{shown}: text from outside the checkout in the output")
    after = snapshot(outside)
    allowed = str(may_write.relative_to(outside)) if may_write is not None else None
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    if changed - {allowed}:
        problems.append(f"{shown}: wrote outside the checkout: {sorted(changed - {allowed})}")
    return name, problems
