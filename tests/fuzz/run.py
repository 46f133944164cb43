"""The long fuzz run: ``python tests/fuzz/run.py --minutes 10 [--seed N] [--examples N]``.

Targets:
- parsers: mutated golden sets, run YAML, TREC qrels and runs, BEIR qrels, topics, JSONL corpora
  and configuration files through their parsers and checks (and every fix a finding offers,
  applied and re-parsed); each must return, never raise, with every span inside the text. And
  settings as an editor sends them (every key, hostile text or the wrong shape in each).
- cli: the command line on a mutated checkout, with hostile names given to its options and
  outputs aimed at symlinks, FIFOs, folders, paths outside and paths too long (``cli.py``).
- server: the real server over stdio, replaying VS Code, Neovim 0.11, Emacs 29 and a
  pull-diagnostics client; each input is opened (didOpen), replaced by another mutation
  (didChange), then every request the server supports is sent (see ``exercise.py``); now and then
  the configuration file on disk is mutated and announced as changed, or hostile settings are
  answered to workspace/configuration (or pushed), and a third of the servers start with them
  as initializationOptions. The server must answer every request without an internal error, log
  no error, print no traceback and stay alive.

Among the mutations: names, ids, tags, metrics, paths and settings of hostile length (300
characters to a megabyte of what made patterns backtrack: ``mutate.hostile_text``).

A failing input is written to ``--out`` with the seed of its iteration, and the run goes on.
The summary lists inputs tried and failures per target; the exit code is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: for `fuzz` and `lsp`

from lsprotocol import types
from qrels_lsp.core.project.config import SETTINGS

from fuzz import cli
from fuzz.corpus import (
    CONFIG,
    EXAMPLES,
    SEEDS,
    TOPICS,
    check_config,
    check_corpus_jsonl,
    check_parsers,
    check_settings,
    hostile_settings,
)
from fuzz.driver import PROFILES, Server
from fuzz.exercise import Broken, exercise
from fuzz.mutate import TOML_MUTATORS, mutate


@dataclass
class Tally:
    inputs: int = 0
    requests: int = 0
    failures: list[str] = field(default_factory=list)


def _save(out: Path, target: str, seed: int, text: str, why: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{target}-{seed}.txt").write_text(text, encoding="utf-8", errors="surrogatepass")
    (out / f"{target}-{seed}.why").write_text(why, encoding="utf-8")


def fuzz_parsers(
    deadline: float, limit: int | None, seed: int, out: Path, tallies: dict[str, Tally]
) -> None:
    checks: dict[str, Callable[[random.Random], str | None]] = {
        **{f.name: (lambda rng, f=f: check_parsers(rng, f)) for f in SEEDS},
        "config": check_config,
        "settings": check_settings,
        "corpus-jsonl": check_corpus_jsonl,
    }
    i = 0
    while time.monotonic() < deadline:
        for name, check in checks.items():
            tally = tallies.setdefault(f"parse:{name}", Tally())
            if limit is not None and tally.inputs >= limit:
                continue
            it_seed = seed * 1_000_003 + i
            rng = random.Random(it_seed)
            try:
                text = check(rng)
            except Exception:
                why = traceback.format_exc()
                tally.failures.append(f"seed {it_seed}: {why.splitlines()[-1]}")
                _save(out, f"parse-{name}", it_seed, "(regenerate with the seed)", why)
                text = ""
            tally.inputs += 1
            del text
        i += 1
        if limit is not None and all(
            t.inputs >= limit for n, t in tallies.items() if n.startswith("parse:")
        ):
            return


START_KEYS = tuple(k for k in SETTINGS if k != "allow_outside")
SECRET = "secret-outside-the-workspace-7f3a"
"""Written in files beside the workspace: an answer that holds it read outside the boundary."""


def _outside(base: Path) -> None:
    out = base / "outside"
    if out.exists():
        return
    out.mkdir()
    (out / "doc.md").write_text(f"{SECRET}\n", encoding="utf-8")
    (out / "secret.run.yaml").write_text(f"results:\n  {SECRET}: [doc.md]\n", encoding="utf-8")
    (out / "secret.qrels.yaml").write_text(
        f"queries:\n  {SECRET}:\n    question: {SECRET}\n    relevant: [doc.md]\n",
        encoding="utf-8",
    )


def _workspace(base: Path) -> Path:
    root = base / "ws"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(EXAMPLES, root)
    _outside(base)
    (root / "corpus-link").symlink_to(base / "outside", target_is_directory=True)
    (root / "qrels-lsp.toml").write_text(CONFIG, encoding="utf-8")
    (root / "topics.jsonl").write_text(TOPICS, encoding="utf-8")
    for seed in SEEDS:
        if not (root / seed.path).exists():
            (root / seed.path).write_text(seed.text, encoding="utf-8")
    return root


def _write_config(server: Server, root: Path, text: str) -> None:
    path = root / "qrels-lsp.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    server.notify(
        types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=path.as_uri(), type=types.FileChangeType.Changed)]
        ),
    )


def fuzz_server(
    deadline: float, limit: int | None, seed: int, out: Path, tallies: dict[str, Tally]
) -> None:
    base = Path(tempfile.mkdtemp(prefix="qrels-fuzz-"))
    i = 0
    try:
        while time.monotonic() < deadline and (
            limit is None
            or min((t.inputs for n, t in tallies.items() if n.startswith("server:")), default=0)
            < limit
        ):
            profile = PROFILES[i % len(PROFILES)]
            root = _workspace(base)
            # A third of the servers start with hostile settings, as start-up options and as the
            # answer to workspace/configuration (all but allow_outside, which widens what may be
            # read). Such settings may say a file is not ours: its diagnostics are not waited for.
            start = random.Random(seed * 1_000_033 + i)
            hostile = hostile_settings(start, START_KEYS) if start.random() < 0.3 else None
            server = Server(
                root,
                profile,
                secret=SECRET,
                init_options={"qrels": hostile} if hostile is not None else None,
                configuration=hostile,
            )
            tally = tallies.setdefault(f"server:{profile}", Tally())
            try:
                # A few dozen inputs per server process, so state accumulates across edits.
                for _ in range(25):
                    if time.monotonic() >= deadline or (
                        limit is not None and tally.inputs >= limit
                    ):
                        break
                    it_seed = seed * 1_000_003 + i
                    i += 1
                    rng = random.Random(it_seed)
                    target = rng.choice(SEEDS)
                    first = mutate(rng, target.text, target.mutators)
                    second = mutate(rng, first, target.mutators)
                    uri = (root / target.path).as_uri()
                    what = f"{profile} {target.path} seed {it_seed}"
                    # Now and then the configuration on disk is broken for one input (the file
                    # may then not be ours: its diagnostics are not waited for).
                    config = (
                        mutate(rng, target.config, TOML_MUTATORS) if rng.random() < 0.1 else None
                    )
                    settings = hostile_settings(rng, START_KEYS) if rng.random() < 0.1 else None
                    try:
                        if settings is not None:
                            server.configure(settings, push=rng.random() < 0.5)
                        if config is not None:
                            _write_config(server, root, config)
                        server.open(uri, first, 1, target.language)
                        try:
                            server.change(uri, 2, second)
                            ours = config is None and settings is None and hostile is None
                            tally.requests += exercise(server, uri, second, 2, rng, pushed=ours)
                        finally:  # else the next inputs see this buffer, not the file on disk
                            server.close_doc(uri)
                        if config is not None:
                            _write_config(server, root, target.config)
                        if settings is not None:
                            server.configure({})
                    except Broken as exc:
                        server.failures.append(str(exc))
                    except Exception:  # the harness itself: report it, start a fresh server
                        server.failures.append(f"fuzz harness error:\n{traceback.format_exc()}")
                    tally.inputs += 1
                    problems = server.problems()
                    if problems:
                        why = "\n".join(problems)
                        tally.failures.append(f"{what}: {problems[0][:300]}")
                        _save(out, f"server-{target.name}", it_seed, second, why)
                        server.reset_problems()
                    if not server.alive():
                        break
            finally:
                code = server.close()
                if code not in (0,):
                    tally.failures.append(f"{profile}: shutdown/exit gave {code!r}")
    finally:
        shutil.rmtree(base, ignore_errors=True)


def fuzz_cli(
    deadline: float, limit: int | None, seed: int, out: Path, tallies: dict[str, Tally]
) -> None:
    """Commands on mutated checkouts (``cli.py``) until the deadline, or ``limit`` each."""
    base = Path(tempfile.mkdtemp(prefix="qrels-fuzz-cli-"))
    i = 0
    try:
        while time.monotonic() < deadline:
            if limit is not None and all(
                tallies.get(f"cli:{n}", Tally()).inputs >= limit for n in cli.BUILDERS
            ):
                return
            it_seed = seed * 1_000_037 + i
            i += 1
            name, problems = cli.one(random.Random(it_seed), base)
            tally = tallies.setdefault(f"cli:{name}", Tally())
            tally.inputs += 1
            if problems:
                tally.failures.append(f"seed {it_seed}: {problems[0][:300]}")
                _save(
                    out, f"cli-{name}", it_seed, "(regenerate with the seed)", "\n".join(problems)
                )
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=2.0, help="wall time (default 2)")
    parser.add_argument("--examples", type=int, help="stop a target after this many inputs")
    parser.add_argument("--seed", type=int, help="master seed (default: random, printed)")
    parser.add_argument(
        "--targets",
        default="parsers,cli,server",
        help="any of parsers, cli and server, comma-separated (default: all three)",
    )
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    targets = set(args.targets.split(","))
    started = time.monotonic()
    total = args.minutes * 60
    tallies: dict[str, Tally] = {}
    print(f"qrels-lsp fuzz: seed {seed}, {args.minutes:g} min, targets {sorted(targets)}")
    shares = {"parsers": 0.2, "cli": 0.25, "server": 0.55}
    whole = sum(shares[t] for t in targets if t in shares)
    end = started
    for target, fuzz in (("parsers", fuzz_parsers), ("cli", fuzz_cli), ("server", fuzz_server)):
        if target in targets:
            end += total * shares[target] / whole
            fuzz(end, args.examples, seed, args.out, tallies)
    elapsed = time.monotonic() - started
    print(f"\n{'target':<28}{'inputs':>10}{'requests':>10}{'failures':>10}")
    for name, t in sorted(tallies.items()):
        print(f"{name:<28}{t.inputs:>10}{t.requests or '':>10}{len(t.failures):>10}")
    inputs = sum(t.inputs for t in tallies.values())
    failures = [f for t in tallies.values() for f in t.failures]
    requests = sum(t.requests for t in tallies.values())
    print(
        f"{'total':<28}{inputs:>10}{requests:>10}{len(failures):>10}"
        f"\n\n{inputs} inputs, {requests} requests, {len(failures)} failures in "
        f"{elapsed / 60:.1f} min (seed {seed})"
    )
    for f in failures[:50]:
        print(f"  FAIL {f}")
    if failures:
        print(f"inputs that failed are in {args.out}/")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
