"""A megabyte of hostile text in every setting and every field of every file a workspace holds.

The texts are what made regular expressions backtrack or parsers recurse (``"a" + a megabyte of
blanks + "x"``, a megabyte of ``(``, ``[``, tabs, ``#``, emoji, and bytes that are not UTF-8);
the slots are each key of the configuration and each field of a golden set, a run YAML, a TREC
run and TREC qrels. A workspace is the small project of :data:`BASE` with one slot (or every
slot) holding one text.

Used by tests/test_hostile_text.py (the command line) and tests/lsp/test_hostile_text.py (the
server).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, AnyStr

MiB = 1 << 20
TEXTS: dict[str, str | bytes] = {
    "blanks": "a" + " " * MiB + "x",
    "parens": "(" * MiB,
    "brackets": "[" * MiB,
    "tabs": "\t" * MiB,
    "hashes": "#" * MiB,
    "emoji": "\U0001f600" * (MiB // 4),
    "not-utf8": b"\xff\xfe" * (MiB // 2),
}
"""Each a megabyte (the blanks' one more than a mebibyte, as the issue wrote it)."""

ARGUMENT_BYTES = 100_000
"""Text given as one command-line argument: Linux refuses an argument over 128 KiB."""

BASE: dict[str, str] = {
    "g.qrels.yaml": (
        "corpus: corpus\n"
        "runs: [runs/a.run.yaml, runs/b.trec]\n"
        "compare_to: a\n"
        "description: a golden set\n"
        "queries:\n"
        "  q1:\n"
        "    question: How do I reset my password?\n"
        "    tags: [critical]\n"
        "    notes: from the logs\n"
        "    relevant:\n"
        "      d1: 2\n"
        "      d2: 1\n"
        "  q2:\n"
        "    question: Where is the invoice?\n"
        "    relevant: [d3]\n"
    ),
    "runs/a.run.yaml": (
        "qrels: ../g.qrels.yaml\nname: a\nresults:\n  q1: [d1, d2, d3]\n  q2: [d3, d1]\n"
    ),
    "runs/b.trec": "q1 Q0 d2 1 2.0 b\nq1 Q0 d1 2 1.0 b\nq2 Q0 d3 1 1.0 b\n",
    "judgments.qrels": "q1 0 d1 2\nq1 0 d2 1\nq2 0 d3 1\n",
    "corpus/d1.txt": "Reset your password from the account page.\n",
    "corpus/d2.txt": "Passwords expire every year.\n",
    "corpus/d3.txt": "Invoices are under billing.\n",
}

# Where a field's text goes: (file, what is replaced, its replacement with {} for the text).
# A key longer than 1,024 characters is written as YAML's explicit key (`? key`).
FIELDS: dict[str, tuple[str, str, str]] = {
    "golden query id": ("g.qrels.yaml", "  q2:\n", "  ? {}\n  :\n"),
    "question": ("g.qrels.yaml", "How do I reset my password?", "{}"),
    "golden document id": ("g.qrels.yaml", "[d3]", "[{}, d3]"),
    "graded document id": ("g.qrels.yaml", "      d2: 1\n", "      ? {}\n      : 1\n"),
    "tag": ("g.qrels.yaml", "[critical]", "[{}]"),
    "notes": ("g.qrels.yaml", "from the logs", "{}"),
    "description": ("g.qrels.yaml", "a golden set", "{}"),
    "compare_to": ("g.qrels.yaml", "compare_to: a", "compare_to: {}"),
    "corpus": ("g.qrels.yaml", "corpus: corpus", "corpus: {}"),
    "runs entry": ("g.qrels.yaml", "runs/b.trec]", "runs/b.trec, {}]"),
    "fusion name": (
        "g.qrels.yaml",
        "description:",
        "fusions: [{{name: {}, method: rrf, runs: [a, b]}}]\ndescription:",
    ),
    "chunk separator": ("g.qrels.yaml", "description:", "chunks: {{separator: {}}}\ndescription:"),
    "run name": ("runs/a.run.yaml", "name: a", "name: {}"),
    "run qrels": ("runs/a.run.yaml", "qrels: ../g.qrels.yaml", "qrels: {}"),
    "run query id": ("runs/a.run.yaml", "  q2: [d3, d1]\n", "  ? {}\n  : [d3, d1]\n"),
    "run document id": ("runs/a.run.yaml", "[d1, d2, d3]", "[d1, {}, d3]"),
    "TREC run query": ("runs/b.trec", "q2 Q0 d3", "{} Q0 d3"),
    "TREC run document": ("runs/b.trec", "Q0 d1 2", "Q0 {} 2"),
    "TREC run tag": ("runs/b.trec", "2.0 b\n", "2.0 {}\n"),
    "TREC qrels query": ("judgments.qrels", "q2 0 d3", "{} 0 d3"),
    "TREC qrels document": ("judgments.qrels", "0 d2 1", "0 {} 1"),
    "TREC qrels grade": ("judgments.qrels", "d1 2\n", "d1 {}\n"),
}

YAML_FILES = (".yaml",)


def yaml_quoted(text: str) -> str:
    """A YAML double-quoted scalar of exactly ``text`` (JSON's escapes are YAML's)."""
    return json.dumps(text, ensure_ascii=False).replace("\u2028", "\\u2028")


def as_text(text: str | bytes) -> str:
    """The text as a string: bytes that are not UTF-8 as the readers decode them (U+FFFD)."""
    return text.decode("utf-8", "replace") if isinstance(text, bytes) else text


def cut(text: AnyStr, n: int) -> AnyStr:
    """At most ``n`` characters (or bytes) of ``text``, its last one kept: the near-miss a
    backtracking pattern fails on at the very end (the ``x`` after the blanks). Cut from the end,
    the blanks alone would match at once, and the test would prove nothing."""
    return text if len(text) <= n else text[: n - 1] + text[-1:]


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def with_field(
    files: dict[str, str | bytes], field: str, text: str | bytes, quoted: bool = False
) -> dict[str, str | bytes]:
    """``files`` with ``field`` holding ``text``: written plain (what it does to the parser) or,
    in a YAML file, ``quoted`` (what it does to what reads the field)."""
    name, old, new = FIELDS[field]
    content = files[name]
    raw = content.encode() if isinstance(content, str) else content
    piece: bytes
    if quoted and name.endswith(YAML_FILES):
        piece = yaml_quoted(as_text(text)).encode()
    else:
        piece = text if isinstance(text, bytes) else text.encode()
    template = new.encode().replace(b"{{", b"{").replace(b"}}", b"}")
    assert old.encode() in raw, (field, old)
    return {**files, name: raw.replace(old.encode(), template.replace(b"{}", piece), 1)}


def every_field(text: str | bytes) -> dict[str, str | bytes]:
    """:data:`BASE` with every field holding ``text``, quoted in YAML (so each one is read)."""
    files: dict[str, str | bytes] = dict(BASE)
    for field in FIELDS:
        files = with_field(files, field, text, quoted=True)
    return files


SETTING_SHAPES: dict[str, Callable[[Any], Any]] = {
    "k": lambda t: t,
    "relevance_level": lambda t: t,
    "ignore": lambda t: [t],
    "metrics": lambda t: ["ndcg@10", t],
    "golden": lambda t: [t],
    "runs": lambda t: ["runs/*", t],
    "bm25_baseline": lambda t: t,
    "corpus_ids": lambda t: t,
    "qrels": lambda t: [
        {"path": t, "topics": t, "corpus": t, "runs": [t], "compare_to": t, "judgments": t}
    ],
    "fusions": lambda t: [{"name": t, "method": "rrf", "runs": ["a", t], "norm": t}],
    "chunks": lambda t: {"pattern": t},
    "compare_to": lambda t: t,
    "judgments": lambda t: t,
    "alpha": lambda t: t,
    "min_difference": lambda t: t,
    "min_judged": lambda t: t,
    "pool_depth": lambda t: t,
    "blind_judging": lambda t: t,
    "allow_outside": lambda t: [t],
}
"""Each setting's value with the text in every string it may hold (where the setting takes a
number or a flag, the text stands in its place)."""


def settings(text: str, keys: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The settings (as an editor sends them) with ``keys`` (default all) holding ``text``, and
    an unknown key that is the text itself."""
    chosen = SETTING_SHAPES if keys is None else {k: SETTING_SHAPES[k] for k in keys}
    out = {key: shape(text) for key, shape in chosen.items()}
    if keys is None:
        out[text] = 1
    return out


def toml_config(text: str | bytes, keys: tuple[str, ...] | None = None) -> bytes:
    """``qrels-lsp.toml`` with ``keys`` holding ``text``; bytes that are not UTF-8 are written
    raw inside the strings (the file is then read as any file is: decoded, then parsed)."""
    placeholder = "\x00TEXT\x00"
    lines = []
    for key, value in settings(placeholder, keys).items():
        if key == placeholder:
            continue
        lines.append(f"{key} = {_toml(value)}")
    body = "\n".join(lines).encode() + b"\n"
    quoted = json.dumps(placeholder).encode()
    piece = (
        b'"' + text + b'"'
        if isinstance(text, bytes)
        else json.dumps(text, ensure_ascii=False).encode()
    )
    return body.replace(quoted, piece)


def _toml(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)
