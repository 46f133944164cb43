"""Completion never breaks the file: every item the server offers, applied at every id position
of the demo golden set written in each style (block list, flow list, block mapping, flow
mapping; ids plain, double- and single-quoted), leaves a document that YAML and the server's
own parser read with the same questions and exactly the judgments meant, and no new error.

The corpus gains documents whose ids YAML would misread unquoted (`yes`, `1.5`, `- dash`,
`a: b`, `#x`, a trailing space...), so every quoting rule is met at every position.

Positions: the start and the end of every id (inside its quotes), and a new entry after the
last one of every question (`- ` in a block list, `, ` before `]` or `}`, a blank line under a
block mapping). An exhaustive walk, batched: round ``j`` applies the ``j``-th item of every
position at once (they never overlap), and each round's document is read back question by
question, so a break anywhere shows as a wrong question; a failing round is then taken apart to
name the one item that breaks it."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest
import yaml
from lsprotocol import types
from pytest_lsp import LanguageClient
from qrels_lsp.core.base.findings import Severity
from qrels_lsp.core.formats.corpus import load_corpus
from qrels_lsp.core.formats.golden import parse_golden
from qrels_lsp.core.formats.yaml.scalar import yaml_scalar
from qrels_lsp.core.model import Qrels
from qrels_lsp.ide.completion import LIMIT

from .applyedits import apply_text_edits
from .conftest import EXAMPLES, Workspace, diagnostics, open_doc, units
from .test_completion import GOLDEN, complete

# File names that are ids YAML reads as something else, or cannot read, when written plain.
AWKWARD = [
    "yes", "no", "null", "~", "true", "Off", "1.5", "010", "0x1F", "2024-01-01", "=", "<<",
    "- dash.md", "-x.md", "[x.md", "{x.md", "]x.md", "*star.md", "&amp.md", "!bang.md",
    "|pipe.md", ">gt.md", "'q.md", '"dq.md', "%pct.md", "@at.md", "`bt.md", "?q.md", "#hash.md",
    ",comma.md", "a: b.md", "a #b.md", "a,b.md", "a]b.md", "a}b.md", "ends with colon:",
    "trailing ", " leading.md", "back\\slash.md", "dollar$1.md", "brace}.md", "it's.md",
    'say "hi".md', "路由器.md", "😀.md",
]  # fmt: skip
STYLES = ["block list", "flow list", "block mapping", "flow mapping"]
QUOTES = ["", '"', "'"]  # the existing ids of question i are written with QUOTES[i % 3]


@pytest.fixture
def workspace_root(tmp_path: Path) -> Path:
    """The demo workspace, its corpus with the awkward ids added."""
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLES, root)
    for name in AWKWARD:
        (root / "corpus" / name).write_text(f"# {name}\n\nrouter settings {name}\n", "utf-8")
    return root


@dataclass(frozen=True)
class Position:
    qid: str
    at: int  # offset in the variant
    index: int  # the judgment it replaces; len(judgments) for a new entry


@dataclass
class Variant:
    text: str
    judgments: dict[str, list[tuple[str, int]]]  # what each walked question says, in order
    styles: dict[str, str]  # each walked question's style
    starts: list[Position]
    ends: list[Position]
    slots: list[Position]

    @cached_property
    def read(self) -> dict[str, Any]:
        """The variant as YAML reads it."""
        data: dict[str, Any] = yaml.load(self.text, Loader=yaml.CSafeLoader)
        return data

    @cached_property
    def parsed(self) -> Qrels:
        return parse_golden(self.text)


def _quoted(doc: str, quote: str, flow: bool) -> str:
    if quote == '"':
        return json.dumps(doc, ensure_ascii=False)
    if quote == "'":
        return "'" + doc.replace("'", "''") + "'"
    return yaml_scalar(doc, flow=flow)


def variant(text: str, style_of: Callable[[int], str], questions: int = 1 << 30) -> Variant:
    """The demo golden set with the `relevant:` of its first ``questions`` judged questions
    rewritten (question n in ``style_of(n)``), each with a new entry's place after its ids."""
    out: list[str] = []
    done = 0
    v = Variant("", {}, {}, [], [], [])
    judged = [q for q in parse_golden(text).queries.values() if q.judgments][:questions]
    for n, query in enumerate(judged):
        style = v.styles[query.qid] = style_of(n)
        flow, mapping = style.startswith("flow"), style.endswith("mapping")
        start = text.index("\n    relevant:", query.block.start) + 1
        end = text.index("\n", start)
        while text.startswith("      ", end + 1):  # the block's lines, indented deeper
            end = text.index("\n", end + 1)
        out.append(text[done:start])
        at = sum(map(len, out))
        pairs = v.judgments[query.qid] = [
            (j.doc_id, j.grade if mapping else 1) for j in query.judgments
        ]
        piece = "    relevant:" + (" {" if mapping else " [") * flow
        for i, (doc, grade) in enumerate(pairs):
            piece += (", " * (i > 0)) if flow else "\n      " + "- " * (not mapping)
            quote = QUOTES[n % 3]
            v.starts.append(Position(query.qid, at + len(piece) + len(quote), i))
            v.ends.append(Position(query.qid, at + len(piece) + len(quote) + len(doc), i))
            piece += _quoted(doc, quote, flow) + f": {grade}" * mapping
        piece += ", " if flow else "\n      " + "- " * (not mapping)
        v.slots.append(Position(query.qid, at + len(piece), len(pairs)))
        out.append(piece + ("}" if mapping else "]") * flow)
        done = end
    out.append(text[done:])
    v.text = "".join(out)
    return v


