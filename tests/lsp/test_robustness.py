"""Hostile files in the real server over stdio: each gets a located diagnostic in bounded time and
the server keeps answering; mutated documents through every request (hypothesis, bounded); and a
full session that writes nothing to the workspace, opens no network socket and runs nothing.

Parser-level variants of these inputs are in tests/test_adversarial.py, test_yaml_properties.py
and test_corpus.py; the long fuzz run is tests/fuzz/run.py.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import examples
from fuzz.corpus import SEEDS
from fuzz.driver import SERVER, Server
from fuzz.exercise import exercise, position_at
from fuzz.mutate import mutate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from .conftest import EXAMPLES

GOLDEN = "support.qrels.yaml"


def make_workspace(root: Path) -> Path:
    shutil.copytree(EXAMPLES, root)
    return root


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server (Neovim 0.11's capabilities: UTF-8 columns) for the whole module."""
    root = make_workspace(tmp_path_factory.mktemp("robust") / "ws")
    srv = Server(root, "neovim@0.11", env={"XDG_CACHE_HOME": str(root.parent / "cache")})
    yield srv
    assert srv.close() == 0


def still_answers(server: Server) -> None:
    """The demo golden set's outline comes back: the server is alive and responsive."""
    uri = (server.root / GOLDEN).as_uri()
    answer = server.request(
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL,
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri)),
        timeout=30,
    )
    assert answer.error is None and answer.result, answer
    problems = server.problems()
    server.reset_problems()
    assert not problems, problems


_counter = iter(range(10**6))


def open_and_diagnose(
    server: Server, text: str, name: str | None = None, timeout: float = 60
) -> tuple[str, list[types.Diagnostic], float]:
    """Open ``text`` as a new golden set; its diagnostics for version 1 and the time taken."""
    name = name or f"adv{next(_counter)}.qrels.yaml"
    uri = (server.root / name).as_uri()
    began = time.monotonic()
    server.open(uri, text, 1)
    diags = server.diagnostics(uri, 1, timeout=timeout)
    took = time.monotonic() - began
    assert diags is not None, f"no diagnostics for {name}"
    return uri, diags, took


def at(text: str, needle: str, server: Server, length: int | None = None) -> types.Range:
    """The range of ``needle`` in the server's encoding, computed independently of the server."""
    start = text.index(needle)
    end = start + (len(needle) if length is None else length)
    return types.Range(
        start=position_at(text, start, server.encoding), end=position_at(text, end, server.encoding)
    )


def only(diags: list[types.Diagnostic], code: str) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == code]


# -- hostile YAML ------------------------------------------------------------------------------


def test_alias_bomb(server: Server) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 12):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    text = "\n".join(lines) + "\nqueries:\n  q:\n    question: *l\n    relevant: *l\n"
    _uri, diags, took = open_and_diagnose(server, text)
    assert took < 20
    assert only(diags, "QR002")[0].range.start == at(text, "&a", server).start
    still_answers(server)


def test_deep_nesting(server: Server) -> None:
    text = "queries:\n  q:\n    relevant: " + "[" * 10_000 + "a" + "]" * 10_000 + "\n"
    _uri, diags, took = open_and_diagnose(server, text)
    [syntax] = only(diags, "QR001")
    assert "nesting" in syntax.message and syntax.range.start.line == 2
    assert took < 20
    still_answers(server)


@pytest.mark.slow
def test_50_mb_golden_set(server: Server) -> None:
    block = "  q{}:\n    question: how do I reset the router\n    relevant: [kb/factory-reset.md]\n"
    parts, size, n = ["queries:\n"], 0, 0
    while size < 50 * 2**20:
        parts.append(block.format(n))
        size += len(parts[-1])
        n += 1
    text = "".join(parts)
    _uri, diags, took = open_and_diagnose(server, text, timeout=120)
    [too_big] = only(diags, "QR006")
    assert too_big.range.start == types.Position(line=0, character=0)
    assert "M characters" in too_big.message
    assert took < 60
    still_answers(server)


def test_one_million_character_line(server: Server) -> None:
    question = "😀" * 1000 + "x" * 999_000
    text = f'queries:\n  q: {{question: "{question}", relevant: [kb/nope-日本.md]}}\n'
    _uri, diags, took = open_and_diagnose(
        server, text.replace("queries", "corpus: corpus/\nqueries")
    )
    text = text.replace("queries", "corpus: corpus/\nqueries")
    [unknown] = only(diags, "QR106")
    assert unknown.range == at(text, "kb/nope-日本.md", server)
    assert unknown.range.start.character > 1_000_000
    assert took < 30
    still_answers(server)


