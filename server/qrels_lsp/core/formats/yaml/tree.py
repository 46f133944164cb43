"""A YAML syntax tree with spans, built from PyYAML's event stream.

Why events and not ``yaml.safe_load``: loading loses positions, silently keeps the last of two
duplicate keys, expands aliases (a "billion laughs" file eats the machine) and stops at the first
syntax error. The event stream gives code point offsets for every node, never constructs tags or
expands aliases, and everything read before a syntax error is still usable: half-typed YAML in an
editor keeps its diagnostics and lenses for the part above the cursor.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import TYPE_CHECKING

from ...base.files import QR006
from ...base.findings import Finding, Related, Severity, declare, finding
from ...base.text import Span

if TYPE_CHECKING:
    import yaml

declare(
    "QR001",
    "yaml-syntax",
    Severity.ERROR,
    "YAML",
    "The file is not valid YAML.",
    drops=True,
)
declare(
    "QR002",
    "yaml-unsupported",
    Severity.ERROR,
    "YAML",
    "Anchors, aliases, merge keys and tags are not allowed (they are never constructed).",
    drops=True,
)
declare(
    "QR004",
    "wrong-type",
    Severity.ERROR,
    "YAML",
    "A value of the wrong type or shape.",
    drops=True,
)


@functools.cache
def _pyyaml() -> ModuleType:
    """PyYAML, imported when the first YAML text is read rather than at start-up: the language
    server answers ``initialize`` before any file is open, and PyYAML is a sixth of its imports."""
    import yaml

    return yaml


@functools.cache
def _loader() -> type:
    """libyaml's parser when PyYAML has it (same events as the pure-Python one, far faster)."""
    yaml = _pyyaml()
    return getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader  # type: ignore[no-any-return]


@functools.cache
def _resolver() -> yaml.resolver.Resolver:
    return _pyyaml().resolver.Resolver()  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class YamlLimits:
    """How much of a YAML file is read: a file past a limit stops there, with a finding.

    A tree node costs a few hundred bytes and each entry a golden set or run holds costs more
    again in checks and scores: these bound what a hostile file (a million one-line questions in
    16 MB) can make the tool build.
    """

    max_nodes: int = 2_500_000  # values and keys in the whole file
    max_items: int = 1_000_000  # entries in one mapping or list


DEFAULT_LIMITS = YamlLimits()


class _TooLarge(Exception):
    def __init__(self, at: int, message: str) -> None:
        self.at = at
        self.message = message


def implicit_type(value: str) -> str:
    """What YAML 1.1 reads an unquoted ``value`` as: int, float, bool, null, str...

    Short values (ids, grades, keys: the same few thousand again and again) are looked up in a
    cache; PyYAML's resolver runs its regular expressions for each."""
    if len(value) <= _CACHED_CHARS:
        return _implicit_type_cached(value)
    return _implicit_type(value)


_CACHED_CHARS = 80


