"""Shared machinery for reading a YAML tree against a schema: expected kinds, known keys,
duplicate ids, with a finding for everything that does not fit.

Both YAML formats (golden sets and runs) are read through it, so a wrong type reads the same in
both and the rules live in one place.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from ...base.caps import too_long
from ...base.findings import Finding, Fix, Related, Severity, TextEdit, declare, finding
from ...base.text import Span
from ...model import INT_LIMIT, Ref
from .tree import (
    DEFAULT_LIMITS,
    YAlias,
    YamlDoc,
    YamlLimits,
    YMap,
    YNode,
    YScalar,
    YSeq,
    describe,
    key_text,
    parse_yaml,
)

declare(
    "QR003",
    "unknown-key",
    Severity.WARNING,
    "YAML",
    "A key the format does not define.",
    drops=True,
)
declare(
    "QR005",
    "duplicate-key",
    Severity.ERROR,
    "YAML",
    "A mapping key given twice.",
    drops=True,
)
declare(
    "QR007",
    "too-long",
    Severity.ERROR,
    "golden set, run YAML",
    "An id, question, tag or name longer than its cap (4,096 characters; 65,536 for a question): it is not read.",
    drops=True,
)
declare(
    "QR101",
    "duplicate-query",
    Severity.ERROR,
    "golden set, run",
    "A query id given twice.",
    drops=True,
)


class ShapeReader:
    """Shared state for one YAML file: its text and the findings being collected."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.findings: list[Finding] = []

    def add(self, code: str, span: Span, message: str, **kw: object) -> None:
        self.findings.append(finding(code, span, message, **kw))  # type: ignore[arg-type]

    def expect(self, node: YNode | None, kind: type, what: str, where: Span) -> bool:
        if isinstance(node, kind):
            return True
        if isinstance(node, YAlias):
            return False  # already reported as QR002
        expected = {YMap: "a mapping", YSeq: "a list", YScalar: "a value"}[kind]
        span = node.span if node is not None else where
        self.add("QR004", span, f"{what} must be {expected}, found {describe(node)}.")
        return False

    def keys(
        self, node: YMap, allowed: dict[str, str], what: str
    ) -> dict[str, tuple[YScalar, YNode]]:
        """Known keys of a mapping; unknown and duplicate keys are reported."""
        seen: dict[str, tuple[YScalar, YNode]] = {}
        for key, value in node.items:
            name = key_text(key)
            if name is None or not isinstance(key, YScalar):
                self.add("QR004", key.span, f"Keys of {what} must be plain names.")
                continue
            if name not in allowed:
                close = _closest_key(name, allowed)
                hint = f" Did you mean `{close}`?" if close else ""
                fixes = (
                    (Fix(f"Rename to `{close}`", (TextEdit(key.inner, close),), True),)
                    if close
                    else ()
                )
                self.add(
                    "QR003",
                    key.span,
                    f"Unknown key `{name}` in {what}.{hint} Known keys: {', '.join(allowed)}.",
                    fixes=fixes,
                )
                continue
            if name in seen:
                self.add(
                    "QR005",
                    key.span,
                    f"`{name}` is given twice in {what}; only the first is used here, while other "
                    "YAML readers silently keep the last. Merge them.",
                    related=(Related(seen[name][0].span, "first given here"),),
                )
                continue
            seen[name] = (key, value)
        return seen

    def string(self, node: YNode, what: str) -> str | None:
        if isinstance(node, YScalar) and node.type not in ("null", "bool"):
            return node.value
        if not isinstance(node, YAlias):
            self.add("QR004", node.span, f"{what} must be text, found {describe(node)}.")
        return None

    def capped(self, value: str | None, span: Span, cap: int, what: str) -> str | None:
        """``value``, or None (and QR007) when it is longer than ``cap``: a hostile file's
        megabyte id would cost every check, comparison and message that reads it."""
        if value is not None and len(value) > cap:
            self.add("QR007", span, f"{too_long(what, len(value), cap)}: it is not read.")
            return None
        return value

    def positive_int(self, node: YNode, what: str) -> int | None:
        value = node.as_int() if isinstance(node, YScalar) else None
        if value is None or not 1 <= value <= INT_LIMIT:
            if not isinstance(node, YAlias):
                self.add(
                    "QR004",
                    node.span,
                    f"{what} must be a positive integer, at most 2^53 ({INT_LIMIT:,}), "
                    f"found {describe(node)}.",
                )
            return None
        return value

    def refs(self, node: YNode, what: str) -> list[Ref]:
        items = node.items if isinstance(node, YSeq) else [node]
        out = []
        for item in items:
            value = self.string(item, what)
            if value is not None and isinstance(item, YScalar):
                out.append(Ref(value, item.inner))
        return out


def read_top(
    text: str,
    keys: dict[str, str],
    what: str,
    limits: YamlLimits = DEFAULT_LIMITS,
    doc: YamlDoc | None = None,
) -> tuple[ShapeReader, dict[str, tuple[YScalar, YNode]] | None]:
    """Parse a YAML file whose root is a mapping with known ``keys``: the reader (holding the
    findings so far) and the root's keys, or None when there is no usable root mapping.
    ``doc``: the file's tree, parsed with ``limits`` already (the formatter has it)."""
    doc = doc if doc is not None else parse_yaml(text, limits)
    p = ShapeReader(text)
    p.findings.extend(doc.findings)
    root = doc.root
    if root is None or (isinstance(root, YScalar) and root.type == "null"):
        return p, None
    if not p.expect(root, YMap, what[0].upper() + what[1:], Span(0, 0)):
        return p, None
    assert isinstance(root, YMap)
    return p, p.keys(root, keys, what)


def _closest_key(name: str, allowed: dict[str, str]) -> str | None:
    """A dozen keys: difflib is plenty."""
    match = difflib.get_close_matches(name, list(allowed), n=1, cutoff=0.6)
    return match[0] if match else None


def read_entries(
    p: ShapeReader,
    node: YMap,
    into: dict[str, Any],
    parse: Callable[[YScalar, YNode], object],
    what: str,
    cap: int | None = None,
) -> None:
    """Parse a mapping of id -> entry, reporting duplicate ids (QR101) with the first as related,
    and (with ``cap``) ids longer than it (QR007)."""
    for key, value in node.items:
        qid = key_text(key)
        if qid is None or not isinstance(key, YScalar):
            p.add("QR004", key.span, f"A {what} id must be a plain name or number.")
            continue
        if cap is not None and p.capped(qid, key.span, cap, f"A {what} id") is None:
            continue
        entry = parse(key, value)
        if qid in into:
            duplicate_query(p, qid, key.span, into[qid].span)
            continue
        into[qid] = entry


def duplicate_query(p: ShapeReader, qid: str, span: Span, first: Span) -> None:
    """QR101: a query id given again at ``span``, first given at ``first``."""
    p.add(
        "QR101",
        span,
        f"Query id `{qid}` is given twice; only the first is scored here, while other "
        "YAML readers (PyYAML, pytrec_eval scripts) silently keep the last and lose the "
        "first's judgments. Rename one or merge them.",
        related=(Related(first, f"`{qid}` first given here"),),
    )


def doc_id(p: ShapeReader, node: YNode) -> str | None:
    if isinstance(node, YScalar) and node.type not in ("null", "bool") and node.value.strip():
        return node.value
    if not isinstance(node, YAlias):
        p.add("QR004", node.span, f"A document id must be text, found {describe(node)}.")
    return None
