"""The file formats qrels-lsp reads: one module each, registered in :data:`FORMATS`.

A format is found by configuration first (a ``[[qrels]]`` binding is qrels; its topics and
corpus are never a run or qrels), then by name (a suffix, a configured glob), then by content
(``content.py``: the TREC family, JSON, MS MARCO TSV; TREC topics and ``<DOC>`` corpora are
recognised so that they are never taken for runs). Adding a format: a module that builds a
:class:`~.format.Format`, and one line below.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from ..base.files import QR006
from ..base.findings import finding
from ..base.globs import matcher
from ..base.text import Span
from ..model import FileKind, Qrels, Run
from . import (
    beir_qrels,
    golden,
    json_qrels,
    json_run,
    jsonl_rows,
    msmarco_run,
    parquet,
    run_yaml,
    trec_qrels,
    trec_run,
    tsv_header,
)
from .content import ContentKind, sniff
from .format import EditRefused, Format, Role

FORMATS: tuple[Format, ...] = (
    golden.FORMAT,
    run_yaml.FORMAT,
    trec_qrels.FORMAT,
    beir_qrels.FORMAT,
    json_qrels.FORMAT,
    trec_run.FORMAT,
    json_run.FORMAT,
    msmarco_run.FORMAT,
    tsv_header.QRELS_FORMAT,
    tsv_header.RUN_FORMAT,
    jsonl_rows.QRELS_FORMAT,
    jsonl_rows.RUN_FORMAT,
)
_BY_NAME: dict[str, Format] = {f.name: f for f in FORMATS}

__all__ = [
    "FORMATS",
    "ContentKind",
    "EditRefused",
    "FileKind",
    "Format",
    "detect",
    "detect_by_name",
    "get",
    "recognise",
]


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
    def qrels(self) -> Sequence[Any]: ...  # bindings, each with ``path``, ``topics``, ``corpus``


def matches(path: Path, patterns: tuple[str, ...], root: Path | None) -> bool:
    """Glob match on the path relative to the config root, and on the bare name for ``**/``."""
    candidates = [path.as_posix(), path.name]
    if root is not None:
        with contextlib.suppress(ValueError, OSError):
            candidates.append(path.resolve().relative_to(root.resolve()).as_posix())
    for pattern in patterns:
        bare = pattern[3:] if pattern.startswith("**/") else None
        match = matcher(pattern)
        if any(match(c) for c in candidates) or (bare and matcher(bare)(path.name)):
            return True
    return False


_TREC_NAMES = ("qrels", "qrels.txt")
_TREC_SUFFIXES = (".qrels", ".trec", ".run", ".qrels.txt", ".run.txt")
_BY_SUFFIX: tuple[tuple[str, Format], ...] = (
    (".run.json", json_run.FORMAT),
    (".qrels.json", json_qrels.FORMAT),
    (".run.tsv", msmarco_run.FORMAT),
)
_BY_FULL_NAME = {"run.json": json_run.FORMAT, "qrels.json": json_qrels.FORMAT}
Guess = Format | Literal["trec?", "not ours"] | None
"""What a name says: a format; the TREC family (content tells which); a file the configuration
names as topics or a corpus; or nothing."""


def _by_name(path: Path, rules: NameRules) -> tuple[Guess, Role | None]:
    """What the name (and the configuration) says, and the role it implies (a run glob: a run)."""
    name = path.name.lower()
    try:
        resolved = path.resolve()
    except (OSError, ValueError):
        return None, None
    if any(_named_other(resolved, b) for b in rules.qrels):
        return "not ours", None
    for binding in rules.qrels:
        if binding.path == resolved:  # a golden set YAML may be bound too (for its runs)
            if name.endswith((".yaml", ".yml")):
                return golden.FORMAT, "qrels"
            if name.endswith(".tsv"):  # BEIR's, or a TSV whose header names other columns
                return "trec?", "qrels"
            return (json_qrels.FORMAT if name.endswith(".json") else "trec?"), "qrels"
    if name.endswith((".yaml", ".yml")):
        if matches(path, rules.golden, rules.root):
            return golden.FORMAT, "qrels"
        if matches(path, rules.runs, rules.root):
            return run_yaml.FORMAT, "run"
        return None, None
    by_suffix = _BY_FULL_NAME.get(name) or next(
        (f for suffix, f in _BY_SUFFIX if name.endswith(suffix)), None
    )
    if by_suffix is not None:
        return by_suffix, by_suffix.role
    if name.endswith(".tsv") and path.parent.name.lower() == "qrels":
        return beir_qrels.FORMAT, "qrels"  # BEIR's layout: qrels/test.tsv
    if name.endswith(parquet.SUFFIX) and path.parent.name.lower() == "qrels":
        return "trec?", "qrels"  # Hugging Face's: qrels/test.parquet, read as JSONL rows
    if matches(path, rules.runs, rules.root):
        return "trec?", "run"
    if name in _TREC_NAMES or name.endswith(_TREC_SUFFIXES):
        return "trec?", None
    return None, None


def _named_other(resolved: Path, binding: Any) -> bool:
    """Whether the configuration names ``resolved`` as topics or corpus (or a file in a corpus
    folder) of a ``[[qrels]]`` binding."""
    corpus = binding.corpus
    return resolved == binding.topics or (
        corpus is not None and (resolved == corpus or corpus in resolved.parents)
    )


def detect_by_name(path: Path, rules: NameRules) -> Format | Literal["trec?"] | None:
    """The format a name implies; ``"trec?"`` when only the content can tell which TREC one."""
    guess, _role = _by_name(path, rules)
    return None if guess == "not ours" else guess


def recognise(
    path: Path, text: str, rules: NameRules, role: Role | None = None
) -> tuple[Format | None, ContentKind | Literal["topics", "corpus"] | None]:
    """(the format to read the file as, or None; what it was recognised as, for people: a
    format's name, ``trec-topics``/``trec-documents`` by content, or ``topics``/``corpus`` when
    the configuration names it so). ``role`` is what the file is used as, when the caller knows
    (a golden set's `runs:` entry is a run): it settles what content alone cannot."""
    guess, hint = _by_name(path, rules)
    if guess == "not ours":
        topics = any(path.resolve() == b.topics for b in rules.qrels)
        return None, "topics" if topics else "corpus"
    if isinstance(guess, Format):
        return guess, guess.name
    if guess is None and path.name.lower().endswith((".yaml", ".yml")):
        return None, None
    kind = sniff(text, role or hint)
    if kind is None:
        if guess != "trec?":
            return None, None
        fmt = _trec_by_name(path, role or hint)  # content that says nothing: the name decides
        return fmt, fmt.name
    if kind in ("trec-topics", "trec-documents"):
        return None, kind
    return get(kind), kind


def _trec_by_name(path: Path, role: Role | None) -> Format:
    name = path.name.lower()
    if role == "qrels" and name.endswith(".tsv"):  # a bound `.tsv`: BEIR's, as before TSV headers
        return beir_qrels.FORMAT
    return trec_qrels.FORMAT if "qrels" in name else trec_run.FORMAT


def detect(path: Path, text: str, rules: NameRules, role: Role | None = None) -> Format | None:
    """The format of a file chosen on purpose (named on the command line, matched by `runs:`,
    bound in the config): by configuration, by name, and for a name that says nothing, by its
    content (see :func:`recognise`)."""
    return recognise(path, text, rules, role)[0]


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
