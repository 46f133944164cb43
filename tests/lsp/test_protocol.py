"""The protocol under a broken or hostile client, over the real server's stdio with raw bytes:
every request is answered (an error when it cannot be served), a wrong Content-Length does not
swallow what follows, and `exit` ends the process whatever it is doing.

The framing itself (lsp/transport.py) is also checked in process against a plain reference on
random streams cut at random places.
"""

from __future__ import annotations

import fcntl
import itertools
import json
import random
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.lsp.compat import PIPE_BYTES
from qrels_lsp.lsp.transport import Framer, Skipped

from .conftest import EXAMPLES
from .raw import RawClient, frame

GOLDEN = "support.qrels.yaml"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    c = RawClient(root, env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    c.initialize({"qrels": {"bm25_baseline": False}})
    yield c
    c.kill()


def hover(c: RawClient, msg_id: int, uri: str, position: object) -> None:
    c.request(msg_id, "textDocument/hover", {"textDocument": {"uri": uri}, "position": position})


def alive(c: RawClient, msg_id: int) -> None:
    """A well-formed request after the abuse is still answered with a result."""
    uri = (c.root / GOLDEN).as_uri()
    c.request(msg_id, "textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    answer = c.answer(msg_id)
    assert answer.get("result"), answer


def test_malformed_requests_are_answered_with_errors(client: RawClient) -> None:
    uri = (client.root / GOLDEN).as_uri()
    client.notify(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": uri,
                "languageId": "yaml",
                "version": 1,
                "text": (client.root / GOLDEN).read_text(),
            }
        },
    )
    cases = {
        2: {"line": -1, "character": 5},
        3: {"line": 2**40, "character": 0},
        4: "here",
        5: {"line": 1},
    }
    for msg_id, position in cases.items():
        hover(client, msg_id, uri, position)
    for msg_id in cases:
        assert client.answer(msg_id)["error"]["code"] == -32602
    hover(client, 6, uri, {"line": 1.5, "character": 0})  # converted leniently: answered
    assert "result" in client.answer(6)
    client.request(7, "qrels/nothing", {})
    assert client.answer(7)["error"]["code"] == -32601
    client.send(frame(b'{"jsonrpc": "2.0", "id": 8, "method":'))
    assert client.answer(None)["error"]["code"] == -32700
    client.send(frame(b"[1, 2, 3]"))
    assert client.answer(None)["error"]["code"] == -32600
    client.send(frame({"jsonrpc": "2.0", "id": [9], "method": "shutdown"}))
    assert client.answer(None)["error"]["code"] in (-32600, -32602)
    client.send(frame(b'{"jsonrpc": "2.0", "id": 10, "method": "x", "params": ' + b"[" * 10**5))
    assert client.answer(None)["error"]["code"] == -32700  # nesting past the recursion limit
    # A position past the end of a line or the file is clamped, as LSP says: answered.
    hover(client, 11, uri, {"line": 10**6, "character": 10**6})
    assert "result" in client.answer(11)
    alive(client, 12)
    assert "Traceback" not in _stderr_so_far(client)


def test_documents_never_opened(client: RawClient, tmp_path: Path) -> None:
    outside = tmp_path / "secret.qrels.yaml"
    outside.write_text("queries:\n  root:\n    question: secret\n    relevant: [shadow]\n")
    hover(client, 2, outside.as_uri(), {"line": 1, "character": 3})
    assert client.answer(2).get("result") is None  # outside the workspace: not read
    client.request(3, "textDocument/codeLens", {"textDocument": {"uri": outside.as_uri()}})
    assert client.answer(3)["result"] in (None, [])
    inside = (client.root / GOLDEN).as_uri()  # inside and ours: read from disk
    client.request(4, "textDocument/codeLens", {"textDocument": {"uri": inside}})
    assert client.answer(4)["result"]
    hover(client, 5, "file:///%00/x.qrels.yaml", {"line": 0, "character": 0})
    assert client.answer(5).get("result") is None
    hover(client, 6, "untitled:Untitled-1", {"line": 0, "character": 0})
    assert client.answer(6).get("result") is None
    alive(client, 7)


@pytest.mark.parametrize(
    "broken",
    [
        b"Content-Length: 99999\r\n\r\n{}",  # longer than what follows
        pytest.param(b"Content-Length: abc\r\n\r\n", marks=pytest.mark.slow),  # not a number
        pytest.param(  # more than a message may be
            b"Content-Length: 999999999999\r\n\r\n", marks=pytest.mark.slow
        ),
        b'Content-Length: 5\r\n\r\n{"jsonrpc": "2.0"}',  # shorter than the body
        b"garbage without any header\r\n\r\n",
        pytest.param(b"Content-Length: 10\r\n", marks=pytest.mark.slow),  # no blank line
    ],
)
def test_a_broken_frame_does_not_swallow_the_next_message(client: RawClient, broken: bytes) -> None:
    client.send(broken)
    alive(client, 2)
    alive(client, 3)


def test_requests_after_shutdown_get_an_error_and_exit_ends_it(client: RawClient) -> None:
    client.request(2, "shutdown")
    assert client.answer(2)["result"] is None
    hover(client, 3, (client.root / GOLDEN).as_uri(), {"line": 0, "character": 0})
    assert client.answer(3)["error"]["code"] == -32600
    client.notify("exit")
    assert client.wait_exit(10) == 0