def test_nul_bytes(server: Server) -> None:
    text = "queries:\n  q\x00: x\n"
    _uri, diags, _took = open_and_diagnose(server, text)
    [syntax] = only(diags, "QR001")
    assert syntax.range.start == at(text, "\x00", server).start
    still_answers(server)


def test_invalid_utf8_as_the_editor_decodes_it(server: Server) -> None:
    raw = (
        (EXAMPLES / GOLDEN)
        .read_bytes()
        .replace(b"kb/local-admin-page.md", b"kb/local-\xff-page.md")
    )
    text = raw.decode("utf-8", "replace")  # what VS Code and Neovim show and send
    _uri, diags, _took = open_and_diagnose(server, text)
    [bad] = only(diags, "QR006")
    assert bad.range == at(text, "\ufffd", server)
    assert bad.severity == types.DiagnosticSeverity.Warning
    assert at(text, "kb/local-\ufffd-page.md", server) in [d.range for d in only(diags, "QR106")]
    still_answers(server)


def test_bom(server: Server) -> None:
    text = "\ufeffcorpus: nowhere/\nqueries:\n  q:\n    question: hi\n    relevant: [a]\n"
    _uri, diags, _took = open_and_diagnose(server, text)
    [missing] = only(diags, "QR109")
    assert missing.range == at(text, "nowhere/", server)  # the BOM counts as a character
    still_answers(server)


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_crlf_and_lone_cr(server: Server, newline: str) -> None:
    lf = (EXAMPLES / GOLDEN).read_text(encoding="utf-8")
    text = lf.replace("\n", newline)
    _uri, diags, _took = open_and_diagnose(server, text)
    _uri, lf_diags, _took = open_and_diagnose(server, lf)
    assert [(d.code, d.range) for d in diags] == [(d.code, d.range) for d in lf_diags]
    assert at(lf, "errors/e1107-weak-backhual.md", server) in [d.range for d in diags]
    still_answers(server)


def test_tabs(server: Server) -> None:
    text = "queries:\n\tq:\n\t\tquestion: hi\n"
    _uri, diags, _took = open_and_diagnose(server, text)
    [syntax] = only(diags, "QR001")
    assert syntax.range.start == types.Position(line=1, character=0)
    still_answers(server)


def test_python_tags_are_never_constructed(server: Server, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    text = (
        f"corpus: !!python/object/apply:os.system ['touch {marker}']\n"
        "queries:\n"
        f"  q:\n    question: !!python/object/apply:subprocess.call [['touch', '{marker}']]\n"
        "    relevant: [a]\n"
    )
    _uri, diags, _took = open_and_diagnose(server, text)
    tags = only(diags, "QR002")
    assert tags[0].range.start == at(text, "!!python", server).start
    assert len(tags) == 2
    time.sleep(0.5)
    assert not marker.exists()
    still_answers(server)


# -- hostile files on disk ---------------------------------------------------------------------


def golden_pointing_at(corpus: str, runs: str = "[]") -> str:
    return (
        f"corpus: {corpus}\nruns: {runs}\nqueries:\n  q:\n    question: how do I reset\n"
        "    relevant: [kb/factory-reset.md]\n"
    )


def test_corpus_folder_with_a_symlink_loop(server: Server) -> None:
    folder = server.root / "loopy"
    shutil.copytree(server.root / "corpus", folder)
    (folder / "kb" / "loop").symlink_to(folder, target_is_directory=True)
    text = golden_pointing_at("loopy/").replace(
        "[kb/factory-reset.md]", "[kb/factory-reset.md, nope.md]"
    )
    _uri, diags, took = open_and_diagnose(server, text)
    assert [d.range for d in only(diags, "QR106")] == [at(text, "nope.md", server)]
    assert took < 20
    (server.root / "a").symlink_to(server.root / "b")
    (server.root / "b").symlink_to(server.root / "a")
    text = golden_pointing_at("a")
    _uri, diags, _took = open_and_diagnose(server, text)
    [loop] = only(diags, "QR109")
    assert loop.range == at(text, "a\n", server, 1)
    still_answers(server)


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "huge-binary"])
def test_corpus_and_runs_that_must_not_be_read(server: Server, kind: str) -> None:
    root = server.root
    if kind == "dev-zero":
        corpus, run = "/dev/zero", "/dev/zero"
    elif kind == "fifo":
        os.mkfifo(root / "pipe.jsonl")
        os.mkfifo(root / "pipe.trec")
        corpus, run = "pipe.jsonl", "pipe.trec"
    else:
        with (root / "huge.jsonl").open("wb") as f:
            f.truncate(2 * 2**30)  # 2 GB of NUL bytes (sparse: nothing on disk)
        os.link(root / "huge.jsonl", root / "huge.trec")
        corpus, run = "huge.jsonl", "huge.trec"
    text = golden_pointing_at(corpus, f"[{run}]")
    _uri, diags, took = open_and_diagnose(server, text)
    assert took < 20
    if kind == "dev-zero":  # outside the workspace: refused before anything looks at it
        corpus_refused, run_refused = only(diags, "QR112")
        assert corpus_refused.range == at(text, corpus, server)
        assert run_refused.range == at(text, f"{run}]", server, len(run))
        assert "outside the workspace" in run_refused.message
        still_answers(server)
        return
    [refused] = only(diags, "QR109")
    assert refused.range == at(text, corpus, server)
    assert re.search(r"device|FIFO|binary", refused.message), refused.message
    [unscored] = only(diags, "QR111")
    assert unscored.range == at(text, f"{run}]", server, len(run))
    assert re.search(r"device|FIFO|larger than", unscored.message), unscored.message
    still_answers(server)


