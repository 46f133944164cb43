"""The command line on a hostile repository, as CI runs it on a pull request: the real CLI in a
subprocess with its working directory in the checkout, held to 5 s and 1 GB (tests/bounded.py).

Each test plants what an attacker controls (paths, globs, symlinks, file names, ids, questions,
the configuration) and asserts what was refused, that nothing from outside the checkout reached
the output, and that no output line can be read by GitHub's runner as a workflow command.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bounded import CLI, SECONDS, Bounded, run_bounded
from conftest import EXAMPLES

SECRETS = ("root:x:0:0", "BEGIN OPENSSH PRIVATE KEY", "ghp_leakedtoken0123456789")
# What GitHub's runner would take for a command: `::name` after leading whitespace, or the old
# `##[name]` form anywhere on a line.
COMMAND = re.compile(r"^\s*::|##\[")


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """(checkout, outside, env): a copy of the demo as the repository under test, a folder
    outside it holding secrets, and an environment whose cache is in tmp_path."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES, repo)
    out = tmp_path / "outside"
    (out / "corpus").mkdir(parents=True)
    (out / "corpus" / "passwd").write_text(SECRETS[0] + ":/root:/bin/sh\n")
    (out / "corpus" / "id_rsa").write_text(f"-----{SECRETS[1]}-----\n")
    (out / "corpus" / SECRETS[2]).write_text("token\n")
    (out / "stolen.run.yaml").write_text("results:\n  q1: [passwd]\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return repo, out, env


def cli(repo: Path, env: dict[str, str], *args: str | Path, seconds: float = SECONDS):  # type: ignore[no-untyped-def]
    return run_bounded([*CLI, *args], cwd=repo, env=env, seconds=seconds)


def no_leak(*texts: str) -> None:
    for text in texts:
        for secret in (*SECRETS, "passwd", "id_rsa"):
            assert secret not in text, f"{secret!r} from outside the checkout reached the output"


def no_commands(text: str, allowed: tuple[str, ...] = ()) -> None:
    for line in text.splitlines():
        if line.startswith(allowed) and allowed:
            continue
        assert not COMMAND.search(line), f"a line GitHub would run as a command: {line!r}"


def test_paths_out_of_the_checkout_are_refused_in_ci(
    world: tuple[Path, Path, dict[str, str]],
) -> None:
    repo, out, env = world
    (repo / "corpus-link").symlink_to(out / "corpus", target_is_directory=True)
    attacks = {
        "abs.qrels.yaml": f"corpus: {out}/corpus\nruns: ['{out}/*.yaml']\n",
        "up.qrels.yaml": "corpus: ../outside/corpus\nruns: ['../../**/*.run.yaml']\n",
        "link.qrels.yaml": "corpus: corpus-link\nruns: ['/**/**/**/*']\n",
        "root.qrels.yaml": "corpus: /\nruns: ['/etc/*']\n",
    }
    for name, head in attacks.items():
        (repo / name).write_text(
            head + "queries:\n  q1:\n    question: reset\n    relevant: [passwd, pssswd]\n"
        )
    r = cli(repo, env, "check", ".", "--format", "github")
    assert r.returncode == 1
    no_leak(r.stdout, r.stderr)
    no_commands(r.stdout, ("::error ", "::warning ", "::notice "))
    refused = [line for line in r.stdout.splitlines() if "title=QR112::" in line]
    assert len(refused) == 8, r.stdout  # each corpus and each runs entry, where written
    for name in attacks:
        assert any(
            f"file={name}%2C" in line or f"file=./{name}" in line or name in line
            for line in refused
        )
    # The user's own flag lets the same checkout read outside it (here: the secret corpus).
    r = cli(repo, env, "score", "abs.qrels.yaml", "--allow-outside", "--format", "json")
    assert r.returncode == 0 and '"passwd"' not in r.stdout  # scored, ids not printed


def test_a_checkout_config_cannot_allow_itself_outside(
    world: tuple[Path, Path, dict[str, str]],
) -> None:
    repo, out, env = world
    (repo / "qrels-lsp.toml").write_text("allow_outside = true\nk = 3\n")
    (repo / "x.qrels.yaml").write_text(f"corpus: {out}/corpus\nqueries:\n  q:\n    relevant: [a]\n")
    r = cli(repo, env, "check", "x.qrels.yaml", "qrels-lsp.toml")
    assert "QR112" in r.stdout and "QR401" in r.stdout
    assert "inside the workspace cannot widen" in r.stdout
    no_leak(r.stdout, r.stderr)
    # The user's own file, outside the checkout, may: it is named on the command line.
    mine = out.parent / "mine.toml"
    mine.write_text(f'allow_outside = ["{out}"]\n')
    r = cli(repo, env, "check", "x.qrels.yaml", "--config", mine)
    assert "QR112" not in r.stdout


HOSTILE_IDS = [
    "::add-mask::secret",
    "a\n::error file=x::forged",
    "::stop-commands::pause",
    "  ::set-output name=x::y",
    "100% done",
    "x##[error]old-style",
    "tab\there",
    "rtl\u202eevil",
    "\u2028sep",
]


def hostile_golden(repo: Path) -> Path:
    lines = ["corpus: corpus/", "runs: [runs/*.run.yaml]", "queries:"]
    for i, qid in enumerate(HOSTILE_IDS):
        quoted = (
            qid.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        )
        lines.append(f'  "{quoted}":')
        lines.append(f'    question: "::warning::question {i}\\n::error::injected"')
        lines.append(f'    relevant: ["::add-mask::{i}", "kb/factory-reset.md"]')
    path = repo / "evil.qrels.yaml"
    path.write_text("\n".join(lines) + "\n")
    run = repo / "runs" / "evil.run.yaml"
    results = "".join(
        f'  "{q.replace(chr(10), chr(92) + "n").replace(chr(9), chr(92) + "t")}": ["::add-mask::{i}"]\n'
        for i, q in enumerate(HOSTILE_IDS)
    )
    run.write_text('name: "::error::run"\nresults:\n' + results)
    return path


@pytest.mark.parametrize("fmt", ["text", "github", "json"])
def test_check_output_cannot_inject_workflow_commands(
    world: tuple[Path, Path, dict[str, str]], fmt: str
) -> None:
    repo, _out, env = world
    hostile_golden(repo)
    # A file name an attacker chose: a newline and a forged command in it, a comma for a property.
    weird = repo / "::error file=x,line=1::forged\nname,title=QR000.qrels.yaml"
    weird.write_text("queries:\n  q:\n    question: x\n")
    r = cli(repo, env, "check", ".", "--format", fmt)
    assert r.returncode == 1
    allowed = ("::error ", "::warning ", "::notice ") if fmt == "github" else ()
    no_commands(r.stdout, allowed)
    no_commands(r.stderr)
    if fmt == "github":
        for line in r.stdout.splitlines():
            props = line.split("::")[1].split(" ", 1)[1]
            for prop in props.split(","):
                name, _, value = prop.partition("=")
                assert name in ("file", "line", "col", "endLine", "endColumn", "title"), line
                assert ":" not in value and "\n" not in value and "\r" not in value
        assert "error file=x%2Cline=1%3A%3Aforged\\x0aname%2Ctitle=QR000" in r.stdout


@pytest.mark.parametrize("fmt", ["table", "markdown", "trec", "json"])
def test_score_output_cannot_inject(world: tuple[Path, Path, dict[str, str]], fmt: str) -> None:
    repo, _out, env = world
    golden = hostile_golden(repo)
    r = cli(repo, env, "score", golden, repo / "runs" / "evil.run.yaml", "--format", fmt)
    assert r.returncode == 0, r.stderr
    no_commands(r.stdout)
    no_commands(r.stderr)
    if fmt == "markdown":
        assert "<" not in r.stdout.replace("&lt;", "")
        assert not re.search(r"(?<!\\)\]\(", r.stdout)  # no link syntax survives


@pytest.mark.slow
def test_yaml_bombs_are_cut_short(world: tuple[Path, Path, dict[str, str]]) -> None:
    repo, _out, env = world
    many = repo / "many.qrels.yaml"
    with many.open("w") as f:  # 16 MB: 1.19 M one-line questions
        f.write("queries:\n")
        f.writelines(f"  q{i}: {{}}\n" for i in range(1_190_000))
    dup = repo / "dup.qrels.yaml"
    with dup.open("w") as f:  # 3 MB: one id a million times
        f.write("queries:\n")
        f.writelines("  q: {}\n" for _ in range(400_000))
    # The first 100,000 questions are read and checked in full (about 9 s on two cores, most
    # of it parsing and the 100,000 QR104 findings with their fixes); the unbounded parse took
    # 194 s and 7.7 GB. The bound is three times what a fixed build needs, not ten.
    for path, needle in ((many, "more than 100,000 entries"), (dup, "more findings in this file")):
        r = cli(repo, env, "check", path, "--format", "json", seconds=30)
        assert r.returncode == 1
        assert needle in r.stdout, r.stdout[-2000:]


def test_config_bombs(world: tuple[Path, Path, dict[str, str]]) -> None:
    repo, out, env = world
    big = out / "big.toml"
    with big.open("wb") as f:
        f.truncate(2 << 30)
    (repo / "qrels-lsp.toml").symlink_to(big)
    r = cli(repo, env, "check", ".")
    assert "larger than 1 MiB" in r.stdout
    (repo / "qrels-lsp.toml").unlink()
    (repo / "qrels-lsp.toml").write_text("".join(f"k{i} = 1\n" for i in range(50_000)))
    r = cli(repo, env, "check", ".")
    assert r.stdout.count("QR402") == 21


def test_nul_bytes_in_paths_never_crash(world: tuple[Path, Path, dict[str, str]]) -> None:
    repo, _out, env = world
    (repo / "nul.qrels.yaml").write_text(
        'corpus: "corpus\\0/"\nruns: ["x\\0.trec"]\nqueries:\n  q:\n    question: x\n'
        "    relevant: [a]\n"
    )
    (repo / "runs" / "nul.run.yaml").write_text(
        'qrels: "../nul\\0.qrels.yaml"\nresults:\n  q: [a]\n'
    )
    (repo / "qrels-lsp.toml").write_text(
        '[[qrels]]\npath = "q\\u0000rels.txt"\ntopics = "t\\u0000"\nruns = ["\\u0000"]\n'
        'golden = ["\\u0000*.yaml"]\n'
    )
    r = cli(repo, env, "check", ".", "--format", "json")
    assert "Traceback" not in r.stderr
    assert r.stdout.count('"QR112"') >= 3


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
@pytest.mark.slow
def test_ci_reads_only_the_checkout_the_cache_and_python(
    world: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, out, env = world
    (repo / "corpus-link").symlink_to(out / "corpus", target_is_directory=True)
    (repo / "evil.qrels.yaml").write_text(
        f"corpus: corpus-link\nruns: ['{out}/*.yaml', '../outside/stolen.run.yaml']\n"
        "queries:\n  q1:\n    question: x\n    relevant: [passwd]\n"
    )
    trace = tmp_path / "trace"
    commands = (
        ["check", ".", "--format", "github"],
        ["score", "support.qrels.yaml", "--baseline", "bm25", "--format", "json"],
        ["score", "evil.qrels.yaml", "runs/bm25.run.yaml"],
        ["compare", "support.qrels.yaml", "--format", "json"],
        ["pool", "support.qrels.yaml", "--format", "yaml"],
        ["pool", "evil.qrels.yaml", "runs/bm25.run.yaml", "--format", "json"],
        ["gate", "evil.qrels.yaml", "--base", "runs/bm25.run.yaml", "--head", "dense",
         "--summary", "summary.md", "--format", "github"],
        ["gate", "support.qrels.yaml", "--base", "bm25", "--head", "dense", "--summary", "s.md"],
        ["report", "support.qrels.yaml", "-o", "report.html"],
        ["report", "evil.qrels.yaml", "runs/bm25.run.yaml", "-o", "evil.html"],
    )  # fmt: skip
    for args in commands:
        subprocess.run(
            [
                "strace",
                "-f",
                "-qq",
                "-e",
                "trace=%file,execve,network",
                "-o",
                str(trace),
                *CLI,
                *args,
            ],
            cwd=repo,
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        touched = _paths_touched(trace.read_text())
        allowed = [repo, Path(env["XDG_CACHE_HOME"]), *_python_dirs()]
        # Resolving a path looks at its parents: the folders above Python's are not read.
        ancestors = {a for d in _python_dirs() for a in d.parents}
        strays = [
            p
            for p in touched
            if not _under_any(p, allowed)
            and not _system(p)
            and not _config_lookup(p, repo)
            and p not in ancestors
        ]
        assert not strays, f"{args}: touched outside the checkout: {strays[:10]}"
        assert not [p for p in touched if _under_any(p, [out]) and not _under_any(p, [repo])]


_PATH = re.compile(r'^\d+\s+\w+\((?:AT_FDCWD, |\d+, )?"([^"]+)"', re.M)


def _paths_touched(log: str) -> set[Path]:
    out = set()
    for m in _PATH.finditer(log):
        raw = m.group(1)
        if raw.startswith("/"):
            out.add(Path(os.path.normpath(raw)))
    return out


def _config_lookup(path: Path, repo: Path) -> bool:
    """The configuration is looked for in the checkout's folder and above it (a qrels-lsp.toml
    outside the checkout is the user's own): those names, in those folders, and their folders."""
    ancestors = [repo, *repo.parents]
    return path in ancestors or (
        path.name in ("qrels-lsp.toml", "pyproject.toml") and path.parent in ancestors
    )


def _python_dirs() -> list[Path]:
    import site
    import sysconfig

    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, *site.getsitepackages()}
    dirs |= {v for k, v in sysconfig.get_paths().items()}
    dirs.add(str(Path(__file__).resolve().parents[1] / "server"))  # the editable install
    dirs |= {p for p in sys.path if p}
    return [Path(d) for d in dirs]


def _under_any(path: Path, roots: list[Path]) -> bool:
    return any(path == r or r in path.parents for r in (Path(os.path.realpath(x)) for x in roots))


def _system(path: Path) -> bool:
    """What the interpreter and the C library open on their own, whatever the input."""
    text = str(path)
    if re.fullmatch(r".*/lib/python\d+\.zip", text):  # the interpreter's search for its zip
        return True
    return text.startswith(
        ("/proc/", "/sys/", "/dev/", "/usr/lib", "/lib", "/usr/share/zoneinfo", "/usr/share/locale")
    ) or text in (
        "/etc/ld.so.cache",
        "/etc/localtime",
        "/etc/ld.so.preload",
        "/usr/bin/python3",
        "/usr/bin",
        "/usr/local/bin",
        "/",
        "/tmp",
    )


# -- output paths: a symlink committed where a command writes --------------------------------

BASHRC = "export PS1=original\n"  # what stands for ~/.bashrc, outside the checkout
OUTPUT_SECONDS = 15.0  # the report takes 2-3 s on an idle 2-core machine: a hang guard only


def clean_project(repo: Path) -> None:
    """A golden set and two runs with nothing left out of the scores (the gate refuses the
    demo's planted errors)."""
    (repo / "clean.qrels.yaml").write_text(
        "queries:\n  q1:\n    question: how do I reset\n    relevant: [a, b]\n"
        "  q2:\n    question: cannot log in\n    relevant: [c]\n"
    )
    (repo / "base.run.yaml").write_text("results:\n  q1: [a, b]\n  q2: [c]\n")
    (repo / "head.run.yaml").write_text("results:\n  q1: [b, a]\n  q2: [c]\n")


GATE = ["gate", "clean.qrels.yaml", "--base", "base.run.yaml", "--head", "head.run.yaml"]
# Each command that writes a file: its arguments ({out}: the output path), the output's name,
# what the file it writes holds, and whether it appends (the gate's summaries).
WRITERS = {
    "report": (["report", "support.qrels.yaml", "-o", "{out}"], "out.html", "<!DOCTYPE html>"),
    "convert": (["convert", "runs/bm25.run.yaml", "-o", "{out}"], "out.trec", " Q0 "),
    "convert --topics": (
        ["convert", "clean.qrels.yaml", "-o", "c.qrels", "--topics", "{out}"],
        "topics.tsv",
        "how do I reset",
    ),
    "fuse": (
        ["fuse", "runs/bm25.run.yaml", "runs/dense.run.yaml", "-o", "{out}"],
        "f.trec",
        " Q0 ",
    ),
    "bm25": (["bm25", "support.qrels.yaml", "-o", "{out}"], "out.trec", " Q0 "),
    "gate --summary": ([*GATE, "--summary", "{out}"], "summary.md", "## qrels-lsp gate"),
    "GITHUB_STEP_SUMMARY": (GATE, "step.md", "## qrels-lsp gate"),
}
APPENDS = ("gate --summary", "GITHUB_STEP_SUMMARY")


def write_to(repo: Path, env: dict[str, str], writer: str, out: str | Path) -> Bounded:
    """Run ``writer`` with its output at ``out``."""
    args, _name, _holds = WRITERS[writer]
    words = [str(out) if a == "{out}" else a for a in args]
    if writer == "GITHUB_STEP_SUMMARY":
        env = {**env, "GITHUB_STEP_SUMMARY": str(out)}
    return cli(repo, env, *words, seconds=OUTPUT_SECONDS)


@pytest.mark.parametrize("writer", list(WRITERS))
def test_an_output_symlink_is_not_written_through(
    world: tuple[Path, Path, dict[str, str]], writer: str
) -> None:
    repo, out, env = world
    clean_project(repo)
    bashrc = out / "bashrc"
    bashrc.write_text(BASHRC)
    _args, name, holds = WRITERS[writer]
    (repo / name).symlink_to(bashrc)  # committed in the pull request
    r = write_to(repo, env, writer, name)
    assert r.returncode == 2, r.stdout + r.stderr
    assert bashrc.read_text() == BASHRC
    stderr = r.stderr
    assert f"{name} is a symlink (to {bashrc.resolve()}), so it is not written" in stderr
    assert "Traceback" not in stderr
    no_commands(stderr)
    # The file it leads to, named itself, is the user's own choice.
    r = write_to(repo, env, writer, bashrc.resolve())
    assert r.returncode == 0, r.stderr
    written = bashrc.read_text()
    assert holds in written
    assert written.startswith(BASHRC) == (writer in APPENDS)  # a summary is appended to


@pytest.mark.parametrize("writer", list(WRITERS))
def test_an_output_led_out_by_a_folder_link_or_on_a_fifo_is_refused(
    world: tuple[Path, Path, dict[str, str]], writer: str
) -> None:
    repo, out, env = world
    clean_project(repo)
    _args, name, _holds = WRITERS[writer]
    (repo / "site").symlink_to(out, target_is_directory=True)  # `-o site/...` in the workflow
    r = write_to(repo, env, writer, f"site/{name}")
    assert r.returncode == 2, r.stdout + r.stderr
    assert not (out / name).exists()
    assert "through the symlink" in r.stderr and str(out / name) in r.stderr
    os.mkfifo(repo / name)  # opened for writing, it would block until a reader came
    r = write_to(repo, env, writer, name)
    assert r.returncode == 2 and f"{name} is a FIFO, so it is not written" in r.stderr
    (repo / name).unlink()
    (repo / name).mkdir()
    r = write_to(repo, env, writer, name)
    assert r.returncode == 2 and f"{name} is a folder, so it is not written" in r.stderr


@pytest.mark.parametrize("writer", [w for w in WRITERS if w not in APPENDS])
def test_an_output_is_replaced_whole_never_written_in_place(
    world: tuple[Path, Path, dict[str, str]], writer: str
) -> None:
    repo, _out, env = world
    clean_project(repo)
    _args, name, holds = WRITERS[writer]
    (repo / name).write_text("the old file\n")
    os.link(repo / name, repo / "held")  # a reader that has the old file open sees it whole
    r = write_to(repo, env, writer, name)
    assert r.returncode == 0, r.stderr
    assert holds in (repo / name).read_text()
    assert (repo / "held").read_text() == "the old file\n"
    assert not list(repo.glob(".qrels-lsp-*.tmp"))  # nothing left beside it


# -- named paths: the command line's workspace is the current folder, and only it ------------

LEAK = "leak.qrels.yaml"  # a golden set outside, whose "did you mean" would name `passwd`


def linked_out(repo: Path, out: Path) -> None:
    """``sub/evals -> ../..`` in the checkout (the folder holding it and ``outside``), and an
    outside golden set whose near miss of a secret's name would be suggested."""
    (repo / "sub").mkdir()
    (repo / "sub" / "evals").symlink_to("../..", target_is_directory=True)
    (out / LEAK).write_text("corpus: corpus/\nqueries:\n  q1:\n    relevant: [passwdd]\n")
    (repo / "t.qrels").write_text("q1 0 kb/factory-reset.md 1\n")


def test_a_named_folder_that_leads_out_is_refused_unless_allowed(
    world: tuple[Path, Path, dict[str, str]],
) -> None:
    repo, out, env = world
    linked_out(repo, out)
    r = cli(repo, env, "check", "sub/evals/", "--format", "json")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "sub/evals leads outside the current folder" in r.stderr
    assert "pass --allow-outside" in r.stderr
    no_leak(r.stdout, r.stderr)
    assert LEAK not in r.stdout + r.stderr and "stolen" not in r.stdout + r.stderr
    # The user's own flag: the folder is checked, outside files and all.
    r = cli(repo, env, "check", "sub/evals/", "--format", "json", "--allow-outside")
    assert r.returncode in (0, 1), r.stderr
    assert LEAK in r.stdout


VIA = "sub/evals/outside"
NAMED_OUTSIDE = {
    "check": ["check", f"{VIA}/{LEAK}"],
    "score golden": ["score", f"{VIA}/{LEAK}"],
    "score run": ["score", "support.qrels.yaml", f"{VIA}/stolen.run.yaml"],
    "score absolute": ["score", "{out}/" + LEAK],
    "compare": ["compare", "support.qrels.yaml", "runs/bm25.run.yaml", f"{VIA}/stolen.run.yaml"],
    "gate": ["gate", "support.qrels.yaml", "--base", "bm25", "--head", f"{VIA}/stolen.run.yaml"],
    "pool": ["pool", f"{VIA}/{LEAK}"],
    "report": ["report", f"{VIA}/{LEAK}", "-o", "written"],
    "fuse": ["fuse", "runs/bm25.run.yaml", f"{VIA}/stolen.run.yaml", "-o", "written"],
    "bm25": ["bm25", f"{VIA}/{LEAK}", "-o", "written"],
    "convert": ["convert", f"{VIA}/stolen.run.yaml", "-o", "written"],
    "convert --topics": ["convert", "t.qrels", "-o", "written.yaml", "--topics", f"{VIA}/x.tsv"],
}


@pytest.mark.parametrize("command", list(NAMED_OUTSIDE))
def test_every_command_refuses_a_named_path_outside(
    world: tuple[Path, Path, dict[str, str]], command: str
) -> None:
    repo, out, env = world
    linked_out(repo, out)
    (out / "x.tsv").write_text(f"q1\t{SECRETS[0]}\n")
    words = [w.replace("{out}", str(out)) for w in NAMED_OUTSIDE[command]]
    r = cli(repo, env, *words)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "leads outside the current folder" in r.stderr and "--allow-outside" in r.stderr
    no_leak(r.stdout, r.stderr)
    assert not list(repo.glob("written*"))


def test_a_path_through_the_shells_symlinked_folder_is_inside(
    world: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, _out, env = world
    alias = tmp_path / "alias"
    alias.symlink_to(repo, target_is_directory=True)  # `cd alias`: the shell's $PWD
    r = cli(alias, {**env, "PWD": str(alias)}, "score", alias / "support.qrels.yaml")
    assert r.returncode == 0, r.stderr
