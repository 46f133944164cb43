"""A megabyte of hostile text (tests/hostile_text.py) in each setting and each field, through the
real server: the settings as the editor's start-up options (``initializationOptions``) and as its
answer to ``workspace/configuration``, the fields in the documents it opens. Each document gets
its diagnostics and answers a lens, an outline and a hover request, each waited for at most
:data:`TIMEOUT` (a request not answered by then is the failure, never a measured duration);
nothing is logged or shown as an error, no traceback reaches stderr, and the server stays under
1 GB.

The default run: the blanks of the issue in every setting and every field at once. The slow run:
every text, every setting at once and then each alone, every field at once and then each alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from bounded import GIGABYTE, peak_rss
from fuzz.driver import Server
from hostile_text import (
    BASE,
    FIELDS,
    SETTING_SHAPES,
    TEXTS,
    as_text,
    every_field,
    settings,
    with_field,
    write,
)
from lsprotocol import types

TIMEOUT = 120.0
"""Seconds to wait for each answer: a fixed build gives it in seconds, a backtracking pattern on a
megabyte of blanks in hours."""
DOCUMENTS = ("g.qrels.yaml", "runs/a.run.yaml", "runs/b.trec", "judgments.qrels")


def server_for(tmp_path: Path, files: dict[str, str | bytes], hostile: object) -> Server:
    """The server on ``files``, with the ``hostile`` settings at start-up and as the answer to
    workspace/configuration."""
    root = write(tmp_path / "ws", files)
    return Server(
        root,
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
        init_options={"qrels": hostile} if hostile is not None else None,
        configuration=hostile,
    )


def answers(srv: Server, name: str, content: str | bytes, version: int) -> None:
    """The document at ``name`` opened (or changed) to ``content``: its diagnostics, then a lens,
    an outline and a hover answered, each within the bound."""
    uri = (srv.root / name).as_uri()
    text = as_text(content)
    if version == 1:
        srv.open(uri, text)
    else:
        srv.change(uri, version, text)
    assert srv.diagnostics(uri, version, timeout=TIMEOUT) is not None, name
    doc = types.TextDocumentIdentifier(uri=uri)
    requests = {
        types.TEXT_DOCUMENT_CODE_LENS: types.CodeLensParams(text_document=doc),
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL: types.DocumentSymbolParams(text_document=doc),
        types.TEXT_DOCUMENT_HOVER: types.HoverParams(
            text_document=doc, position=types.Position(line=0, character=0)
        ),
    }
    for method, params in requests.items():
        answer = srv.request(method, params, timeout=TIMEOUT)
        assert not answer.timed_out and answer.error is None, (name, method)


def healthy(srv: Server) -> None:
    assert srv.problems() == []
    assert peak_rss(srv.pid) < GIGABYTE


@pytest.fixture
def closing() -> Iterator[list[Server]]:
    servers: list[Server] = []
    yield servers
    for srv in servers:
        assert srv.close() == 0


def every_slot_at_once(tmp_path: Path, text: str | bytes, closing: list[Server]) -> None:
    files = every_field(text)
    srv = server_for(tmp_path, files, settings(as_text(text)))
    closing.append(srv)
    for name in DOCUMENTS:
        answers(srv, name, files[name], 1)
    healthy(srv)


def test_the_blanks_in_every_setting_and_field(tmp_path: Path, closing: list[Server]) -> None:
    every_slot_at_once(tmp_path, TEXTS["blanks"], closing)


def test_a_megabyte_metric_name_answered_to_workspace_configuration(
    tmp_path: Path, closing: list[Server]
) -> None:
    """The issue's name (``"a"`` + a megabyte of blanks + ``"x"``) as a metric, answered to
    workspace/configuration after a change: the golden set is analysed again and answered."""
    srv = server_for(tmp_path, dict(BASE), None)
    closing.append(srv)
    answers(srv, "g.qrels.yaml", BASE["g.qrels.yaml"], 1)
    srv.configure(settings(as_text(TEXTS["blanks"]), ("metrics",)))
    answers(srv, "g.qrels.yaml", BASE["g.qrels.yaml"], 2)
    healthy(srv)


@pytest.mark.slow
@pytest.mark.parametrize("text", TEXTS)
def test_every_setting_and_field(tmp_path: Path, text: str, closing: list[Server]) -> None:
    every_slot_at_once(tmp_path, TEXTS[text], closing)


@pytest.mark.slow
@pytest.mark.parametrize("text", TEXTS)
def test_each_setting_and_field_alone(tmp_path: Path, text: str, closing: list[Server]) -> None:
    """One server per text: each setting alone answered to workspace/configuration, then each
    field alone in its document (the documents changed, one version after another)."""
    hostile = TEXTS[text]
    srv = server_for(tmp_path, dict(BASE), None)
    closing.append(srv)
    versions = dict.fromkeys(DOCUMENTS, 1)
    for name in DOCUMENTS:
        answers(srv, name, BASE[name], 1)
    for key in SETTING_SHAPES:
        srv.configure(settings(as_text(hostile), (key,)))
        versions["g.qrels.yaml"] += 1
        answers(srv, "g.qrels.yaml", BASE["g.qrels.yaml"], versions["g.qrels.yaml"])
    for field, (name, _old, _new) in FIELDS.items():
        versions[name] += 1
        answers(srv, name, with_field(dict(BASE), field, hostile)[name], versions[name])
    healthy(srv)