def expand(snippet: str) -> str:
    """What a client inserts for a snippet: each placeholder's default, escapes undone."""
    out, i = [], 0
    while i < len(snippet):
        c = snippet[i]
        if c == "\\" and i + 1 < len(snippet) and snippet[i + 1] in "$}\\":
            out.append(snippet[i + 1])
            i += 2
        elif snippet.startswith("${", i):
            colon = snippet.index(":", i)
            close = snippet.index("}", colon)
            out.append(snippet[colon + 1 : close])
            i = close + 1
        else:
            assert c != "$", snippet  # no bare tabstops are written
            out.append(c)
            i += 1
    return "".join(out)


def plain_edit(item: types.CompletionItem) -> types.TextEdit:
    edit = item.text_edit
    assert isinstance(edit, types.TextEdit), item
    if item.insert_text_format == types.InsertTextFormat.Snippet:
        return types.TextEdit(range=edit.range, new_text=expand(edit.new_text))
    return edit


@dataclass(frozen=True)
class Applied:
    position: Position
    item: types.CompletionItem


def read_back(text: str, v: Variant, applied: list[Applied]) -> str | None:
    """Why ``text`` is not the variant with ``applied`` made, or None when it is."""
    want = {qid: list(pairs) for qid, pairs in v.judgments.items()}
    # a block list's `- ` left as it was is a null
    empty = {qid for qid, style in v.styles.items() if style == "block list"}
    for a in applied:
        pairs, label = want[a.position.qid], a.item.label
        if a.position.index < len(pairs):
            grade = pairs[a.position.index][1]
            pairs[a.position.index] = (label, grade)
        else:
            pairs.append((label, 1))
            empty.discard(a.position.qid)
    try:
        data = yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as e:
        return f"YAML: {e}"
    original = v.read["queries"]
    queries = data.get("queries") if isinstance(data, dict) else None
    if not isinstance(queries, dict) or list(queries) != list(original):
        return "YAML: the questions changed"
    for qid, entry in queries.items():
        if entry.get("question") != original[qid].get("question"):
            return f"YAML: {qid}'s question changed"
        expected = original[qid].get("relevant")
        if qid in want:
            expected = [d for d, _ in want[qid]] + [None] * (qid in empty)
            if v.styles[qid].endswith("mapping"):
                expected = dict(want[qid])
        if entry.get("relevant") != expected:
            return f"YAML: {qid} reads {entry.get('relevant')!r}, not {expected!r}"
    ours = parse_golden(text)
    if [(q.qid, q.question) for q in ours.queries.values()] != [
        (q.qid, q.question) for q in v.parsed.queries.values()
    ]:
        return "parse_golden: the questions changed"
    for qid, pairs in want.items():
        got_pairs = [(j.doc_id, j.grade) for j in ours.queries[qid].judgments]
        if got_pairs != pairs:
            return f"parse_golden: {qid} reads {got_pairs!r}, not {pairs!r}"
    new = errors_of(ours) - errors_of(v.parsed)
    return f"parse_golden: new errors {sorted(new.elements())}" if new else None


def errors_of(qrels: Qrels) -> Counter[str]:
    return Counter(f"{f.code}: {f.message}" for f in qrels.findings if f.severity == Severity.ERROR)


