"""A golden set with two git commits, and runs that change too: what ``qrels-lsp diff`` and the
editor's history compare (tests/test_history*.py, tests/lsp/test_history_lens.py).

Between the commits: a question added, one removed, one renamed (its id only), one reworded,
judgments added, removed and regraded, a question made unanswerable; the TREC run and the run
YAML are both re-ranked, and a third run exists only in the second commit. ``arm`` sets the
repository's configuration to programs that each write a marker file when git runs them (the
fsmonitor, a textconv and a filter driver, every hook), for the tests that prove none runs.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

OLD_GOLDEN = """\
k: 5
judgments: exhaustive
runs: [runs/*.trec, runs/*.run.yaml]
queries:
  reset:
    question: how do I reset my password
    relevant: {d1: 2, d2: 1, d7: 1}
  wifi:
    question: the wifi drops every evening
    relevant: [d3, d8]
  refund:
    question: how long is the refund window
    relevant: [d5, d6]
  invoice:
    question: where is my invoice
    relevant: {d9: 3, d10: 1}
  mars:
    question: do you ship to mars
    relevant: [d11]
"""

NEW_GOLDEN = """\
k: 5
judgments: exhaustive
runs: [runs/*.trec, runs/*.run.yaml]
queries:
  reset:
    question: how do I reset my password
    relevant: {d1: 1, d2: 1, d4: 2}
  wifi-evening:
    question: the wifi drops every evening
    relevant: [d3, d8]
  invoice:
    question: where can I find my invoice
    relevant: {d9: 3, d10: 1, d12: 2}
  mars:
    question: do you ship to mars
    unanswerable: true
  pairing:
    question: the app cannot pair with the hub
    relevant: [d4, d13]
"""

OLD_TREC = """\
reset Q0 d1 1 9.5 bm25
reset Q0 d9 2 8.0 bm25
reset Q0 d2 3 7.5 bm25
reset Q0 d4 4 7.0 bm25
wifi Q0 d8 1 6.0 bm25
wifi Q0 d4 2 5.0 bm25
wifi Q0 d3 3 4.0 bm25
refund Q0 d6 1 3.0 bm25
refund Q0 d2 2 2.5 bm25
invoice Q0 d10 1 9.0 bm25
invoice Q0 d9 2 8.5 bm25
mars Q0 d11 1 1.0 bm25
"""

NEW_TREC = """\
reset Q0 d2 1 9.5 bm25
reset Q0 d1 2 8.0 bm25
reset Q0 d4 3 7.5 bm25
wifi-evening Q0 d3 1 6.0 bm25
wifi-evening Q0 d1 2 5.0 bm25
invoice Q0 d12 1 9.0 bm25
invoice Q0 d9 2 8.5 bm25
invoice Q0 d1 3 8.0 bm25
pairing Q0 d13 1 4.0 bm25
pairing Q0 d5 2 3.0 bm25
"""

OLD_YAML = """\
qrels: ../golden.qrels.yaml
name: dense
results:
  reset: [d7, d1, d3]
  wifi: [d3, d8]
  refund: [d5]
  invoice: [d1, d10, d9]
"""

NEW_YAML = """\
qrels: ../golden.qrels.yaml
name: dense
results:
  reset: [d4, d7, d1]
  wifi: [d3, d8]
  wifi-evening: [d8]
  invoice: [d12, d10]
  pairing: [d5, d4, d13]
"""

ONLY_NEW_TREC = """\
reset Q0 d1 1 2.0 fresh
pairing Q0 d4 1 2.0 fresh
"""

MARKER = "git-ran-a-program"


@dataclass(frozen=True)
class Repo:
    root: Path
    golden: Path
    trec: Path
    yaml: Path
    fresh: Path

    @property
    def marker(self) -> Path:
        return self.root / MARKER


def git(root: Path, *args: str) -> str:
    """git as a test drives it (no configuration of the machine's, a fixed author)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    done = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_repo(root: Path, *, commit_second: bool = True) -> Repo:
    """The two commits on ``main`` (the second left in the working tree only when not
    ``commit_second``)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    repo = Repo(
        root,
        root / "golden.qrels.yaml",
        root / "runs" / "bm25.trec",
        root / "runs" / "dense.run.yaml",
        root / "runs" / "fresh.trec",
    )
    write(repo.golden, OLD_GOLDEN)
    write(repo.trec, OLD_TREC)
    write(repo.yaml, OLD_YAML)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    write(repo.golden, NEW_GOLDEN)
    write(repo.trec, NEW_TREC)
    write(repo.yaml, NEW_YAML)
    write(repo.fresh, ONLY_NEW_TREC)
    if commit_second:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "second")
    return repo


def arm(repo: Repo) -> Path:
    """Point the repository's configuration at programs that write :data:`MARKER`: the
    fsmonitor, a diff driver's textconv and a filter driver's clean and smudge for every file,
    and every hook. Returns the marker's path (absent)."""
    script = write(repo.root / ".trap" / "mark.sh", f'#!/bin/sh\ntouch "{repo.marker}"\ncat\n')
    script.chmod(0o755)
    hooks = repo.root / ".trap" / "hooks"
    for name in (
        "pre-commit",
        "post-checkout",
        "post-merge",
        "reference-transaction",
        "post-index-change",
    ):
        write(hooks / name, f'#!/bin/sh\ntouch "{repo.marker}"\n').chmod(0o755)
    with (repo.root / ".git" / "config").open("a", encoding="utf-8") as f:
        f.write(
            f"[core]\n\tfsmonitor = {script}\n\thooksPath = {hooks}\n"
            f'[diff "trap"]\n\ttextconv = {script}\n'
            f'[filter "trap"]\n\tclean = {script}\n\tsmudge = {script}\n\trequired = true\n'
        )
    write(repo.root / ".git" / "info" / "attributes", "* diff=trap filter=trap\n")
    return repo.marker
