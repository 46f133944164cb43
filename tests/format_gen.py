"""Golden sets and run YAML files drawn for the formatter's property tests: every key in any
order, comments everywhere YAML allows them (above keys, after values, between list items,
inside a flow list, under a value, between questions), blank lines, CRLF, a byte order mark,
tabs and emoji in comments, ids that YAML 1.1 reads as something else unless quoted (``no``,
``on``, ``0x10``), plain numbers as ids, unusual quoting.

A drawn file is a :class:`Doc`: entries (each with the comments that belong to it) and the
lines between places (which stay at their place), rendered in any order of its entries, so two
renderings that differ only in key order are the same file to a formatter.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from hypothesis import strategies as st
from qrels_lsp.core.formats.yaml.scalar import yaml_float, yaml_scalar

COMMENTS = [
    "plain comment",
    "tab\tinside\tit",
    "emoji 😀 and ✨",
    "日本語のコメント",
    "a # inside",
    "key: value, [not] {yaml}",
    "trailing spaces   ",
    "#",
    "",
]
QUESTIONS = [
    "How do I reset my password?",
    "what does E1042 mean",
    "Can I ship to Mars? Asking for a friend: really",
    "émigré naïve café 😀",
    "no",
    "1e3",
    "a #hash in it",
    "- starts with a dash",
    "'quoted' and \"double\"",
]
DOCS = [
    "kb/a.md",
    "kb/b.md",
    "kb/factory-reset.md#3",
    "setup/guide.md",
    "文書/説明.md",
    "☃/emoji-😀.md",
    "no",
    "on",
    "null",
    "1e3",
    "0x10",
    "007",
    "12",
    "a, b",
    "x: y",
    "#hash",
    "- dash",
    "it's",
    "?what",
    "plain words",
]
RAW = {"0x10", "007", "12", "1e3"}
"""Ids that may be written plain although YAML 1.1 reads them as numbers: a golden set reads
every id as its text; other YAML readers must read the same number after formatting."""
QIDS = [
    "q1",
    "q2",
    "q10",
    "q007",
    "301",
    "0x10",
    "12",
    "no",
    "on",
    "login-after-reset",
    "文書",
    "a b",
]
TAGS = ["critical", "billing", "on", "x y"]


@dataclass
class Entry:
    name: str  # the key's name (what orders it)
    key: str  # as written
    value: list[str | Mapping]  # after the colon on its line, then lines indented from the key
    above: list[tuple[int, str]] = field(default_factory=list)  # (indent, comment) above it
    notes: list[str] = field(default_factory=list)  # comments under it, deeper than its key
    sep: list[str] = field(default_factory=list)  # blank lines (and comments set apart) above
    # `above`, shown unless the entry is first (the first shows its mapping's head instead)


@dataclass
class Mapping:
    """A block mapping: what stays first (its head), its entries."""

    entries: list[Entry]
    head: list[str]
    column: int


@dataclass
class Doc:
    root: Mapping  # its head: the file's header (and `---`)
    tail: list[str]
    newline: str
    bom: bool
    final_newline: bool
    comments: list[str]  # every comment drawn, each once (those of a first entry's `sep` unseen)
    uniform: bool  # every entry of a mapping has the same `sep` (blank lines only)

    def render(self, inner: dict[str, list[int]] | None = None) -> str:
        """The file with the entries of each mapping in ``inner[owner]``'s order (the root's
        owner is ``""``, a question's keys' its id)."""
        lines = _mapping_lines(self.root, inner or {}, "") + self.tail
        text = self.newline.join(lines) + (self.newline if self.final_newline else "")
        return ("\ufeff" if self.bom else "") + text


def _entry_lines(entry: Entry, column: int, inner: dict[str, list[int]]) -> list[str]:
    pad = " " * column
    lines = [" " * min(i, column) + "#" + c for i, c in entry.above]
    lines.append(f"{pad}{entry.key}:{entry.value[0]}")
    for line in entry.value[1:]:
        if isinstance(line, Mapping):
            lines += _mapping_lines(line, inner, entry.name)
        else:
            lines.append(pad + line if line else line)
    lines += [" " * (column + 2) + "#" + n for n in entry.notes]
    return lines


def _mapping_lines(mapping: Mapping, inner: dict[str, list[int]], owner: str) -> list[str]:
    order = inner.get(owner, list(range(len(mapping.entries))))
    lines = list(mapping.head)
    for place, index in enumerate(order):
        entry = mapping.entries[index]
        if place:
            lines += [" " * mapping.column + g if g else "" for g in entry.sep]
        lines += _entry_lines(entry, mapping.column, inner)
    return lines


class Drawer:
    """Draws one file from hypothesis's ``draw``; every comment gets a number, so each is once
    in the file and can be counted after formatting."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.comments: list[str] = []
        self.final_newline = True
        self.uniform = False  # every entry of a mapping gets the same blank lines above it

    def comment(self) -> str:
        text = f" c{len(self.comments)} {self.draw(st.sampled_from(COMMENTS))}"
        self.comments.append(text)
        return text

    def maybe(self, p: float = 0.3) -> bool:
        return self.draw(st.floats(0, 1)) < p

    def above(self, column: int) -> list[tuple[int, str]]:
        return [
            (self.draw(st.integers(0, column)), self.comment())
            for _ in range(self.draw(st.integers(0, 2)))
        ]

    def trailing(self) -> str:
        return "  #" + self.comment() if self.maybe() else ""

    def gap(self) -> list[str]:
        kinds = ["none", "blank", "blanks"] + ([] if self.uniform else ["section"])
        kind = self.draw(st.sampled_from(kinds))
        if kind == "blank":
            return [""]
        if kind == "blanks":
            return ["", ""]
        if kind == "section":
            return ["", "#" + self.comment(), ""]
        return []

    def separated(self, entries: list[Entry]) -> list[Entry]:
        """``entries``, each with blank lines (and a comment set apart) above it: the same for
        all when drawing uniform files."""
        same = self.gap()
        for entry in entries:
            entry.sep = list(same) if self.uniform else self.gap()
        return entries

    def scalar(self, value: str, flow: bool = False) -> str:
        style = self.draw(st.sampled_from(["auto", "double", "single", "raw"]))
        if style == "raw" and value in RAW:
            return value
        if style == "double":
            return _double(value, escaped=self.maybe(0.5))
        if style == "single" and "\t" not in value:
            return "'" + value.replace("'", "''") + "'"
        return yaml_scalar(value, flow=flow)

    def notes(self) -> list[str]:
        return [self.comment() for _ in range(self.draw(st.integers(0, 1)))]


