"""Helix's setup (editors/helix/languages.toml), checked without Helix (no registry here has it):
the file parses as TOML, its languages pick the files the server reads, and the server started
with its exact command (Helix appends nothing) answers as Helix would use it: the language name as
the document's languageId, `config` as the initialization options."""

from __future__ import annotations

import fnmatch
import shutil
import sys
from pathlib import Path
from typing import Any

from conftest import EXAMPLES, ROOT
from lsp.raw import RawClient

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

HELIX = ROOT / "editors" / "helix" / "languages.toml"


def config() -> dict[str, Any]:
    return tomllib.loads(HELIX.read_text(encoding="utf-8"))


def language_of(name: str, languages: list[dict[str, Any]]) -> str | None:
    """The language Helix gives a file: a glob matches the name, a plain string its extension."""
    for lang in languages:
        for ft in lang.get("file-types", []):
            if isinstance(ft, dict) and fnmatch.fnmatch(name, ft["glob"]):
                return str(lang["name"])
            if isinstance(ft, str) and (name == ft or name.endswith("." + ft)):
                return str(lang["name"])
    return None


def test_languages_pick_the_files_the_server_reads() -> None:
    cfg = config()
    server = cfg["language-server"]["qrels-lsp"]
    assert server["command"] == "qrels-lsp" and server["args"] == ["serve"]
    languages = cfg["language"]
    for lang in languages:
        assert "qrels-lsp" in lang["language-servers"], lang["name"]
    assert language_of("support.qrels.yaml", languages) == "qrels-yaml"
    assert language_of("dense.run.yaml", languages) == "qrels-yaml"
    assert language_of("hybrid.trec", languages) == "trec-run"
    assert language_of("qrels", languages) == "trec-qrels"
    assert language_of("test.qrels.txt", languages) == "trec-qrels"
    assert language_of("notes.yaml", languages) is None  # other YAML is not the server's
    yaml_lang = next(lang for lang in languages if lang["name"] == "qrels-yaml")
    assert yaml_lang["grammar"] == "yaml"  # YAML highlighting kept
    assert yaml_lang["language-servers"] == ["qrels-lsp", "yaml-language-server"]


def test_the_server_runs_with_its_exact_command(tmp_path: Path) -> None:
    server = config()["language-server"]["qrels-lsp"]
    found = shutil.which(server["command"], path=str(Path(sys.executable).parent))
    assert found is not None, "qrels-lsp is installed beside this Python"
    ws = tmp_path / "ws"
    shutil.copytree(EXAMPLES, ws, ignore=shutil.ignore_patterns("__pycache__"))
    client = RawClient(
        ws, env={"XDG_CACHE_HOME": str(tmp_path / "cache")}, command=[found, *server["args"]]
    )
    try:
        # `config = { ignore = [...] }` in languages.toml arrives as the initialization options
        result = client.initialize({"ignore": ["QR110"], "bm25_baseline": False})["result"]
        assert result["serverInfo"]["name"] == "qrels-lsp"
        golden = ws / "support.qrels.yaml"
        client.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": golden.as_uri(),
                    "languageId": "qrels-yaml",  # Helix sends its language's name
                    "version": 0,
                    "text": golden.read_text(encoding="utf-8"),
                }
            },
        )
        published = client.notification("textDocument/publishDiagnostics", timeout=60)
        codes = {d["code"] for d in published["params"]["diagnostics"]}
        assert {"QR102", "QR104", "QR106"} <= codes
        assert "QR110" not in codes  # silenced by the config
        trec = ws / "runs" / "hybrid.trec"
        client.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": trec.as_uri(),
                    "languageId": "trec-run",
                    "version": 0,
                    "text": trec.read_text(encoding="utf-8"),
                }
            },
        )
        client.request(1, "textDocument/inlayHint", {
            "textDocument": {"uri": trec.as_uri()},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 5, "character": 0}},
        })  # fmt: skip
        hints = client.answer(1, timeout=60)["result"]
        assert hints and all(h["position"]["line"] < 6 for h in hints)  # what Helix shows
        client.request(2, "shutdown")
        client.answer(2)
        client.notify("exit")
        assert client.wait_exit(30) == 0
    finally:
        client.kill()
