"""Golden set YAML -> :class:`Qrels`, with spans and shape findings.

Shape problems (unknown keys, wrong types, duplicate ids, non-integer grades) are found here,
while the tree is at hand; content checks that need more context (the corpus, the runs, other
questions) live in ``checks``. Parsing never raises and keeps everything that is well formed, so
one bad question does not hide the numbers of the others.
"""

from __future__ import annotations

from ..base.caps import MAX_ID, MAX_QUESTION
from ..base.findings import Finding, Fix, Severity, TextEdit, declare
from ..base.text import Span
from ..model import Judgment, Qrels, Query, Ref
from .format import Format
from .golden_derived import read_chunks, read_fusions
from .golden_write import add_judgment
from .grades import in_range, out_of_range
from .keys import GOLDEN_KEYS, QUERY_KEYS
from .yaml.context import keys_under
from .yaml.scalar import rewrite_scalar
from .yaml.shape import ShapeReader, doc_id, read_entries, read_top
from .yaml.tree import (
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
from .yaml_format import Schema

declare(
    "QR103",
    "grade-not-integer",
    Severity.ERROR,
    "golden set",
    "A grade that is not an integer.",
    drops=True,
)
declare(
    "QR313",
    "relevance-level-negative",
    Severity.WARNING,
    "golden set",
    "A negative relevance level, for which trec_eval counts unjudged documents as relevant.",
)


def negative_level_note(level: int) -> str:
    """What a relevance level below 0 means to trec_eval and here (the golden set's finding and
    ``score -l``'s note): trec_eval marks a retrieved document missing from the qrels -1 (and a
    negative grade -2) and compares those marks with the level as if they were grades."""
    unjudged = "unjudged document" + (" and every negative grade" if level <= -2 else "")
    return (
        f"relevance level {level}: trec_eval -l {level} counts every retrieved {unjudged} as "
        "relevant (its marks for them are -1 and -2, compared as grades); qrels-lsp counts only "
        "judgments with a grade of 0 or more, so its numbers differ from trec_eval's"
    )


MAX_QUESTIONS = 100_000
LIMITS = YamlLimits(max_nodes=1_500_000, max_items=MAX_QUESTIONS)
"""What a golden set may hold before the rest of it is left out (with a finding): every question
costs a parse, checks and a score per run on every keystroke."""


def parse_golden(text: str, doc: YamlDoc | None = None) -> Qrels:
    """Parse a golden set; docs/formats.md describes the format. ``doc``: its YAML tree, when
    the caller parsed it already (:func:`read_golden`)."""
    p, top = read_top(text, GOLDEN_KEYS, "a golden set", LIMITS, doc)
    qrels = Qrels(format="golden", findings=p.findings)
    if top is None:
        return qrels
    if "corpus" in top:
        refs = p.refs(top["corpus"][1], "`corpus`")
        qrels.corpus = refs[0] if refs else None
    if "k" in top:
        qrels.k = p.positive_int(top["k"][1], "`k`")
        qrels.k_span = top["k"][1].span
    if "relevance_level" in top:
        node = top["relevance_level"][1]
        level = node.as_int() if isinstance(node, YScalar) else None
        if level is None:
            p.add(
                "QR004", node.span, f"`relevance_level` must be an integer, found {describe(node)}."
            )
        elif level < 0:
            p.add("QR313", node.span, negative_level_note(level) + ".")
        qrels.relevance_level = level
        qrels.level_span = node.span
    if "preset" in top:
        node = top["preset"][1]
        name = p.string(node, "`preset`")
        qrels.preset = Ref(name.strip(), node.span) if name and name.strip() else None
    if "runs" in top:
        qrels.runs = p.refs(top["runs"][1], "Each entry of `runs`")
    if "compare_to" in top:
        node = top["compare_to"][1]
        name = p.capped(p.string(node, "`compare_to`"), node.span, MAX_ID, "`compare_to`")
        qrels.compare_to = Ref(name.strip(), node.span) if name and name.strip() else None
    if "judgments" in top:
        qrels.judgments = _judgments(p, top["judgments"][1])
    if "fusions" in top:
        qrels.fusions = read_fusions(p, top["fusions"][1])
    if "chunks" in top:
        qrels.chunks = read_chunks(p, top["chunks"][1])
    if "description" in top:
        p.string(top["description"][1], "`description`")
    if "queries" in top:
        qrels.queries_span = top["queries"][0].span
        queries = top["queries"][1]
        if not (isinstance(queries, YScalar) and queries.type == "null") and p.expect(
            queries, YMap, "`queries`", top["queries"][0].span
        ):
            assert isinstance(queries, YMap)
            entries: dict[str, Query] = {}
            read_entries(p, queries, entries, lambda k, v: _parse_query(p, k, v), "query", MAX_ID)
            qrels.queries = entries
    else:
        p.add("QR004", Span(0, 0), "A golden set needs a `queries:` mapping.")
    return qrels


def read_golden(text: str) -> tuple[Qrels, YamlDoc]:
    """A golden set and its YAML tree, parsed once: what the formatter moves, and what it
    means."""
    doc = parse_yaml(text, LIMITS)
    return parse_golden(text, doc), doc


def _judgments(p: ShapeReader, node: YNode) -> Ref | None:
    """`judgments: exhaustive` or `pooled`; anything else is QR004 (and the inference applies)."""
    from ..coverage.judgments import KINDS

    value = node.value if isinstance(node, YScalar) and node.type == "str" else None
    if value not in KINDS:
        p.add(
            "QR004", node.span, f"`judgments` must be exhaustive or pooled, found {describe(node)}."
        )
        return None
    return Ref(value, node.span)


def parse_query_entry(text: str, qid: str, key_column: int) -> tuple[Query, list[Finding]] | None:
    """One query entry parsed on its own (``text`` starts at its key's line), for incremental
    re-parsing; None unless it is exactly that entry, well formed, at the same indentation."""
    doc = parse_yaml(text, LIMITS)
    if (
        doc.findings
        or not doc.complete
        or not isinstance(doc.root, YMap)
        or len(doc.root.items) != 1
    ):
        return None
    key, value = doc.root.items[0]
    if not isinstance(key, YScalar) or key_text(key) != qid or key.span.start != key_column:
        return None
    if len(qid) > MAX_ID:
        return None  # (the whole parse says why it is left out)
    p = ShapeReader(text)
    query = _parse_query(p, key, value)
    return query, p.findings


def _parse_query(p: ShapeReader, key: YScalar, value: YNode) -> Query:
    query = Query(qid=key.value, span=key.span, block=Span(key.span.start, value.span.end))
    if isinstance(value, YScalar) and value.type == "null":
        return query  # a query being typed: reported as unlinked by the checks
    if not p.expect(value, YMap, f"Query `{key.value}`", key.span):
        return query
    assert isinstance(value, YMap)
    fields = p.keys(value, QUERY_KEYS, f"query `{key.value}`")
    if "question" in fields:
        qnode = fields["question"][1]
        if isinstance(qnode, YScalar) and qnode.type == "null":
            query.question, query.question_span = "", qnode.span
        else:
            question = p.string(qnode, "`question`")
            query.question = p.capped(question, qnode.span, MAX_QUESTION, "The question")
            query.question_span = qnode.span
    if "unanswerable" in fields:
        unode = fields["unanswerable"][1]
        flag = unode.as_bool() if isinstance(unode, YScalar) else None
        if flag is None:
            p.add(
                "QR004",
                unode.span,
                f"`unanswerable` must be true or false, found {describe(unode)}.",
            )
        query.unanswerable = bool(flag)
        query.unanswerable_span = Span(fields["unanswerable"][0].span.start, unode.span.end)
    if "notes" in fields:
        p.string(fields["notes"][1], "`notes`")
    if "tags" in fields:
        query.tags = _tags(p, fields["tags"][1])
    if "relevant" in fields:
        rkey, rvalue = fields["relevant"]
        query.judgments = _parse_relevant(p, rvalue)
        query.relevant_span = Span(rkey.span.start, rvalue.span.end)
    return query


def _tags(p: ShapeReader, node: YNode) -> tuple[str, ...]:
    """A question's tags: a list of names (``[critical, billing]``), each once."""
    if isinstance(node, YScalar) and node.type == "null":
        return ()
    if isinstance(node, YScalar):
        p.add("QR004", node.span, f"`tags` must be a list of names; write `[{node.value}]`.")
        return ()
    if not p.expect(node, YSeq, "`tags`", node.span):
        return ()
    assert isinstance(node, YSeq)
    out: list[str] = []
    for item in node.items:
        name = p.capped(p.string(item, "Each tag"), item.span, MAX_ID, "A tag")
        if name is not None and name.strip() and name.strip() not in out:
            out.append(name.strip())
    return tuple(out)


def _parse_relevant(p: ShapeReader, node: YNode) -> list[Judgment]:
    if isinstance(node, YScalar) and node.type == "null":
        return []
    if isinstance(node, YSeq):
        out = []
        for item in node.items:
            doc = p.capped(doc_id(p, item), item.span, MAX_ID, "A document id")
            if doc is not None:
                out.append(Judgment(doc, 1, item.span))
        return out
    if isinstance(node, YMap):
        out = []
        for key, value in node.items:
            doc = p.capped(doc_id(p, key), key.span, MAX_ID, "A document id")
            grade = _grade(p, value)
            if doc is not None and grade is not None:
                out.append(Judgment(doc, grade, key.span, value.span))
        return out
    if isinstance(node, YScalar):
        p.add(
            "QR004",
            node.span,
            "`relevant` must be a list of document ids or a mapping id -> grade; "
            f"write `[{node.value}]` for one document.",
            fixes=(
                Fix(
                    f"Write `[{node.value}]`",
                    (TextEdit(node.span, f"[{p.text[node.span.start : node.span.end]}]"),),
                    True,
                ),
            ),
        )
        return []
    p.expect(node, YSeq, "`relevant`", node.span)
    return []


def _grade(p: ShapeReader, node: YNode) -> int | None:
    if isinstance(node, YScalar):
        grade = node.as_int()
        if grade is not None and in_range(grade):
            return grade
        if grade is not None or _too_long(node):
            p.findings.append(out_of_range(node.span, node.value, node.value.startswith("-")))
            return None
        fixes: tuple[Fix, ...] = ()
        if node.type == "str" and _is_int(node.value.strip()):
            fixed = str(int(node.value.strip()))
            fixes = (
                Fix(f"Write the grade as the integer {fixed}", (TextEdit(node.span, fixed),), True),
            )
        p.add(
            "QR103",
            node.span,
            f"A grade must be an integer (0 = not relevant, 1, 2, 3...), found {describe(node)} "
            f"`{node.value}`; trec_eval would silently truncate it.",
            fixes=fixes,
        )
        return None
    if not isinstance(node, YAlias):
        p.add("QR103", node.span, f"A grade must be an integer, found {describe(node)}.")
    return None


def _too_long(node: YScalar) -> bool:
    """An integer of more digits than Python's int() reads (4,300): far out of range."""
    return node.type == "int" and node.value.lstrip("+-").replace("_", "").isdigit()


def _is_int(s: str) -> bool:
    try:
        int(s)
    except ValueError:
        return False
    return True


FORMAT = Format(
    name="golden",
    display="golden set (YAML)",
    role="qrels",
    parse=parse_golden,
    yaml=True,
    query_ids=keys_under("queries"),
    id_text=rewrite_scalar,
    add_judgment=add_judgment,
    reformat=Schema(
        read_golden, read_golden, tuple(GOLDEN_KEYS), "queries", tuple(QUERY_KEYS), "relevant"
    ).reformat,
)