def _double(value: str, escaped: bool = False) -> str:
    """A double-quoted YAML scalar; ``escaped``: every non-ASCII character as a YAML escape
    (``\\u00e9``, ``\\U0001f600``: YAML has no surrogate pairs)."""
    text = json.dumps(value, ensure_ascii=False)
    if escaped:
        text = "".join(
            c if c.isascii() else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
            for c in text
        )
    return text


def _unique(draw: st.DrawFn, pool: list[str], low: int, high: int) -> list[str]:
    return draw(st.lists(st.sampled_from(pool), min_size=low, max_size=high, unique=True))


def _relevant(d: Drawer) -> list[str]:
    docs = _unique(d.draw, DOCS, 0, 4)
    graded = d.maybe(0.5)
    grades = [d.draw(st.sampled_from([-1, 0, 1, 2, 3])) if graded else 1 for _ in docs]
    kinds = ["flow", "block", "flow-lines"] if not graded and len(docs) > 1 else ["flow", "block"]
    kind = d.draw(st.sampled_from(kinds))
    if not docs:
        return [" []" if d.maybe(0.5) else " {}"]
    if kind == "flow" and not graded:
        return [" [" + ", ".join(d.scalar(x, flow=True) for x in docs) + "]" + d.trailing()]
    if kind == "flow":
        return [
            " {"
            + ", ".join(f"{d.scalar(x, flow=True)}: {g}" for x, g in zip(docs, grades, strict=True))
            + "}"
            + d.trailing()
        ]
    if kind == "flow-lines":  # a flow list over lines, a comment inside
        first, *rest = [d.scalar(x, flow=True) for x in docs]
        return [
            f" [{first},  #{d.comment()}",
            *(f"    {x}," for x in rest[:-1]),
            f"    {rest[-1]}]",
        ]
    out = [d.trailing()]
    for x, g in zip(docs, grades, strict=True):
        if d.maybe(0.15):
            out.append("  #" + d.comment())
        item = f"  - {d.scalar(x)}" if not graded else f"  {d.scalar(x)}: {g}"
        out.append(item + d.trailing())
    return out


