"""The file formats qrels-lsp reads: one module each, registered in :data:`FORMATS`.

A format is found by name first (what the user chose: a suffix, a configured glob, a ``[[qrels]]``
binding), then, for the TREC family whose files carry any name (``qrels``, ``results.test``), by
content. Adding a format: a module that builds a :class:`~.format.Format`, and one line below.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Literal, Protocol

from ..base.files import QR006
from ..base.findings import finding
from ..base.text import Span
from ..model import FileKind, Qrels, Run
from . import beir_qrels, golden, run_yaml, trec_qrels, trec_run
from .format import EditRefused, Format
from .trec_lines import sniff_trec_kind

FORMATS: tuple[Format, ...] = (
    golden.FORMAT,
    run_yaml.FORMAT,
    trec_qrels.FORMAT,
    beir_qrels.FORMAT,
    trec_run.FORMAT,
)
_BY_NAME: dict[str, Format] = {f.name: f for f in FORMATS}

__all__ = ["FORMATS", "EditRefused", "FileKind", "Format", "detect", "detect_by_name", "get"]


def get(kind: FileKind | str) -> Format:
    """The format of a file kind (as an analysis or a model names it)."""
    return _BY_NAME[kind]


class NameRules(Protocol):
    """What of the configuration decides formats by name (the project's Config has it)."""

    @property
    def golden(self) -> tuple[str, ...]: ...
    @property
    def runs(self) -> tuple[str, ...]: ...
    @property
    def root(self) -> Path | None: ...
    @property
    def qrels(self) -> Sequence[Any]: ...  # bindings, each with a ``path``


def matches(path: Path, patterns: tuple[str, ...], root: Path | None) -> bool:
    """Glob match on the path relative to the config root, and on the bare name for ``**/``."""
    candidates = [path.as_posix(), path.name]
    if root is not None:
        with contextlib.suppress(ValueError, OSError):
            candidates.append(path.resolve().relative_to(root.resolve()).as_posix())
    for pattern in patterns:
        bare = pattern[3:] if pattern.startswith("**/") else None
        if any(fnmatch(c, pattern) for c in candidates) or (bare and fnmatch(path.name, bare)):
            return True
    return False


_TREC_NAMES = ("qrels", "qrels.txt")
_TREC_SUFFIXES = (".qrels", ".trec", ".run", ".qrels.txt", ".run.txt")


def detect_by_name(path: Path, rules: NameRules) -> Format | Literal["trec?"] | None:
    """The format a name implies; ``"trec?"`` when only the content can tell which TREC one."""
    name = path.name.lower()
    try:
        resolved = path.resolve()
    except (OSError, ValueError):
        return None
    for binding in rules.qrels:
        if binding.path == resolved:  # a golden set YAML may be bound too (for its runs)
            if name.endswith((".yaml", ".yml")):
                return golden.FORMAT
            return beir_qrels.FORMAT if name.endswith(".tsv") else "trec?"
    if name.endswith((".yaml", ".yml")):
        if matches(path, rules.golden, rules.root):
            return golden.FORMAT
        if matches(path, rules.runs, rules.root):
            return run_yaml.FORMAT
        return None
    if (
        matches(path, rules.runs, rules.root)
        or name in _TREC_NAMES
        or name.endswith(_TREC_SUFFIXES)
    ):
        return "trec?"
    return None


def detect(path: Path, text: str, rules: NameRules) -> Format | None:
    """The format of a file chosen on purpose (named on the command line, matched by `runs:`,
    bound in the config): by name, and for a name that says nothing, by its content."""
    guess = detect_by_name(path, rules)
    if guess is None and not path.name.lower().endswith((".yaml", ".yml")):
        sniffed = sniff_trec_kind(text)  # TREC files carry any name (`results.test`)
        return get(sniffed) if sniffed is not None else None
    if guess != "trec?":
        return guess
    sniffed = sniff_trec_kind(text)
    if sniffed is None:
        return trec_qrels.FORMAT if "qrels" in path.name.lower() else trec_run.FORMAT
    return get(sniffed)


MAX_YAML_CHARS = 16 * 1024 * 1024
"""Past this size a YAML syntax tree with spans would cost gigabytes: the file is reported, not
parsed (TREC files are lines and stay cheap; ``convert`` turns YAML into them)."""


def parse_as(kind: FileKind, text: str) -> Qrels | Run:
    """``text`` parsed as a ``kind`` file (YAML past :data:`MAX_YAML_CHARS` is only reported)."""
    fmt = get(kind)
    if fmt.yaml and len(text) > MAX_YAML_CHARS:
        too_big = finding(
            QR006,
            Span(0, 0),
            f"This YAML file is {len(text) / 2**20:.0f} M characters, more than the "
            f"{MAX_YAML_CHARS // 2**20} M analysed; split it, or convert it to TREC "
            "(`qrels-lsp convert`), which has no such limit.",
        )
        if fmt.role == "qrels":
            return Qrels(format="golden", findings=[too_big])
        return Run(format="run-yaml", findings=[too_big])
    return fmt.parse(text)
