"""A workspace whose every id, run name, question, tag, document title and file name was written
to break out of wherever it is printed (Markdown tables and prose, HTML, a CI log, a workflow
command, an editor's plain text), and the structural checks that say it did not: the rendered
Markdown's tables keep their cells and hold no link, image or HTML from the data; the HTML's
elements and attributes are the page's own; plain text stays one printable line.

Used by tests/test_escaping_everywhere.py (the command line) and tests/lsp/test_escaping.py (the
server)."""

from __future__ import annotations

import json
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
from markdown_it import MarkdownIt

PIECES = [
    "a|b",
    "back\\|pipe",
    "`tick``s`",
    "[verdict: pass](http://evil.example/x)",
    "![i](http://evil.example/i.png)",
    "<img src=x onerror=alert(1)>",
    "</script><script>alert(1)</script>",
    "<!-- open",
    "::error::forged",
    "##[error]old",
    "line\nbreak",
    "cr\rhere",
    "sep\u2028x",
    "rtl\u202eevil",
    "%0A::warning::x",
    "emoji 🎉 *bold* _em_",
    "back\\slash",
    "http://evil.example www.evil.example",
    "&amp; &lt;b&gt;",
]
"""What an attacker writes: each becomes part of a question id, a document's file name and
title, a question, a tag and a run's name."""

N = len(PIECES)
QIDS = [f"q{i}{p}" for i, p in enumerate(PIECES)]
# A file name cannot hold `/` (nor NUL): those pieces lose it there, and keep it in ids.
DOCS = [f"d{i}{p.replace('/', '∕')}.md" for i, p in enumerate(PIECES)]
RUN_NAMES = (f"base {PIECES[3]}|{PIECES[5]}", f"head {PIECES[4]}`|`{PIECES[6]}\n{PIECES[8]}")
TAG = f"crit{PIECES[0]}{PIECES[5]}"
GOLDEN = "g`|<img src=x onerror=alert(1)>[l](http:∕∕e)##[x.qrels.yaml"
UNKNOWN_DOC = "</script><img src=x onerror=alert(2)>|`"  # judged, not in the corpus: QR106


def yaml_str(text: str) -> str:
    """A YAML double-quoted scalar of exactly ``text`` (JSON's escapes are YAML's; U+2028
    written as an escape, since YAML would break the line there)."""
    return json.dumps(text, ensure_ascii=False).replace("\u2028", "\\u2028")


def build(root: Path) -> Path:
    """The workspace under ``root``; returns the golden set's path. Question ``i`` judges
    documents ``i`` and ``i+1``; the head run trails the base on most questions (after an
    unjudged document, or with one between the two) and beats it on every fourth, where the
    base ranks the unjudged document first: questions flip both ways, critical ones worse."""
    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    for i, (name, piece) in enumerate(zip(DOCS, PIECES, strict=True)):
        (corpus / name).write_text(f"# title {piece}\n\nbody {i} {piece}\n", encoding="utf-8")
    lines = [
        "# every name below is an attack",
        "corpus: corpus/",
        "k: 5",
        "runs: [runs/*.run.yaml]",
    ]
    lines.append("queries:")
    for i, (qid, piece) in enumerate(zip(QIDS, PIECES, strict=True)):
        relevant = {DOCS[i]: 2, DOCS[(i + 1) % N]: 1}
        if i == 0:
            relevant[UNKNOWN_DOC] = 1
        inner = ", ".join(f"{yaml_str(d)}: {g}" for d, g in relevant.items())
        lines += [
            f"  {yaml_str(qid)}:",
            f"    question: {yaml_str('question ' + piece)}",
            f"    tags: [{yaml_str(TAG)}]",
            f"    relevant: {{{inner}}}",
        ]
    golden = root / GOLDEN
    golden.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = root / "runs"
    runs.mkdir()
    for name, file, worse in ((RUN_NAMES[0], "base", False), (RUN_NAMES[1], "head", True)):
        out = [f"name: {yaml_str(name)}", "results:"]
        for i, qid in enumerate(QIDS):
            found = [DOCS[i], DOCS[(i + 1) % N]]
            other = DOCS[(i + 3) % N]  # not judged for this question
            behind = worse != (i % 4 == 3)
            ranking = [other, *found] if behind and i % 2 == 0 else [*found, other]
            if behind and i % 2 == 1:
                ranking = [DOCS[i], other, DOCS[(i + 1) % N]]
            out.append(f"  {yaml_str(qid)}: [{', '.join(map(yaml_str, ranking))}]")
        (runs / f"{file}.run.yaml").write_text("\n".join(out) + "\n", encoding="utf-8")
    return golden