def _question(d: Drawer) -> list[str]:
    text = d.draw(st.sampled_from(QUESTIONS))
    if d.maybe(0.2) and "\n" not in text:
        chomp = "" if d.final_newline else "-"
        return [f" |{chomp}", "  " + text.replace("#", "hash"), "  second line"]
    return [" " + d.scalar(text) + d.trailing()]


def _query(d: Drawer, qid: str) -> Entry:
    if d.maybe(0.1):  # a question written as a flow mapping, on one line
        tags = ", ".join(d.scalar(t, flow=True) for t in _unique(d.draw, TAGS, 0, 2))
        inside = [f"question: {_double(d.draw(st.sampled_from(QUESTIONS)))}", f"tags: [{tags}]"]
        if d.maybe(0.5):
            inside.append(
                "relevant: ["
                + ", ".join(d.scalar(x, flow=True) for x in _unique(d.draw, DOCS, 0, 3))
                + "]"
            )
        order = d.draw(st.permutations(inside))
        return Entry(qid, d.scalar(qid), [" {" + ", ".join(order) + "}" + d.trailing()], d.above(2))
    makers = {
        "question": lambda: _question(d),
        "relevant": lambda: _relevant(d),
        "unanswerable": lambda: [" " + d.draw(st.sampled_from(["true", "false"])) + d.trailing()],
        "tags": lambda: [
            " [" + ", ".join(d.scalar(t, flow=True) for t in _unique(d.draw, TAGS, 0, 2)) + "]"
        ],
        "notes": lambda: [" " + d.scalar("for the maintainers: check") + d.trailing()],
        "owner": lambda: [" support-ml"],  # an unknown key: QR003, kept after the known ones
    }
    fields = []
    for name in _unique(d.draw, list(makers), 1, len(makers)):
        key = name if not d.maybe(0.1) else json.dumps(name)
        fields.append(
            Entry(name, key, makers[name](), d.above(4), d.notes() if d.maybe(0.2) else [])
        )
    head = [] if not d.maybe(0.1) else ["    #" + d.comment(), ""]
    mapping = Mapping(d.separated(fields), head, 4)
    return Entry(qid, d.scalar(qid), [d.trailing(), mapping], d.above(2))


@st.composite
def golden_sets(draw: st.DrawFn) -> Doc:
    d = Drawer(draw)
    d.final_newline = d.maybe(0.8)
    d.uniform = d.maybe(0.3)
    qids = _unique(draw, QIDS, 1, 6)
    queries = d.separated([_query(d, q) for q in qids])
    qhead = [] if not d.maybe(0.2) else [""]
    top_makers = {
        "description": lambda: [" " + d.scalar("Support questions: from tickets") + d.trailing()],
        "corpus": lambda: [" corpus/" + d.trailing()],
        "k": lambda: [" 5" + d.trailing()],
        "relevance_level": lambda: [" 1"],
        "judgments": lambda: [" exhaustive" + d.trailing()],
        "runs": lambda: (
            [" [runs/*.run.yaml]"] if d.maybe(0.5) else ["", "  - runs/*.run.yaml" + d.trailing()]
        ),
        "compare_to": lambda: [" bm25"],
        "chunks": lambda: [' {separator: "#"}' + d.trailing()],
        "fusions": lambda: ["", "  - {name: rrf, method: rrf, runs: [bm25, dense]}" + d.trailing()],
        "x-extra": lambda: [" 1"],  # an unknown key: QR003, kept after the known ones
    }
    names = _unique(draw, list(top_makers), 0, len(top_makers))
    entries = [
        Entry(n, n, top_makers[n](), d.above(0), [d.comment()] if d.maybe(0.1) else [])
        for n in names
    ]
    queries_entry = Entry(
        "queries", "queries", [d.trailing(), Mapping(queries, qhead, 2)], d.above(0)
    )
    place = draw(st.integers(0, len(entries)))
    entries.insert(place, queries_entry)
    head = ["#" + d.comment(), ""] if d.maybe(0.3) else []
    if d.maybe(0.1):
        head.append("---")
    return Doc(
        root=Mapping(d.separated(entries), head, 0),
        uniform=d.uniform,
        tail=["", "#" + d.comment()] if d.maybe(0.2) else [],
        newline=draw(st.sampled_from(["\n", "\r\n"])),
        bom=d.maybe(0.1),
        final_newline=d.final_newline,
        comments=d.comments,
    )


