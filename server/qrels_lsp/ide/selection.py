"""Selection ranges ("expand selection"), in editor terms: the spans around an offset, innermost
first, each holding the one before.

In YAML they follow the syntax tree: a document id, its judgment (``id: grade``), the
`relevant:` block, the question's entry, the `queries:` mapping, the file. Only the entry under
the cursor is parsed again (from the start of its line, so columns stay as they are); outside
every entry the whole file is. In the line formats (TREC, BEIR, MS MARCO) and JSON: the id, the
field, the line, the query's lines, the file.
"""

from __future__ import annotations

import bisect

from ..core.base.patterns import NON_BLANK
from ..core.base.text import Span
from ..core.formats.yaml.tree import YMap, YNode, YSeq, parse_yaml
from ..core.model import Qrels, Run
from .folding import top_mapping_span


def selection(model: Qrels | Run, text: str, offset: int) -> list[Span]:
    """The spans around ``offset``, innermost first; the last is the whole file."""
    offset = max(0, min(offset, len(text)))
    if model.format in ("golden", "run-yaml"):
        found = _yaml_spans(model, text, offset)
    else:
        found = _line_spans(model, text, offset)
    return _nested([*found, Span(0, len(text))], offset)


def _blocks(model: Qrels | Run) -> list[Span]:
    if isinstance(model, Qrels):
        return [q.block for q in model.queries.values()]
    return [r.block for r in model.rankings.values()]


def _yaml_spans(model: Qrels | Run, text: str, offset: int) -> list[Span]:
    blocks = _blocks(model)  # in text order: entries follow one another
    i = bisect.bisect_left(blocks, offset, key=lambda b: b.end)
    if i < len(blocks) and blocks[i].contains(offset):
        block = blocks[i]
        start = text.rfind("\n", 0, block.start) + 1  # the entry from its line's start
        root = parse_yaml(text[start : block.end]).root
        inner = [s.shifted(start) for s in _tree_spans(root, offset - start)]
        key = "queries" if isinstance(model, Qrels) else "results"
        whole = top_mapping_span(text, key, blocks, getattr(model, "results_span", None))
        return inner + [block] + ([whole] if whole is not None else [])
    # Outside every entry: the keys above the first one, or below the last, parsed alone (a
    # cursor between two entries is on a comment or a blank line: nothing to grow but the file).
    if not blocks or offset < blocks[0].start:
        end = text.rfind("\n", 0, blocks[0].start) + 1 if blocks else len(text)
        return _tree_spans(parse_yaml(text[:end]).root, offset)
    if offset > blocks[-1].end:
        start = text.find("\n", blocks[-1].end) + 1 or len(text)
        return [
            s.shifted(start) for s in _tree_spans(parse_yaml(text[start:]).root, offset - start)
        ]
    return []


def _tree_spans(node: YNode | None, offset: int) -> list[Span]:
    """The nodes (and ``key: value`` pairs) of a YAML tree around ``offset``, outermost first."""
    out: list[Span] = []
    while node is not None and node.span.contains(offset):
        out.append(node.span)
        inner: YNode | None = None
        if isinstance(node, YMap):
            for key, value in node.items:
                pair = Span(key.span.start, max(key.span.end, value.span.end))
                if pair.contains(offset):
                    out.append(pair)
                    inner = key if key.span.contains(offset) else value
                    break
        elif isinstance(node, YSeq):
            inner = next((item for item in node.items if item.span.contains(offset)), None)
        node = inner
    return out[::-1]


def _line_spans(model: Qrels | Run, text: str, offset: int) -> list[Span]:
    """The id under the cursor, its field, its line and the query's lines (TREC, BEIR, MS
    MARCO, JSON)."""
    out: list[Span] = []
    if isinstance(model, Qrels):
        for q in model.queries.values():
            if q.block.contains(offset):
                out += [q.span, q.block]
                for j in q.judgments:
                    out += [j.span] + ([j.grade_span] if j.grade_span is not None else [])
    else:
        for r in model.rankings.values():
            if r.block.contains(offset):
                out += [r.span, r.block] + [d.span for d in r.docs]
    start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    end = len(text)
    for stop in ("\n", "\r"):
        at = text.find(stop, offset)
        if at != -1:
            end = min(end, at)
    line = Span(start, end)
    field = next(
        (
            Span(m.start(), m.end())
            for m in NON_BLANK.finditer(text, start, end)
            if m.start() <= offset <= m.end()
        ),
        None,
    )
    return out + [line] + ([field] if field is not None else [])


def _nested(spans: list[Span], offset: int) -> list[Span]:
    """The spans that hold ``offset``, smallest first, each strictly holding the one before."""
    out: list[Span] = []
    for span in sorted((s for s in spans if s.contains(offset)), key=lambda s: s.end - s.start):
        if not out or (span.start <= out[-1].start and out[-1].end <= span.end and span != out[-1]):
            out.append(span)
    return out
