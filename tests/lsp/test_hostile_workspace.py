"""The real server over stdio, opened on somebody else's repository: paths, globs and symlinks
that lead out of the workspace, settings and file-watching storms. Every request is answered
within 5 s, the server stays under 1 GB, nothing outside the workspace is read, listed or shown,
and (under strace) the process touches no file outside the workspace, the cache and Python.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bounded import GIGABYTE, peak_rss
from fuzz.driver import SERVER, Server
from fuzz.exercise import exercise, position_at
from lsprotocol import types

from .conftest import EXAMPLES

SECRET_TEXT = "root:x:0:0:secret-line"


def make_world(tmp_path: Path) -> tuple[Path, Path]:
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLES, ws)
    out = tmp_path / "outside"
    (out / "corpus").mkdir(parents=True)
    (out / "corpus" / "passwd").write_text(SECRET_TEXT + "\n")
    (out / "corpus" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (out / "other.qrels.yaml").write_text("queries:\n  how-do-i-reset:\n    relevant: [x]\n")
    (out / "stolen.run.yaml").write_text("results:\n  q: [passwd]\n")
    (ws / "corpus-link").symlink_to(out / "corpus", target_is_directory=True)
    (ws / "runs" / "stolen.run.yaml").symlink_to(out / "stolen.run.yaml")
    (ws / "evil.qrels.yaml").write_text(
        "corpus: corpus-link\n"
        f"runs: ['{out}/*.yaml', '/**/**/**/*', runs/stolen.run.yaml, runs/bm25.run.yaml]\n"
        "queries:\n"
        "  q:\n"
        "    question: what is in the password file\n"
        "    relevant: [passwd, ]\n"
    )
    (ws / "runs" / "orphan.run.yaml").write_text(
        "qrels: ../../outside/other.qrels.yaml\nresults:\n  how-do-i-reset: [passwd, id_rsa]\n"
    )
    return ws, out


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Server, Path, Path]]:
    ws, out = make_world(tmp_path)
    srv = Server(ws, "visual-studio-code", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    yield srv, ws, out
    assert peak_rss(srv.pid) < GIGABYTE
    assert srv.close() == 0


def leaks(value: object) -> list[str]:
    """What of the outside reached an answer: file contents, or an id only the outside corpus
    holds (``passwd`` is also the golden set's own id, so it may be quoted back)."""
    text = json.dumps(value, default=lambda o: getattr(o, "__dict__", str(o)))
    return [s for s in (SECRET_TEXT, "id_rsa", "BEGIN OPENSSH") if s in text]


def at(text: str, needle: str, encoding: str) -> types.Position:
    return position_at(text, text.index(needle), encoding)


def open_file(srv: Server, path: Path) -> tuple[str, str]:
    uri, text = path.as_uri(), path.read_text()
    srv.open(uri, text)
    return uri, text


def test_paths_out_of_the_workspace_are_refused(world: tuple[Server, Path, Path]) -> None:
    srv, ws, _out = world
    began = time.monotonic()
    uri, text = open_file(srv, ws / "evil.qrels.yaml")
    diags = srv.diagnostics(uri, 1, timeout=10) or []
    assert time.monotonic() - began < 5, "the glob bomb was walked"
    refused = [d for d in diags if d.code == "QR112"]
    assert len(refused) == 4, [d.message for d in diags]  # corpus, two globs, the linked run
    assert not [d for d in diags if d.code == "QR106"]  # no corpus: no "did you mean `passwd`"
    assert not leaks([d.message for d in diags])
    doc = types.TextDocumentIdentifier(uri=uri)
    where = at(text, "passwd", srv.encoding)
    requests = {
        types.TEXT_DOCUMENT_HOVER: types.HoverParams(text_document=doc, position=where),
        types.TEXT_DOCUMENT_DEFINITION: types.DefinitionParams(text_document=doc, position=where),
        types.TEXT_DOCUMENT_REFERENCES: types.ReferenceParams(
            text_document=doc,
            position=where,
            context=types.ReferenceContext(include_declaration=True),
        ),
        types.TEXT_DOCUMENT_COMPLETION: types.CompletionParams(
            text_document=doc, position=at(text, ", ]", srv.encoding)
        ),
        types.TEXT_DOCUMENT_CODE_LENS: types.CodeLensParams(text_document=doc),
        types.TEXT_DOCUMENT_INLAY_HINT: types.InlayHintParams(
            text_document=doc,
            range=types.Range(
                start=types.Position(line=0, character=0), end=at(text, "]\n", srv.encoding)
            ),
        ),
    }
    for method, params in requests.items():
        answer = srv.request(method, params, timeout=5)
        assert answer.error is None and not answer.timed_out, method
        assert not leaks(answer.result), f"{method} showed what lies outside: {answer.result}"
        found = answer.result if isinstance(answer.result, list) else []
        for location in found:
            target = getattr(location, "uri", None)
            if target is not None:
                assert target.startswith(ws.as_uri()), f"{method} pointed outside: {target}"
    assert not srv.problems(), srv.problems()


def test_a_run_bound_outside_gets_no_edits_and_no_scores(world: tuple[Server, Path, Path]) -> None:
    srv, ws, out = world
    uri, text = open_file(srv, ws / "runs" / "orphan.run.yaml")
    diags = srv.diagnostics(uri, 1, timeout=10) or []
    assert [d.code for d in diags if d.code == "QR112"] == ["QR112"]
    doc = types.TextDocumentIdentifier(uri=uri)
    where = at(text, "how-do-i-reset", srv.encoding)
    rename = srv.request(
        types.TEXT_DOCUMENT_RENAME,
        types.RenameParams(text_document=doc, position=where, new_name="renamed"),
    )
    assert rename.result is None and rename.code == -32803  # refused: no golden set to edit
    actions = srv.request(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionParams(
            text_document=doc,
            range=types.Range(
                start=at(text, "passwd", srv.encoding), end=at(text, "passwd", srv.encoding)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        ),
    ).result
    for action in actions or []:
        for change in (action.edit.document_changes or []) if action.edit else []:
            assert change.text_document.uri.startswith(ws.as_uri()), change
    lenses = srv.request(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensParams(text_document=doc))
    assert not lenses.result  # nothing scores it
    assert (out / "other.qrels.yaml").read_text().endswith("[x]\n")


def test_the_report_is_not_written_through_a_symlink_at_its_name(
    world: tuple[Server, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report goes to the user's cache; a symlink planted at its file's name (the cache is
    the user's, but the rule is the command line's: no write through a link) is not followed."""
    from qrels_lsp.ide.report import report_file

    srv, ws, out = world
    golden = ws / "support.qrels.yaml"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # the server's (the fixture)
    target = report_file(golden)
    target.parent.mkdir(parents=True)
    bashrc = out / "bashrc"
    bashrc.write_text("export PS1=original\n")
    target.symlink_to(bashrc)
    uri, _text = open_file(srv, golden)
    assert srv.diagnostics(uri, 1, timeout=30) is not None
    command = types.ExecuteCommandParams("qrels-lsp.report", [{"path": str(golden)}])
    answer = srv.request(types.WORKSPACE_EXECUTE_COMMAND, command, timeout=60)
    assert answer.error is None and answer.result is None
    assert bashrc.read_text() == "export PS1=original\n"
    said = [m.message for m in srv.client.messages]
    assert any("could not be written" in m and "is a symlink" in m for m in said), said
    target.unlink()  # the link gone, the report is written
    answer = srv.request(types.WORKSPACE_EXECUTE_COMMAND, command, timeout=60)
    assert answer.result == {"path": str(target)}
    assert "<!DOCTYPE html>" in target.read_text(encoding="utf-8")


@pytest.mark.slow
def test_settings_and_watched_file_storms(world: tuple[Server, Path, Path]) -> None:
    srv, ws, out = world
    uri, _text = open_file(srv, ws / "support.qrels.yaml")
    assert srv.diagnostics(uri, 1, timeout=10) is not None
    settings = {f"unknown{i}": i for i in range(50_000)}
    settings["qrels"] = [{"path": f"q{i}.txt", "runs": ["/**/*"]} for i in range(100_000)]
    settings["golden"] = ["/**/*.yaml", "/**/**/**/*"]
    settings["allow_outside"] = "not a list"
    began = time.monotonic()
    srv.notify(
        types.WORKSPACE_DID_CHANGE_CONFIGURATION,
        types.DidChangeConfigurationParams(settings={"qrels": settings}),
    )
    symbols = srv.request(types.WORKSPACE_SYMBOL, types.WorkspaceSymbolParams(query=""), timeout=5)
    assert not symbols.timed_out and time.monotonic() - began < 5
    for symbol in symbols.result or []:
        assert symbol.location.uri.startswith(ws.as_uri())
    shown = [m for m in srv.client.messages if "qrels-lsp" in m.message]
    assert len(shown) == 1 and "more problems" in shown[0].message
    changes = [
        types.FileEvent(uri=u, type=types.FileChangeType.Changed)
        for u in [
            "file:///%00",
            (out / "corpus" / "passwd").as_uri(),
            "file:///etc/passwd",
            "untitled:x",
        ]
    ]
    began = time.monotonic()
    for _ in range(500):
        srv.notify(
            types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            types.DidChangeWatchedFilesParams(changes=changes * 10),
        )
    answer = srv.request(
        types.TEXT_DOCUMENT_CODE_LENS,
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)),
        timeout=5,
    )
    assert answer.result and time.monotonic() - began < 5
    for i in range(200):  # a configuration change loop
        srv.notify(
            types.WORKSPACE_DID_CHANGE_CONFIGURATION,
            types.DidChangeConfigurationParams(settings={"qrels": {"k": 1 + i % 7}}),
        )
    answer = srv.request(
        types.TEXT_DOCUMENT_HOVER,
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=0, character=0),
        ),
        timeout=5,
    )
    assert not answer.timed_out
    srv.reset_problems()


def test_the_users_own_settings_allow_outside(tmp_path: Path) -> None:
    ws, out = make_world(tmp_path)
    srv = Server(
        ws,
        "neovim@0.11",
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
        init_options={"qrels": {"allow_outside": [str(out)], "bm25_baseline": False}},
    )
    try:
        uri, _text = open_file(srv, ws / "evil.qrels.yaml")
        diags = srv.diagnostics(uri, 1, timeout=10) or []
        refused = [d.message for d in diags if d.code == "QR112"]
        assert len(refused) == 1 and "/**/**/**/*" in refused[0]  # the rest is the user's
        assert not [d for d in diags if d.code == "QR106"]  # passwd is in the allowed corpus
    finally:
        assert srv.close() == 0


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
@pytest.mark.slow
def test_a_hostile_session_touches_nothing_outside(tmp_path: Path) -> None:
    ws, out = make_world(tmp_path)
    trace = tmp_path / "strace.log"
    cache = tmp_path / "cache"
    command = ["strace", "-f", "-qq", "-e", "trace=%file,execve,network", "-o", str(trace), *SERVER]
    srv = Server(ws, "visual-studio-code", command=command, env={"XDG_CACHE_HOME": str(cache)})
    try:
        rng = random.Random(5)
        # (runs/stolen.run.yaml links outside: it is named by the golden set, never opened, as
        # opening it is the user's own choice to read it.)
        for rel in ("evil.qrels.yaml", "runs/orphan.run.yaml", "support.qrels.yaml"):
            path = ws / rel
            uri, text = path.as_uri(), path.read_text()
            srv.open(uri, text, 1)
            srv.change(uri, 2, text)
            exercise(srv, uri, text, 2, rng)
            srv.close_doc(uri)
        srv.request(
            types.TEXT_DOCUMENT_HOVER,
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=(out / "other.qrels.yaml").as_uri()),
                position=types.Position(line=1, character=3),
            ),
        )
        srv.reset_problems()
    finally:
        assert srv.close() == 0
    touched = {
        Path(os.path.normpath(m.group(1)))
        for m in re.finditer(
            r'^\d+\s+\w+\((?:AT_FDCWD, |\d+, )?"(/[^"]*)"', trace.read_text(), re.M
        )
    }
    python = [Path(p) for p in {sys.prefix, sys.base_prefix, *sys.path} if p]
    python.append(Path(__file__).resolve().parents[2] / "server")
    python_parents = {a for p in python for a in Path(os.path.realpath(p)).parents}
    strays = [
        p
        for p in touched
        if not _under(p, [ws, cache, *python])
        and p not in python_parents
        and not _system(p)
        and not (
            p in [ws, *ws.parents]
            or (p.parent in [ws, *ws.parents] and p.name in ("qrels-lsp.toml", "pyproject.toml"))
        )
    ]
    assert not strays, f"touched outside the workspace: {sorted(strays)[:10]}"
    assert not [p for p in touched if _under(p, [out])]


def _under(path: Path, roots: list[Path]) -> bool:
    real = [Path(os.path.realpath(r)) for r in roots]
    return any(path == r or r in path.parents for r in real)


def _system(path: Path) -> bool:
    text = str(path)
    if re.fullmatch(r".*/lib/python\d+\.zip", text):
        return True
    return text.startswith(
        ("/proc/", "/sys/", "/dev/", "/usr/lib", "/lib", "/usr/share/")
    ) or text in (
        "/etc/ld.so.cache",
        "/etc/localtime",
        "/etc/ld.so.preload",
        "/",
        "/tmp",
        "/usr/bin",
        "/usr/local/bin",
    )


def test_settings_the_workspace_can_answer_cannot_widen(tmp_path: Path) -> None:
    """`allow_outside` counts only from the editor's start-up options: settings pulled or pushed
    later may come from the workspace (eglot answers them from a project's .dir-locals.el)."""
    ws, _out = make_world(tmp_path)
    srv = Server(ws, "emacs@29.1", env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    try:
        srv.notify(
            types.WORKSPACE_DID_CHANGE_CONFIGURATION,
            types.DidChangeConfigurationParams(settings={"qrels": {"allow_outside": True}}),
        )
        uri, _text = open_file(srv, ws / "evil.qrels.yaml")
        diags = srv.diagnostics(uri, 1, timeout=10) or []
        assert len([d for d in diags if d.code == "QR112"]) == 4
        assert any("restart the server" in m.message for m in srv.client.messages)
        srv.reset_problems()
    finally:
        assert srv.close() == 0