def test_exit_without_shutdown_exits_with_1(client: RawClient) -> None:
    client.notify("exit")
    assert client.wait_exit(10) == 1


@pytest.mark.slow
def test_exit_ends_the_process_while_an_index_builds(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    rng = random.Random(3)
    words = [f"w{i}" for i in range(3000)]
    with (root / "big.jsonl").open("w") as f:
        for i in range(120_000):
            f.write(json.dumps({"_id": f"d{i}", "text": " ".join(rng.choices(words, k=40))}) + "\n")
    golden = "corpus: big.jsonl\nqueries:\n  q:\n    question: what is w1\n    relevant: [d1]\n"
    (root / "g.qrels.yaml").write_text(golden)
    c = RawClient(root, env={"XDG_CACHE_HOME": str(tmp_path / "cache")})
    try:
        c.initialize({"qrels": {}})
        c.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": (root / "g.qrels.yaml").as_uri(),
                    "languageId": "yaml",
                    "version": 1,
                    "text": golden,
                }
            },
        )
        time.sleep(3)  # the corpus is loaded and its index is being built
        c.request(2, "shutdown")
        c.answer(2)
        began = time.monotonic()
        c.notify("exit")
        assert c.wait_exit(5) == 0, "still running 5 s after exit"
        assert time.monotonic() - began < 5
    finally:
        c.kill()


def test_execute_command_with_hostile_arguments(client: RawClient, tmp_path: Path) -> None:
    secret = tmp_path / "secret.qrels.yaml"
    secret.write_text("queries:\n  root:\n    question: secret words\n")
    client.request(1, "initialize", {"capabilities": {}})  # a second initialize: answered
    client.answer(1)
    commands = _advertised(client)
    assert commands, "the server advertises its commands"
    hostile: list[object] = [
        [],
        [None],
        ["x"],
        [{"path": str(secret), "qid": "root"}],
        [{"path": 5, "qid": []}],
        [{"path": "\0", "qid": "\0"}],
        [{"path": str(client.root / GOLDEN), "qid": "x" * 100_000}],
        "not a list",
    ]
    msg_id = 100
    for command in commands:
        for arguments in hostile:
            msg_id += 1
            client.request(
                msg_id, "workspace/executeCommand", {"command": command, "arguments": arguments}
            )
            answer = client.answer(msg_id)
            if "error" in answer:
                assert answer["error"]["code"] in (-32602, -32803), answer
            else:
                assert "secret words" not in json.dumps(answer)
    alive(client, 2)


def _advertised(c: RawClient) -> list[str]:
    c2 = RawClient(c.root)
    try:
        result = c2.initialize({})["result"]
    finally:
        c2.kill()
    return list(result["capabilities"].get("executeCommandProvider", {}).get("commands", []))


def _stderr_so_far(c: RawClient) -> str:
    c.request(999, "shutdown")
    c.answer(999)
    c.notify("exit")
    c.wait_exit(10)
    return c.stderr()


# -- framing, in process ----------------------------------------------------------------------

BODIES = st.lists(
    st.dictionaries(
        st.text(max_size=8),
        st.one_of(st.integers(), st.text(max_size=30)),
        max_size=4,
    ).map(lambda d: json.dumps({"jsonrpc": "2.0", **d}).encode()),
    min_size=1,
    max_size=8,
)


@settings(max_examples=examples(300), deadline=None)
@given(bodies=BODIES, cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_framer_recovers_every_message_however_the_stream_is_cut(
    bodies: list[bytes], cuts: list[int]
) -> None:
    stream = b"".join(frame(b) for b in bodies)
    points = sorted({0, len(stream), *(c % (len(stream) + 1) for c in cuts)})
    framer = Framer()
    got: list[bytes | Skipped] = []
    for a, b in itertools.pairwise(points):
        got += framer.feed(stream[a:b])
    assert got == bodies


@settings(max_examples=examples(300), deadline=None)
@given(
    before=BODIES,
    after=BODIES,
    junk=st.sampled_from(
        [b"Content-Length: 99999\r\n\r\n{", b"Content-Length: x\r\n\r\n", b"\r\n\r\nnoise", b"{}"]
    ),
)
def test_framer_resynchronises_after_garbage(
    before: list[bytes], after: list[bytes], junk: bytes
) -> None:
    stream = b"".join(frame(b) for b in before) + junk + b"".join(frame(b) for b in after)
    got = [x for x in Framer().feed(stream) if not isinstance(x, Skipped)]
    assert got[: len(before)] == before
    assert got[-len(after) :] == after


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="pipe sizes are Linux's")
def test_the_pipe_to_the_editor_is_widened(client: RawClient) -> None:
    """The server widens the pipe it answers through (lsp/compat.py ``widen_pipe``): the
    lenses of 100,000 questions, 30 MB, cross a megabyte pipe in 30 turns instead of 500.
    Read from the editor's end of the same pipe, after the server has answered."""
    assert client.proc.stdout is not None
    size = fcntl.fcntl(client.proc.stdout.fileno(), fcntl.F_GETPIPE_SZ)
    assert size >= min(PIPE_BYTES, int(Path("/proc/sys/fs/pipe-max-size").read_text()))
    assert size > 65536