def _implicit_type(value: str) -> str:
    tag: str = _resolver().resolve(_pyyaml().ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
    return tag.rsplit(":", 1)[-1]


_implicit_type_cached = functools.lru_cache(maxsize=1 << 16)(_implicit_type)


def _at(mark: object) -> int:
    """A mark's code point offset (PyYAML types marks as optional; events always carry one)."""
    return int(getattr(mark, "index", 0))


@dataclass(slots=True)
class YNode:
    span: Span


@dataclass(slots=True)
class YScalar(YNode):
    value: str
    plain: bool = True
    quoted_span: Span | None = None  # the text between the quotes, for edits that keep the style

    @property
    def type(self) -> str:
        """The YAML 1.1 core type of a plain scalar (``str`` when quoted): int, float, bool, null, str."""
        if not self.plain:
            return "str"
        return implicit_type(self.value)

    def as_int(self) -> int | None:
        if self.type != "int":
            return None
        try:
            return int(self.value.replace("_", ""), 0)
        except ValueError:
            return None

    def as_bool(self) -> bool | None:
        if self.type != "bool":
            return None
        return self.value.lower() in ("yes", "true", "on", "y")

    @property
    def inner(self) -> Span:
        """The span of the value without quotes: where a replacement goes."""
        return self.quoted_span or self.span


@dataclass(slots=True)
class YMap(YNode):
    items: list[tuple[YNode, YNode]] = field(default_factory=list)
    flow: bool = False


@dataclass(slots=True)
class YSeq(YNode):
    items: list[YNode] = field(default_factory=list)
    flow: bool = False


@dataclass(slots=True)
class YAlias(YNode):
    """An alias (``*name``). Kept as a leaf: it is reported, never expanded."""


@dataclass(slots=True)
class YamlDoc:
    root: YNode | None
    findings: list[Finding]
    complete: bool  # False when a syntax error cut the tree short


def describe(node: YNode | None) -> str:
    """The kind of a node in words, for messages ("expected a mapping, found a list")."""
    if node is None:
        return "nothing"
    if isinstance(node, YMap):
        return "a mapping"
    if isinstance(node, YSeq):
        return "a list"
    if isinstance(node, YAlias):
        return "an alias"
    if isinstance(node, YScalar):
        t = node.type
        return {"null": "an empty value", "str": "text", "int": "an integer"}.get(t, f"a {t}")
    return "a value"


def key_text(node: YNode) -> str | None:
    """A mapping key as text: query and document ids may be written as plain numbers."""
    if isinstance(node, YScalar) and node.type != "null":
        return node.value
    return None


def _scalar_from_event(text: str, ev: yaml.ScalarEvent) -> YScalar:
    start, end = _at(ev.start_mark), _at(ev.end_mark)
    if ev.style in ("|", ">"):
        # A block scalar's end mark is past its trailing line breaks, i.e. at the start of the
        # next key's line; end the span at its last character so that a query's block (and a fix
        # that appends after it) stays on the query's own lines.
        while end > start + 1 and text[end - 1] in " \t\r\n":
            end -= 1
    plain = ev.style in (None, "") and bool(ev.implicit[0])
    quoted = None
    if ev.style in ("'", '"') and end - start >= 2:
        # Skip an anchor or tag before the quote; those are reported elsewhere.
        q = text.find(ev.style, start, end)
        if q != -1 and text[end - 1] == ev.style:
            quoted = Span(q + 1, end - 1)
    return YScalar(Span(start, end), ev.value, plain, quoted)


def _events(text: str) -> Iterator[yaml.Event]:
    return _pyyaml().parse(text, Loader=_loader())  # type: ignore[no-any-return]


def parse_yaml(text: str, limits: YamlLimits = DEFAULT_LIMITS) -> YamlDoc:
    """Parse the first document of ``text`` into a tree; never raises.

    Anchors, aliases and explicit tags are reported (QR002) and left unexpanded and unconstructed.
    A leading BOM (which an editor may send) is skipped by libyaml without being counted in its
    marks, so the text is parsed without it and every span shifted back over it.
    """
    if text.startswith("\ufeff"):
        return _shifted(_parse_yaml(text[1:], limits), 1)
    return _parse_yaml(text, limits)


def _shifted(doc: YamlDoc, delta: int) -> YamlDoc:
    stack: list[YNode] = [doc.root] if doc.root is not None else []
    while stack:
        node = stack.pop()
        node.span = node.span.shifted(delta)
        if isinstance(node, YScalar) and node.quoted_span is not None:
            node.quoted_span = node.quoted_span.shifted(delta)
        elif isinstance(node, YMap):
            for k, v in node.items:
                stack.extend((k, v))
        elif isinstance(node, YSeq):
            stack.extend(node.items)
    findings = [replace(f, span=f.span.shifted(delta)) for f in doc.findings]
    return YamlDoc(doc.root, findings, doc.complete)


def _reader_error_span(text: str, exc: yaml.YAMLError) -> Span:
    """Where a reader error (a control character such as NUL) is: libyaml counts UTF-8 bytes."""
    position = getattr(exc, "position", None)
    if not isinstance(position, int):
        return Span(0, min(1, len(text)))
    if _loader() is not _pyyaml().SafeLoader:
        position = len(text.encode("utf-8", "surrogatepass")[:position].decode("utf-8", "ignore"))
    position = max(0, min(position, len(text)))
    return Span(position, min(position + 1, len(text)))


def _parse_yaml(text: str, limits: YamlLimits) -> YamlDoc:
    yaml = _pyyaml()
    findings: list[Finding] = []
    stack: list[YMap | YSeq] = []
    pending_key: list[YNode | None] = []
    root: YNode | None = None
    documents = 0
    complete = True
    nodes = 0

    def attach(node: YNode) -> None:
        nonlocal root, nodes
        nodes += 1
        if nodes > limits.max_nodes:
            raise _TooLarge(node.span.start, f"more than {limits.max_nodes:,} values in the file")
        if not stack:
            if root is None:
                root = node
            return
        parent = stack[-1]
        if len(parent.items) >= limits.max_items:
            what = "entries in one mapping" if isinstance(parent, YMap) else "items in one list"
            raise _TooLarge(node.span.start, f"more than {limits.max_items:,} {what}")
        if isinstance(parent, YSeq):
            parent.items.append(node)
        elif pending_key[-1] is None:
            pending_key[-1] = node
        else:
            key = pending_key[-1]
            pending_key[-1] = None
            parent.items.append((key, node))

    try:
        for ev in _events(text):
            if isinstance(ev, yaml.DocumentStartEvent):
                documents += 1
                if documents == 2:
                    span = Span(_at(ev.start_mark), max(_at(ev.end_mark), _at(ev.start_mark) + 1))
                    findings.append(
                        finding(
                            "QR004",
                            span,
                            "Only the first YAML document is read; remove the others.",
                        )
                    )
                continue
            if documents > 1:
                continue
            anchor = getattr(ev, "anchor", None)
            tag = getattr(ev, "tag", None)
            if anchor is not None or isinstance(ev, yaml.AliasEvent):
                findings.append(_unsupported(ev, "anchors and aliases are not allowed here"))
            elif tag is not None and not _implicit_tag(ev):
                findings.append(
                    _unsupported(ev, f"the tag {tag} is not allowed (it is never constructed)")
                )
            if isinstance(ev, yaml.ScalarEvent):
                attach(_scalar_from_event(text, ev))
            elif isinstance(ev, yaml.AliasEvent):
                attach(YAlias(Span(_at(ev.start_mark), _at(ev.end_mark))))
            elif isinstance(ev, yaml.MappingStartEvent):
                node: YMap | YSeq = YMap(
                    Span(_at(ev.start_mark), _at(ev.end_mark)), flow=bool(ev.flow_style)
                )
                attach(node)
                stack.append(node)
                pending_key.append(None)
            elif isinstance(ev, yaml.SequenceStartEvent):
                node = YSeq(Span(_at(ev.start_mark), _at(ev.end_mark)), flow=bool(ev.flow_style))
                attach(node)
                stack.append(node)
                pending_key.append(None)
            elif isinstance(ev, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                done = stack.pop()
                pending_key.pop()
                done.span = Span(done.span.start, _content_end(text, done, _at(ev.end_mark)))
    except yaml.MarkedYAMLError as exc:
        complete = False
        findings.append(_syntax_finding(text, exc))
        end = len(text)
        for open_node in stack:
            open_node.span = Span(open_node.span.start, max(open_node.span.start, end))
    except yaml.YAMLError as exc:  # a reader error: located by its position, not a mark
        complete = False
        findings.append(finding("QR001", _reader_error_span(text, exc), f"YAML: {exc}"))
    except _TooLarge as exc:
        complete = False
        at = max(0, min(exc.at, len(text)))
        findings.append(
            finding(
                QR006,
                Span(at, at),
                f"This file has {exc.message}: it is read up to here and the rest is left out. "
                "Split it, or convert it to TREC (`qrels-lsp convert`), which has no such limit.",
            )
        )
        for open_node in stack:
            open_node.span = Span(open_node.span.start, max(open_node.span.start, at))
    return YamlDoc(root, findings, complete)


def _content_end(text: str, node: YMap | YSeq, end_index: int) -> int:
    """Block collections end where the next token starts; pull the end back over trailing blanks."""
    if node.flow:
        return end_index
    last = _last_leaf_end(node)
    return last if last is not None else end_index


def _last_leaf_end(node: YNode) -> int | None:
    while True:
        if isinstance(node, YMap | YSeq) and node.flow:
            return node.span.end
        if isinstance(node, YMap):
            if not node.items:
                return None
            node = node.items[-1][1]
        elif isinstance(node, YSeq):
            if not node.items:
                return None
            node = node.items[-1]
        else:
            return node.span.end


def _implicit_tag(ev: yaml.Event) -> bool:
    """A tag that was resolved, not written (e.g. the ``!`` of a quoted scalar)."""
    tag = getattr(ev, "tag", None)
    return tag in (None, "!")


def _unsupported(ev: yaml.Event, what: str) -> Finding:
    span = Span(_at(ev.start_mark), max(_at(ev.end_mark), _at(ev.start_mark) + 1))
    return finding("QR002", span, f"YAML {what}: write the value out in full.")


def _syntax_finding(text: str, exc: yaml.MarkedYAMLError) -> Finding:
    mark = exc.problem_mark or exc.context_mark
    if mark is not None and mark.index >= len(text.rstrip()) and exc.context_mark is not None:
        mark = exc.context_mark  # "unclosed [" is reported at the end of file: point at the [
    index = mark.index if mark is not None else 0
    index = max(0, min(index, len(text)))
    end = index + 1 if index < len(text) and text[index] not in "\r\n" else index
    problem = exc.problem or "syntax error"
    message = f"YAML syntax error: {problem}"
    related: tuple[Related, ...] = ()
    context = exc.context_mark
    if exc.context and context is not None:
        # Where the context started is linked, not written: a line number in the words would
        # be wrong once an edit above moved it (the editor moves a finding's places, not its
        # words).
        message += f" ({exc.context})"
        at = max(0, min(context.index, len(text)))
        related = (Related(Span(at, min(at + 1, len(text))), f"{exc.context} started here"),)
    return finding("QR001", Span(index, end), message, related=related)
