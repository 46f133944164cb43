"""Writing golden sets: the minimal edits that add one judgment, and a whole golden set from
judgments (``convert``).

The judge action adds (query, document, grade) keeping the user's layout: a flow list gets
``, doc``, a block list a ``- doc`` line at its items' indentation, a mapping ``doc: grade``; a list
that needs a grade other than 1 becomes a mapping by per-item edits (``- a`` -> ``a: 1``, ``[a, b]``
-> ``{a: 1, b: 1, doc: 2}``), and a query with no ``relevant:`` gets one. Comments, quoting, order
and every other line stay byte-identical.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..base.edits import insert_entry, newline_of
from ..base.findings import TextEdit
from ..base.patterns import DASH
from ..base.text import LineIndex, Span
from ..model import Qrels
from .format import EditRefused
from .yaml.scalar import yaml_scalar
from .yaml.tree import YMap, YNode, YScalar, YSeq, key_text, parse_yaml


def _find(node: YNode | None, key: str) -> tuple[YScalar, YNode] | None:
    if not isinstance(node, YMap):
        return None
    for k, v in node.items:
        if isinstance(k, YScalar) and key_text(k) == key:
            return k, v
    return None


def add_judgment(
    text: str, qid: str, doc: str, grade: int, block: Span | None = None
) -> list[TextEdit]:
    """Edits adding ``doc: grade`` to query ``qid`` of a golden set YAML (or setting the grade
    of a ``doc:`` already in its mapping, a negative one to judge again); raises EditRefused.

    ``block``: the query's entry, from the parsed model. Then only that entry is parsed (judging
    in a golden set of ten thousand questions must not parse them all), and the edits are the
    very ones a whole parse gives."""
    if block is not None:
        start = text.rfind("\n", 0, block.start) + 1  # the key's line: its indentation too
        end = text.find("\n", block.end)  # the last line whole: a comment after the value too
        end = len(text) if end == -1 else end
        edits = _entry_judgment(text[start:end], qid, doc, grade, whole=False)
        if edits is not None:
            return [
                TextEdit(Span(e.span.start + start, e.span.end + start), e.new_text) for e in edits
            ]
    edits = _entry_judgment(text, qid, doc, grade, whole=True)
    assert edits is not None
    return edits


def _entry_judgment(
    text: str, qid: str, doc: str, grade: int, *, whole: bool
) -> list[TextEdit] | None:
    """The edits in ``text``: a whole golden set, or (``whole`` false) one query's entry alone,
    for which None means "parse the whole file instead"."""
    tree = parse_yaml(text)
    if not tree.complete:
        if not whole:
            return None
        raise EditRefused("the golden set has a YAML syntax error: fix it first")
    if whole:
        queries = _find(tree.root, "queries")
        if queries is None:
            raise EditRefused("the golden set has no `queries:` mapping")
        entry = _find(queries[1], qid)
    else:
        entry = _find(tree.root, qid)
        if entry is None or not isinstance(tree.root, YMap) or len(tree.root.items) != 1:
            return None
    if entry is None:
        raise EditRefused(f"query `{qid}` is not in the golden set")
    qkey, qvalue = entry
    lines = LineIndex(text)
    relevant = _find(qvalue, "relevant")
    if relevant is None:
        inner = yaml_scalar(doc, flow=True)
        value = f"[{inner}]" if grade == 1 else f"{{{inner}: {grade}}}"
        block = Span(qkey.span.start, qvalue.span.end)
        edit = insert_entry(text, lines, qkey.span, block, f"relevant: {value}", newline_of(text))
        if edit is None:
            raise EditRefused(f"query `{qid}` is not a mapping: cannot add `relevant:`")
        return [edit]
    rkey, rvalue = relevant
    if isinstance(rvalue, YScalar) and rvalue.type == "null":
        inner = yaml_scalar(doc, flow=True)
        value = f"[{inner}]" if grade == 1 else f"{{{inner}: {grade}}}"
        if rvalue.span.start == rvalue.span.end:  # `relevant:` with nothing after it
            colon = text.index(":", rkey.span.end)
            return [TextEdit(Span(colon + 1, colon + 1), f" {value}")]
        return [TextEdit(rvalue.span, value)]
    if isinstance(rvalue, YMap):
        judged = _find(rvalue, doc)
        if judged is not None:  # judged already (a negative grade: judge it again)
            return [TextEdit(judged[1].span, str(grade))]
        edit = insert_entry(
            text,
            lines,
            rkey.span,
            Span(rkey.span.start, rvalue.span.end),
            f"{yaml_scalar(doc, flow=rvalue.flow)}: {grade}",
            newline_of(text),
        )
        if edit is None:
            raise EditRefused(f"cannot add to the `relevant:` mapping of `{qid}`")
        return [edit]
    if isinstance(rvalue, YSeq):
        if any(isinstance(i, YScalar) and i.value == doc for i in rvalue.items):
            raise EditRefused(f"`{doc}` is judged already for `{qid}`")
        if rvalue.flow:
            return _flow_list(text, rvalue, doc, grade)
        return _block_list(text, lines, rkey, rvalue, doc, grade)
    raise EditRefused(f"`relevant:` of `{qid}` is not a list or a mapping: fix it first")


def _flow_list(text: str, seq: YSeq, doc: str, grade: int) -> list[TextEdit]:
    open_at, close_at = seq.span.start, seq.span.end - 1
    if text[open_at] != "[" or text[close_at] != "]":
        raise EditRefused("unexpected flow list layout")
    new = yaml_scalar(doc, flow=True)
    if grade == 1:
        if not seq.items:
            return [TextEdit(Span(close_at, close_at), new)]
        last = seq.items[-1].span.end
        return [TextEdit(Span(last, last), f", {new}")]
    edits = [TextEdit(Span(open_at, open_at + 1), "{")]
    for item in seq.items:
        if not isinstance(item, YScalar):
            raise EditRefused("a list item is not a document id")
        edits.append(TextEdit(Span(item.span.end, item.span.end), ": 1"))
    if seq.items:
        last = seq.items[-1].span.end
        # One edit at `last`: the item's `: 1` and the new entry, in that order.
        edits[-1] = TextEdit(Span(last, last), f": 1, {new}: {grade}")
    else:
        edits.append(TextEdit(Span(close_at, close_at), f"{new}: {grade}"))
    edits.append(TextEdit(Span(close_at, close_at + 1), "}"))
    return edits


def _block_list(
    text: str, lines: LineIndex, rkey: YScalar, seq: YSeq, doc: str, grade: int
) -> list[TextEdit]:
    nl = newline_of(text)
    key_line = lines.line_of(rkey.span.start)
    key_text_ = lines.line_text(key_line)
    key_indent = len(key_text_) - len(key_text_.lstrip(" "))
    dashes: list[tuple[int, int]] = []  # (dash offset, item start)
    for item in seq.items:
        if not isinstance(item, YScalar):
            raise EditRefused("a list item is not a document id")
        line = lines.line_of(item.span.start)
        start = lines.line_start(line)
        before = text[start : item.span.start]
        stripped = before.lstrip(" ")
        if not DASH.fullmatch(stripped):
            raise EditRefused("list items are not one per line")
        dashes.append((start + len(before) - len(stripped), item.span.start))
    if not seq.items:
        raise EditRefused("empty block list")
    last_line = lines.line_of(seq.items[-1].span.end)
    at = lines.line_end(last_line)
    dash_col = dashes[-1][0] - lines.line_start(lines.line_of(dashes[-1][0]))
    if grade == 1:
        prefix = text[dashes[-1][0] : dashes[-1][1]]
        return [TextEdit(Span(at, at), f"{nl}{' ' * dash_col}{prefix}{yaml_scalar(doc)}")]
    edits: list[TextEdit] = []
    keep_column = dash_col <= key_indent  # `- a` at the key's own indentation: keep the column
    for (dash, item_start), item in zip(dashes, seq.items, strict=True):
        if keep_column:
            edits.append(TextEdit(Span(dash, dash + 1), " "))
        else:
            edits.append(TextEdit(Span(dash, item_start), ""))
        edits.append(TextEdit(Span(item.span.end, item.span.end), ": 1"))
    col = dash_col + (dashes[-1][1] - dashes[-1][0]) if keep_column else dash_col
    edits.append(TextEdit(Span(at, at), f"{nl}{' ' * col}{yaml_scalar(doc)}: {grade}"))
    return edits


@dataclass(frozen=True, slots=True)
class GoldenHeader:
    """The top-level keys a converted golden set starts with (``convert --corpus -k --runs``)."""

    corpus: str | None = None
    k: int | None = None
    runs: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        out = [f"corpus: {yaml_scalar(self.corpus)}"] if self.corpus is not None else []
        out += [f"k: {self.k}"] if self.k is not None else []
        if self.runs:
            out.append("runs: [" + ", ".join(yaml_scalar(r, flow=True) for r in self.runs) + "]")
        return out


def golden_text(
    qrels: Qrels, questions: dict[str, str], header: GoldenHeader = GoldenHeader()
) -> str:
    """A golden set YAML holding ``qrels`` (a converted TREC/BEIR/JSON qrels), with each query's
    question from ``questions`` (topics) when it has one; a query with no judgment is written
    ``unanswerable: true``. A topic no judgment names is kept, with ``relevant: []``: it is a
    question nobody linked yet (QR104 says so), not one to lose."""
    lines = [*header.lines(), "queries:"]
    order = [*questions, *(q for q in qrels.queries if q not in questions)]  # the topics' order
    for qid in order:
        query = qrels.queries.get(qid)
        lines.append(f"  {yaml_scalar(qid)}:")
        question = questions.get(qid) or (query.question if query is not None else None)
        if question:
            lines.append(f"    question: {yaml_scalar(' '.join(question.split()))}")
        grades = query.grades() if query is not None else {}
        if query is None:
            lines.append("    relevant: []")
        elif grades and all(g == 1 for g in grades.values()):
            lines.append(
                "    relevant: [" + ", ".join(yaml_scalar(d, flow=True) for d in grades) + "]"
            )
        elif grades:
            lines.append("    relevant:")
            lines.extend(f"      {yaml_scalar(d)}: {g}" for d, g in grades.items())
        else:
            lines.append("    unanswerable: true")
    return "\n".join(lines) + "\n"
