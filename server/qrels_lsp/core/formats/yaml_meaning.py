"""What a golden set or run YAML says, for the formatter to check that its text says the same.

Two views, each blind only to what the formatter may change: the parsed model (queries in
their order unless they were sorted, judgments and rankings in order, the findings' codes), and,
for a golden set, every value of the YAML tree (so notes, descriptions, fusions and unknown keys
too), with each mapping's keys in any order and a ``relevant:`` list read as the mapping it
means (grade 1). A run is compared by its model alone (its rankings, name and golden set): its
tree costs ten times its model to read, and the formatter never rewrites a value of it, only
moves its entries (its description and unknown keys with them).
"""

from __future__ import annotations

import json
from typing import Any

from ..model import Qrels, Run
from .yaml.tree import YamlDoc, YMap, YNode, YScalar, YSeq, key_text


def same_meaning(
    old: tuple[Qrels | Run, YamlDoc],
    new: tuple[Qrels | Run, YamlDoc | None],
    entries: str,
    restyle: str | None,
    sorted_: bool,
) -> bool:
    """Whether ``new`` (a model, and a tree unless only the model is compared) says what
    ``old`` says: ``sorted_``, its queries may be in another order; ``restyle``, the key of an
    entry whose value may be a list or a mapping (`relevant`)."""
    if model_view(old[0], sorted_) != model_view(new[0], sorted_):
        return False
    old_tree, new_tree = old[1], new[1]
    if new_tree is None:
        return True
    if old_tree.complete != new_tree.complete or len(old_tree.findings) != len(new_tree.findings):
        return False
    before: object = _values(old_tree.root, (), entries, restyle)
    return before == _values(new_tree.root, (), entries, restyle)


def model_view(model: Qrels | Run, sorted_: bool) -> object:
    """The model without its places: what scoring, checks and every view read."""
    codes = sorted(f.code for f in model.findings)
    if isinstance(model, Qrels):
        queries: Any = [
            (q.qid, q.question, q.unanswerable, q.tags, [(j.doc_id, j.grade) for j in q.judgments])
            for q in model.queries.values()
        ]
        head: tuple[object, ...] = (
            model.corpus.value if model.corpus else None,
            model.k,
            model.relevance_level,
            [r.value for r in model.runs],
            model.compare_to.value if model.compare_to else None,
            model.judgments.value if model.judgments else None,
        )
    else:
        queries = [
            (r.qid, [(d.doc_id, repr(d.score)) for d in r.docs]) for r in model.rankings.values()
        ]
        head = (model.qrels.value if model.qrels else None, model.name)
    return head, sorted(queries, key=lambda q: q[0]) if sorted_ else queries, codes


def _values(node: YNode | None, path: tuple[str, ...], entries: str, restyle: str | None) -> object:
    """A node's values as JSON-able data; mappings as their sorted entries."""
    if node is None:
        return None
    if len(path) == 3 and path[0] == entries and path[2] == restyle:
        meant = _as_mapping(node)
        if meant is not None:
            return ["relevant", sorted(meant)]
    if isinstance(node, YScalar):
        return [node.type, node.value]
    if isinstance(node, YSeq):
        return ["list", [_values(item, (*path, ""), entries, restyle) for item in node.items]]
    if isinstance(node, YMap):
        pairs = []
        for k, v in node.items:
            name = key_text(k) if len(path) < 3 else None
            below = (*path, name or "")
            pairs.append(
                json.dumps(
                    [_values(k, below, entries, restyle), _values(v, below, entries, restyle)]
                )
            )
        return ["map", sorted(pairs)]
    return ["other", type(node).__name__]


def _as_mapping(node: YNode) -> list[tuple[str, str, int]] | None:
    """A `relevant:` list or mapping as (id type, id, grade) triples; None if it is neither a list
    of ids nor a mapping of ids to integers."""
    if isinstance(node, YSeq):
        items: list[tuple[YNode, int | None]] = [(i, 1) for i in node.items]
    elif isinstance(node, YMap):
        items = [(k, v.as_int() if isinstance(v, YScalar) else None) for k, v in node.items]
    else:
        return None
    out = []
    for doc, grade in items:
        if not isinstance(doc, YScalar) or grade is None:
            return None
        out.append((doc.type, doc.value, grade))
    return out