def test_corpus_deleted_then_replaced_while_open(server: Server) -> None:
    root = server.root
    shutil.copytree(root / "corpus", root / "moving")
    text = golden_pointing_at("moving/")
    uri, diags, _took = open_and_diagnose(server, text)
    assert not only(diags, "QR109") and not only(diags, "QR106")

    def announce_and_wait(code: str | None, needle: str) -> list[types.Diagnostic]:
        server.notify(
            types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            types.DidChangeWatchedFilesParams(
                changes=[
                    types.FileEvent(
                        uri=(root / "moving").as_uri(), type=types.FileChangeType.Changed
                    )
                ]
            ),
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            diags = list(server.client.diagnostics.get(uri, []))
            if code is None or any(d.code == code and needle in d.message for d in diags):
                return diags
            time.sleep(0.05)
        raise AssertionError(f"no {code} about {needle!r}: {diags}")

    shutil.rmtree(root / "moving")
    [gone] = only(announce_and_wait("QR109", "does not exist"), "QR109")
    assert gone.range == at(text, "moving/", server)
    os.mkfifo(root / "moving")
    announce_and_wait("QR109", "FIFO")
    os.unlink(root / "moving")
    (root / "moving").mkdir()
    (root / "moving" / "other.md").write_text("other", encoding="utf-8")
    diags = announce_and_wait("QR106", "kb/factory-reset.md")
    assert not only(diags, "QR109")
    still_answers(server)


# -- configuration -----------------------------------------------------------------------------


def test_config_that_is_not_toml(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    config = root / "qrels-lsp.toml"
    config.write_bytes(b"k = 5\n\x00\xff\xfe garbage [[[\n")
    srv = Server(root, "emacs@29.1")
    try:
        config_uri = config.as_uri()
        srv.diagnostics(config_uri, None, timeout=30)
        [bad] = [d for d in srv.client.diagnostics[config_uri] if d.code == "QR401"]
        assert bad.range.start.line == 1 and "Not valid TOML" in bad.message
        uri = (root / GOLDEN).as_uri()
        srv.open(uri, (root / GOLDEN).read_text(encoding="utf-8"))
        assert srv.diagnostics(uri, 1)  # defaults are used: the golden set is still checked
        # Fixed on disk: the diagnostic goes; broken again: it comes back.
        for content, expected in ((b"k = 5\n", 0), (b"k = [\n", 1)):
            config.write_bytes(content)
            srv.notify(
                types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                types.DidChangeWatchedFilesParams(
                    changes=[types.FileEvent(uri=config_uri, type=types.FileChangeType.Changed)]
                ),
            )
            deadline = time.monotonic() + 30
            while len(srv.client.diagnostics.get(config_uri, [])) != expected:
                assert time.monotonic() < deadline, srv.client.diagnostics.get(config_uri)
                time.sleep(0.05)
        still_answers(srv)
    finally:
        assert srv.close() == 0


# -- unreadable files --------------------------------------------------------------------------


def _unprivileged(command: list[str]) -> list[str] | None:
    """Root reads any file: drop the capabilities that let it (setpriv), so that mode 000 means
    unreadable to the server as it does to a user. None where that cannot be done."""
    if os.geteuid() != 0:
        return command
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    caps = "-dac_override,-dac_read_search"
    return [setpriv, f"--bounding-set={caps}", f"--inh-caps={caps}", *command]


def test_unreadable_corpus_and_run(tmp_path: Path) -> None:
    command = _unprivileged(list(SERVER))
    if command is None:
        pytest.skip("running as root without setpriv: permissions cannot be made to bind")
    root = make_workspace(tmp_path / "ws")
    (root / "secret.jsonl").write_text('{"_id": "kb/factory-reset.md", "text": "x"}\n')
    (root / "secret.trec").write_text("q Q0 kb/factory-reset.md 1 1.0 r\n")
    (root / "secret.jsonl").chmod(0)
    (root / "secret.trec").chmod(0)
    srv = Server(root, "visual-studio-code", command=command)
    try:
        text = golden_pointing_at("secret.jsonl", "[secret.trec]")
        _uri, diags, _took = open_and_diagnose(srv, text)
        [corpus] = only(diags, "QR109")
        assert corpus.range == at(text, "secret.jsonl", srv) and "unreadable" in corpus.message
        [run] = only(diags, "QR111")
        assert run.range == at(text, "secret.trec]", srv, 11) and "unreadable" in run.message
        still_answers(srv)
    finally:
        assert srv.close() == 0


# -- mutated documents through every request ---------------------------------------------------


@settings(
    max_examples=examples(6),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=True,
)
@given(st.integers(0, 2**31 - 1))
def test_mutated_documents_through_every_request(server: Server, seed: int) -> None:
    """Open, change, every request, close: no internal error, no wrong range, no damaging edit
    (see fuzz/exercise.py); the long version of this is `python tests/fuzz/run.py`."""
    rng = random.Random(seed)
    target = rng.choice([s for s in SEEDS if s.kind in ("golden", "run-yaml", "trec-run")])
    first = mutate(rng, target.text, target.mutators)
    second = mutate(rng, first, target.mutators)
    uri = (server.root / target.path).as_uri()
    server.open(uri, first, 1, target.language)
    server.change(uri, 2, second)
    exercise(server, uri, second, 2, rng)
    server.close_doc(uri)
    problems = server.problems()
    server.reset_problems()
    assert not problems, problems


# -- what the server does not do ---------------------------------------------------------------


def snapshot(root: Path) -> dict[str, tuple[int, int, str]]:
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            st = path.stat()
            out[str(path.relative_to(root))] = (
                st.st_size,
                st.st_mtime_ns,
                hashlib.sha256(path.read_bytes()).hexdigest(),
            )
        else:
            out[str(path.relative_to(root))] = (0, 0, "dir" if path.is_dir() else "other")
    return out


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
@pytest.mark.slow
def test_a_session_writes_nothing_opens_no_socket_runs_nothing(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "ws")
    marker = tmp_path / "pwned"
    (root / "tags.qrels.yaml").write_text(
        f"corpus: corpus/\nqueries:\n  q:\n    question: !!python/object/apply:os.system "
        f"['touch {marker}']\n    relevant: [kb/factory-reset.md]\n",
        encoding="utf-8",
    )
    before = snapshot(root)
    trace = tmp_path / "strace.log"
    command = ["strace", "-f", "-qq", "-e", "trace=network,execve", "-o", str(trace), *SERVER]
    srv = Server(
        root, "visual-studio-code", command=command, env={"XDG_CACHE_HOME": str(tmp_path / "cache")}
    )
    try:
        rng = random.Random(1)
        for rel in (
            GOLDEN,
            "runs/bm25.run.yaml",
            "runs/dense.run.yaml",
            "runs/hybrid.trec",
            "tags.qrels.yaml",
        ):
            uri = (root / rel).as_uri()
            text = (root / rel).read_text(encoding="utf-8")
            srv.open(uri, text, 1, "plaintext" if rel.endswith(".trec") else "yaml")
            srv.change(uri, 2, text)
            exercise(srv, uri, text, 2, rng)
            srv.close_doc(uri)
        assert not srv.problems(), srv.problems()
    finally:
        assert srv.close() == 0
    assert snapshot(root) == before
    assert not marker.exists()
    log = trace.read_text(encoding="utf-8")
    execs = [line for line in log.splitlines() if "execve(" in line and "= 0" in line]
    assert len(execs) == 1 and sys.executable.split("/")[-1] in execs[0], execs
    sockets = re.findall(r"\b(socket|socketpair)\((AF_\w+)", log)
    assert all(family == "AF_UNIX" for _call, family in sockets), sockets  # asyncio's self-pipe
    for line in log.splitlines():
        call = re.search(r"\b(connect|bind|listen|accept4?|sendto|sendmsg)\(", line)
        if call and ("sa_family=" in line or call.group(1) in ("connect", "bind", "listen")):
            assert "sa_family=AF_UNIX" in line, line