# -- Markdown -------------------------------------------------------------------------------------

MARKDOWN_TAGS = {"h2", "h3", "p", "strong", "em", "code", "pre", "br", "ul", "li", "table", "thead",
                 "tbody", "tr", "th", "td", "blockquote"}  # fmt: skip


class Tree(HTMLParser):
    """Every element and attribute of rendered HTML, the text of each table row's cells, and
    all the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.comments: list[str] = []
        self.tables: list[list[list[str]]] = []  # each row's cells' text, the header first
        self.codes: list[str] = []  # each code span's text
        self.text: list[str] = []
        self._cell: list[str] | None = None
        self._code: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "code":
            self._code = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "code" and self._code is not None:
            self.codes.append("".join(self._code))
            self._code = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        for part in (self._cell, self._code):
            if part is not None:
                part.append(data)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def renderings(markdown: str) -> dict[str, Tree]:
    """``markdown`` rendered as GitHub renders it (cmark-gfm, with raw HTML let through, as an
    unsafe renderer would) and as markdown-it does (VS Code's Markdown engine; HTML on)."""
    from cmarkgfm.cmark import Options

    out = {}
    for name, html in (
        (
            "cmark-gfm",
            cmarkgfm.github_flavored_markdown_to_html(markdown, Options.CMARK_OPT_UNSAFE),
        ),
        ("markdown-it", MarkdownIt("commonmark").enable("table").render(markdown)),
    ):
        tree = Tree()
        tree.feed(html)
        tree.close()
        out[name] = tree
    return out


def assert_inert_markdown(markdown: str, links: tuple[str, ...] = ()) -> dict[str, Tree]:
    """No element of the rendered Markdown comes from the data (no link but to ``links``'
    prefixes, no image, no HTML). (A row broken by a ``|`` still has its header's number of
    cells, the excess dropped: whether it held is seen in what its cells say.)"""
    trees = renderings(markdown)
    for name, tree in trees.items():
        for tag, attrs in tree.tags:
            if tag == "a":
                assert (attrs.get("href") or "").startswith(links) and links, (name, attrs)
                continue
            assert tag in MARKDOWN_TAGS, (name, tag, attrs)
            allowed = {"th": ("align", "style"), "td": ("align", "style"), "code": ("class",)}
            assert all(k in allowed.get(tag, ()) for k in attrs), (name, tag, attrs)
        assert not tree.comments, (name, tree.comments)
    return trees


# -- plain text -----------------------------------------------------------------------------------


def shown(text: str) -> str:
    """What a quoted piece of untrusted text reads as, once rendered: each character that would
    break or hide a line as its escape, ``##[`` broken (independent of core/base/escape.py)."""
    out = []
    for c in text:
        if c.isprintable() or unicodedata.category(c) == "Zs":
            out.append(c)
        elif ord(c) < 0x100:
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(f"\\u{ord(c):04x}")
    return "".join(out).replace("##[", "#\\x23[")


def assert_plain_line(text: str) -> None:
    """One line of printable text: no line break, control, bidirectional override or
    zero-width character from the data."""
    bad = [c for c in text if not (c.isprintable() or unicodedata.category(c) == "Zs")]
    assert not bad, (text, bad)


# -- HTML -----------------------------------------------------------------------------------------


def all_strings(doc: object) -> list[str]:
    """Every string in a JSON document, keys too."""
    if isinstance(doc, str):
        return [doc]
    if isinstance(doc, dict):
        return [s for k, v in doc.items() for s in (k, *all_strings(v))]
    if isinstance(doc, list):
        return [s for v in doc for s in all_strings(v)]
    return []