def _ranking(d: Drawer) -> list[str]:
    docs = _unique(d.draw, DOCS, 0, 5)
    kind = d.draw(st.sampled_from(["flow", "block", "scores"]))
    if kind == "flow" or not docs:
        return [" [" + ", ".join(d.scalar(x, flow=True) for x in docs) + "]" + d.trailing()]
    if kind == "block":
        return [d.trailing(), *(f"  - {d.scalar(x)}" + d.trailing() for x in docs)]
    scores = d.draw(
        st.lists(st.floats(-10, 10, allow_nan=False), min_size=len(docs), max_size=len(docs))
    )
    return [
        d.trailing(),
        *(f"  {d.scalar(x)}: {yaml_float(s)}" for x, s in zip(docs, scores, strict=True)),
    ]


@st.composite
def run_files(draw: st.DrawFn) -> Doc:
    d = Drawer(draw)
    d.final_newline = d.maybe(0.8)
    d.uniform = d.maybe(0.3)
    qids = _unique(draw, QIDS, 0, 6)
    rankings = d.separated([Entry(q, d.scalar(q), _ranking(d), d.above(2)) for q in qids])
    top = {
        "qrels": lambda: [" ../support.qrels.yaml" + d.trailing()],
        "name": lambda: [" " + d.scalar("dense ✨") + d.trailing()],
        "description": lambda: [" bi-encoder, top 5"],
        "x-meta": lambda: [" 1"],
    }
    names = _unique(draw, list(top), 0, len(top))
    entries = [Entry(n, n, top[n](), d.above(0)) for n in names]
    value: list[str | Mapping] = [d.trailing(), Mapping(rankings, [], 2)] if rankings else [" {}"]
    entries.insert(
        draw(st.integers(0, len(entries))), Entry("results", "results", value, d.above(0))
    )
    return Doc(
        root=Mapping(d.separated(entries), ["#" + d.comment(), ""] if d.maybe(0.3) else [], 0),
        uniform=d.uniform,
        tail=[],
        newline=draw(st.sampled_from(["\n", "\r\n"])),
        bom=d.maybe(0.1),
        final_newline=d.final_newline,
        comments=d.comments,
    )


def shuffled(doc: Doc, seed: int, queries_too: bool) -> str:
    """``doc`` with its top-level keys, each question's keys (and, ``queries_too``, the questions)
    in another order: the same file to the formatter. Each mapping's first entry stays first
    (it shows its mapping's head, not the blank lines of its own), unless every entry of the
    mapping has the same."""
    rng = random.Random(seed)
    inner: dict[str, list[int]] = {}
    _shuffle_mapping(doc.root, "", rng, inner, queries_too, doc.uniform)
    return doc.render(inner)


def _shuffle_mapping(
    mapping: Mapping,
    owner: str,
    rng: random.Random,
    inner: dict[str, list[int]],
    top: bool,
    uniform: bool,
) -> None:
    order = list(range(len(mapping.entries)))
    if owner not in ("queries", "results") or top:
        rest = order if uniform else order[1:]
        rng.shuffle(rest)
        order = rest if uniform else order[:1] + rest
    inner[owner] = order
    for entry in mapping.entries:
        for part in entry.value[1:]:
            if isinstance(part, Mapping):
                _shuffle_mapping(part, entry.name, rng, inner, top, uniform)