def rounds(offered: dict[Position, list[types.CompletionItem]]) -> Iterator[list[Applied]]:
    """Round j: the j-th item of every position that has one (their ranges never overlap)."""
    longest = max((len(items) for items in offered.values()), default=0)
    for j in range(longest):
        yield [Applied(p, items[j]) for p, items in offered.items() if j < len(items)]


def apply(text: str, batch: list[Applied], encoding: str) -> str:
    return apply_text_edits(text, [plain_edit(a.item) for a in batch], encoding)


def culprit(text: str, v: Variant, batch: list[Applied], encoding: str) -> str:
    """The first single item of a failing round that breaks the document alone."""
    for a in batch:
        why = read_back(apply(text, [a], encoding), v, [a])
        if why is not None:
            edit = a.item.text_edit
            return f"{a.position} {a.item.label!r} -> {edit.new_text if edit else None!r}: {why}"
    return "only the round as a whole (items interact)"


def lsp_position(text: str, at: int, encoding: str) -> types.Position:
    line = text.count("\n", 0, at)
    start = text.rfind("\n", 0, at) + 1
    return types.Position(line=line, character=units(text[start:at], encoding))


async def offered_at(
    client: LanguageClient, ws: Workspace, uri: str, v: Variant, positions: list[Position]
) -> dict[Position, list[types.CompletionItem]]:
    out = {}
    for p in positions:
        result = await complete(client, uri, lsp_position(v.text, p.at, ws.encoding))
        assert not result.is_incomplete
        out[p] = sorted(result.items, key=lambda i: i.sort_text or "")
    return out


@pytest.mark.asyncio
async def test_every_item_keeps_a_golden_set_of_every_style(
    client: LanguageClient, ws: Workspace
) -> None:
    """The first eight judged questions, two in each style."""
    v = variant(ws.text(GOLDEN), lambda n: STYLES[n % 4], questions=8)
    assert sorted(v.styles.values()) == sorted(STYLES * 2)
    await walk(client, ws, v)


@pytest.mark.asyncio
@pytest.mark.slow
@pytest.mark.parametrize("style", STYLES)
async def test_every_item_at_every_id_keeps_the_golden_set(
    client: LanguageClient, ws: Workspace, style: str
) -> None:
    """The whole golden set in one style."""
    v = variant(ws.text(GOLDEN), lambda n: style)
    assert len(v.starts) >= 50 and len(v.slots) >= 30  # every judged question
    await walk(client, ws, v)


async def walk(client: LanguageClient, ws: Workspace, v: Variant) -> None:
    """Every item at every position of ``v``: read back exactly by YAML and the server's parser
    (every round); two rounds, the first and the one with the most quoted ids, also over stdio
    with no new error diagnostic."""
    uri = await open_doc(client, ws, GOLDEN, v.text)
    baseline = await diagnostics(client, uri, 1)
    corpus = set(load_corpus(ws.root / "corpus").ids)
    assert set(AWKWARD) <= corpus and len(corpus) <= LIMIT
    # the start of each id and a new entry: every id of the corpus is offered there
    first = await offered_at(client, ws, uri, v, v.starts + v.slots)
    assert all({i.label for i in items} == corpus for items in first.values())
    ends = await offered_at(client, ws, uri, v, v.ends)
    for p, items in ends.items():  # at an id's end, the id itself (if the corpus has it)
        assert p_id(v, p) not in corpus or p_id(v, p) in [i.label for i in items], p
    worst: list[Applied] = []
    for offered in (first, ends):
        for batch in rounds(offered):
            why = read_back(apply(v.text, batch, ws.encoding), v, batch)
            assert why is None, culprit(v.text, v, batch, ws.encoding)
            worst = max(worst, batch, key=quoted_count)
    for version, batch in enumerate((next(rounds(first)), worst), start=2):
        text = apply(v.text, batch, ws.encoding)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        published = await diagnostics(client, uri, version)
        assert not error_codes(published) - error_codes(baseline), published


def p_id(v: Variant, p: Position) -> str:
    return v.judgments[p.qid][p.index][0]


def quoted_count(batch: list[Applied]) -> int:
    return sum(1 for a in batch if a.item.text_edit and a.item.text_edit.new_text[:1] in "\"'")


def error_codes(published: list[types.Diagnostic]) -> Counter[str]:
    return Counter(str(d.code) for d in published if d.severity == types.DiagnosticSeverity.Error)
