"""Start-up: the real ``qrels-lsp serve`` answers ``initialize`` before the core is imported, makes
its session right after, and answers what came in the same read as ``initialize``.

The server runs in a child process exactly as the console script runs it (``cli.main``), with
its standard output wrapped so that, when the first message is written, it reports which modules
are loaded (on its standard error). That first message is the initialize answer."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from .conftest import EXAMPLES
from .raw import RawClient, message

GOLDEN = "support.qrels.yaml"
SERVE = """
import json, os, sys

class Recorder:
    '''Standard output, reporting the loaded modules at the first write.'''

    def __init__(self, out):
        self.out, self.told = out, False

    def write(self, data):
        if not self.told:
            self.told = True
            os.write(2, ("loaded: " + json.dumps(sorted(sys.modules)) + "\\n").encode())
        return self.out.write(data)

    def flush(self):
        self.out.flush()

    def fileno(self):
        return self.out.fileno()

class Stdout:
    def __init__(self, buffer):
        self.buffer = buffer

    def flush(self):
        self.buffer.flush()

sys.stdout = Stdout(Recorder(sys.stdout.buffer))
from qrels_lsp.cli import main
sys.exit(main(["serve"]))
"""
HEAVY = ("numpy", "scipy", "yaml", "rank_bm25", "rapidfuzz", "re2")


def test_initialize_is_answered_before_the_core_is_imported(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    uri = (root / GOLDEN).as_uri()
    client = RawClient(root, command=[sys.executable, "-c", SERVE], cwd=tmp_path)
    try:
        # One write: the server reads initialize and what follows it in one chunk, and
        # dispatches them one after another before its loop runs anything it scheduled.
        opened = {
            "uri": uri,
            "languageId": "yaml",
            "version": 1,
            "text": (root / GOLDEN).read_text(),
        }
        client.send(
            message(0, "initialize", {"capabilities": {}, "rootUri": root.as_uri()})
            + message(None, "initialized", {})
            + message(None, "textDocument/didOpen", {"textDocument": opened})
            + message(1, "textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        )
        answer = client.answer(0)
        capabilities = answer["result"]["capabilities"]
        assert {"codeLensProvider", "hoverProvider", "semanticTokensProvider"} <= set(capabilities)
        assert capabilities["executeCommandProvider"]["commands"]
        symbols = client.answer(1)["result"]
        assert {"cant-login-app", "browser-admin"} <= {s["name"] for s in symbols}
        diagnostics = client.notification("textDocument/publishDiagnostics")
        assert diagnostics["params"]["uri"] == uri
        client.request(2, "shutdown")
        client.answer(2)
        client.notify("exit")
        assert client.wait_exit(10) == 0
        [line] = [x for x in client.stderr().splitlines() if x.startswith("loaded: ")]
        loaded = json.loads(line.removeprefix("loaded: "))
    finally:
        client.kill()
    ours = [m for m in loaded if m.startswith("qrels_lsp.")]
    assert "qrels_lsp.lsp.server" in ours, "the snapshot is of the server's process"
    ide = {m for m in ours if m.startswith("qrels_lsp.ide")}
    assert ide <= {"qrels_lsp.ide", "qrels_lsp.ide.token_types"}  # the semantic tokens' legend
    assert [m for m in ours if m.startswith("qrels_lsp.core.") and ".base" not in m] == []
    assert [m for m in loaded if m.split(".")[0] in HEAVY] == []
