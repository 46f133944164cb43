"""Which format a file is in: by name first (what the user chose), then by configuration, then by
content for the TREC family, whose files carry any name (``qrels``, ``run.txt``, ``*.trec``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from fnmatch import fnmatch
from pathlib import Path
from typing import Literal

from .config import Config
from .findings import finding
from .golden import parse_golden
from .model import Qrels, Run
from .runyaml import parse_run_yaml
from .text import Span
from .trec import parse_beir_qrels, parse_trec_qrels, parse_trec_run, sniff_trec_kind

FileKind = Literal["golden", "run-yaml", "trec-qrels", "beir-qrels", "trec-run"]


def matches(path: Path, patterns: tuple[str, ...], root: Path | None) -> bool:
    """Glob match on the path relative to the config root, and on the bare name for ``**/``."""
    candidates = [path.as_posix(), path.name]
    if root is not None:
        with contextlib.suppress(ValueError):
            candidates.append(path.resolve().relative_to(root.resolve()).as_posix())
    for pattern in patterns:
        bare = pattern[3:] if pattern.startswith("**/") else None
        if any(fnmatch(c, pattern) for c in candidates) or (bare and fnmatch(path.name, bare)):
            return True
    return False


def kind_by_name(path: Path, config: Config) -> FileKind | Literal["trec?"] | None:
    """The kind a name implies; ``"trec?"`` when only the content can tell."""
    name = path.name.lower()
    resolved = path.resolve()
    for binding in config.qrels:
        if binding.path == resolved:
            return "beir-qrels" if name.endswith(".tsv") else "trec?"
    if name.endswith((".yaml", ".yml")):
        if matches(path, config.golden, config.root):
            return "golden"
        if matches(path, config.runs, config.root):
            return "run-yaml"
        return None
    if (
        matches(path, config.runs, config.root)
        or name in ("qrels", "qrels.txt")
        or name.endswith((".qrels", ".trec", ".run", ".qrels.txt", ".run.txt"))
    ):
        return "trec?"
    return None


def kind_of(path: Path, text: str, config: Config) -> FileKind | None:
    """The kind of a file chosen on purpose (named on the command line, matched by `runs:`, bound
    in the config): by name, and for a name that says nothing, by its content."""
    guess = kind_by_name(path, config)
    if guess is None and not path.name.lower().endswith((".yaml", ".yml")):
        # TREC files carry any name (`qrels.test`, `results.test`): the content tells.
        sniffed = sniff_trec_kind(text)
        return sniffed  # type: ignore[return-value]
    if guess != "trec?":
        return guess
    sniffed = sniff_trec_kind(text)
    if sniffed is None:
        name = path.name.lower()
        return "trec-qrels" if "qrels" in name else "trec-run"
    return {"trec-qrels": "trec-qrels", "trec-run": "trec-run", "beir-qrels": "beir-qrels"}[sniffed]  # type: ignore[return-value]


# A 10,000-question golden set is about 1 MB. Past this size a YAML syntax tree with spans would
# cost gigabytes; the file is reported instead of parsed (TREC files are lines and stay cheap).
MAX_YAML_CHARS = 16 * 1024 * 1024


def parse_as(kind: FileKind, text: str) -> Qrels | Run:
    if kind in ("golden", "run-yaml") and len(text) > MAX_YAML_CHARS:
        too_big = finding(
            "QR006",
            Span(0, 0),
            f"This YAML file is {len(text) / 2**20:.0f} M characters, more than the "
            f"{MAX_YAML_CHARS // 2**20} M analysed; split it, or convert it to TREC "
            "(`qrels-lsp convert`), which has no such limit.",
        )
        return (
            Qrels(format="golden", findings=[too_big])
            if kind == "golden"
            else Run(format="yaml", findings=[too_big])
        )
    parsers: dict[FileKind, Callable[[str], Qrels | Run]] = {
        "golden": parse_golden,
        "run-yaml": parse_run_yaml,
        "trec-qrels": parse_trec_qrels,
        "beir-qrels": parse_beir_qrels,
        "trec-run": parse_trec_run,
    }
    return parsers[kind](text)
