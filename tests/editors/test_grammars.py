"""The TextMate grammars, tokenized as VS Code does (vscode-textmate + vscode-oniguruma).

Part of the editor suite: needs node and `npm install` in tests/editors/grammar/.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
GRAMMAR_DIR = HERE / "grammar"
ROOT = HERE.parents[1]
EXAMPLES = ROOT / "server" / "qrels_lsp" / "examples"

QRELS = "source.trec-qrels"
RUN = "source.trec-run"

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH"),
    pytest.mark.skipif(
        not (GRAMMAR_DIR / "node_modules" / "vscode-textmate").is_dir()
        or not (GRAMMAR_DIR / "node_modules" / "vscode-oniguruma").is_dir(),
        reason="vscode-textmate/vscode-oniguruma not installed: run `npm install` in "
        f"{GRAMMAR_DIR}",
    ),
]


def tokenize(
    tmp_path: Path, samples: dict[str, list[str]]
) -> dict[str, list[list[tuple[str, str]]]]:
    """scope name -> per line, [(token text, innermost scope)], whitespace-only tokens dropped."""
    path = tmp_path / "samples.json"
    path.write_text(json.dumps(samples), encoding="utf-8")
    proc = subprocess.run(
        ["node", "tokenize.mjs", str(path)],
        cwd=GRAMMAR_DIR,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return {
        scope: [
            [(t["text"], t["scopes"][-1]) for t in line["tokens"] if t["text"].strip()]
            for line in lines
        ]
        for scope, lines in out.items()
    }


def test_trec_qrels_scopes(tmp_path: Path) -> None:
    got = tokenize(
        tmp_path,
        {
            QRELS: [
                "# judged by the support team",
                "e1042 0 errors/e1042-firmware-mismatch.md 3",
                "login-after-reset\tQ0\tkb/auth-failures.md\t1",
                "e1042 0 kb/firmware.md 1.5",
                "e1042 0 kb/firmware.md",
                "e1042 0 kb/firmware.md two",
                "e1042 0 kb/firmware.md 1 extra",
            ]
        },
    )[QRELS]
    assert got[0] == [
        ("#", "punctuation.definition.comment.trec-qrels"),
        (" judged by the support team", "comment.line.number-sign.trec-qrels"),
    ]
    assert got[1] == [
        ("e1042", "entity.name.tag.query-id.trec-qrels"),
        ("0", "constant.numeric.integer.iteration.trec-qrels"),
        ("errors/e1042-firmware-mismatch.md", "string.unquoted.document-id.trec-qrels"),
        ("3", "constant.numeric.integer.grade.trec-qrels"),
    ]
    assert got[2] == [
        ("login-after-reset", "entity.name.tag.query-id.trec-qrels"),
        ("Q0", "keyword.other.iteration.trec-qrels"),
        ("kb/auth-failures.md", "string.unquoted.document-id.trec-qrels"),
        ("1", "constant.numeric.integer.grade.trec-qrels"),
    ]
    assert got[3][-1] == ("1.5", "constant.numeric.float.grade.trec-qrels")
    for line in got[4:]:
        assert len(line) == 1
        assert line[0][1] == "invalid.illegal.malformed-line.trec-qrels"


def test_trec_run_scopes(tmp_path: Path) -> None:
    got = tokenize(
        tmp_path,
        {
            RUN: [
                "ethernet-backhaul Q0 setup/wired-backhaul.md 3 0.030679 hybrid",
                "q1\tQ0\tdoc-7\t1\t-1.5e-3\tbm25",
                "q1 Q0 doc-7 first 0.5 bm25",
                "q1 Q0 doc-7 1 0.5",
                "q1 Q0 doc-7 1 high bm25",
                "# a comment",
            ]
        },
    )[RUN]
    assert got[0] == [
        ("ethernet-backhaul", "entity.name.tag.query-id.trec-run"),
        ("Q0", "keyword.other.iteration.trec-run"),
        ("setup/wired-backhaul.md", "string.unquoted.document-id.trec-run"),
        ("3", "constant.numeric.integer.rank.trec-run"),
        ("0.030679", "constant.numeric.float.score.trec-run"),
        ("hybrid", "entity.other.attribute-name.run-tag.trec-run"),
    ]
    assert got[1][4] == ("-1.5e-3", "constant.numeric.float.score.trec-run")
    for line in got[2:5]:
        assert len(line) == 1
        assert line[0][1] == "invalid.illegal.malformed-line.trec-run"
    assert got[5][-1][1] == "comment.line.number-sign.trec-run"


def test_embedded_trec_run_has_no_malformed_line(tmp_path: Path) -> None:
    lines = (EXAMPLES / "runs" / "hybrid.trec").read_text(encoding="utf-8").splitlines()
    got = tokenize(tmp_path, {RUN: lines})[RUN]
    assert len(got) == len(lines) > 0
    for text, tokens in zip(lines, got, strict=True):
        assert [scope for _, scope in tokens] == [
            "entity.name.tag.query-id.trec-run",
            "keyword.other.iteration.trec-run",
            "string.unquoted.document-id.trec-run",
            "constant.numeric.integer.rank.trec-run",
            "constant.numeric.float.score.trec-run",
            "entity.other.attribute-name.run-tag.trec-run",
        ], text
