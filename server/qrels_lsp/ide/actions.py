"""Code actions, in editor terms: the quick fixes a finding offers and "judge this document"
on a retrieved id that the golden set does not judge, which adds the judgment to the golden set
as a minimal edit."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.base.findings import Finding, Fix, TextEdit
from ..core.base.text import Span
from ..core.formats import EditRefused, get
from ..core.formats.corpus import Corpus
from ..core.model import Run
from ..core.project.analysis import Analysis
from ..core.project.results import QrelsContext

JUDGE_GRADES = (1, 2, 3, 0)


def _overlaps(a: Span, b: Span) -> bool:
    return a.start <= b.end and b.start <= a.end


def retrieved_at(analysis: Analysis, span: Span) -> tuple[str, str] | None:
    """(query id, document id) of the retrieved id under ``span`` in a run."""
    model = analysis.model
    if not isinstance(model, Run):
        return None
    for ranking in model.rankings.values():
        if not _overlaps(ranking.block, span):
            continue
        for doc in ranking.docs:
            if _overlaps(doc.span, span):
                return ranking.qid, doc.doc_id
    return None


def judge_fixes(analysis: Analysis, span: Span, golden_text: str) -> list[Fix]:
    """The "Judge `doc` as ..." actions for a retrieved id the golden set does not judge."""
    ctx = analysis.context
    hit = retrieved_at(analysis, span)
    if ctx is None or hit is None:
        return []
    qid, doc = hit
    if ctx.chunks is not None:
        doc = ctx.chunks.document(doc)  # a chunk: the golden set judges its document
    query = ctx.qrels.queries.get(qid)
    if query is None or doc in query.grades():
        return []
    if isinstance(ctx.corpus, Corpus) and doc not in ctx.corpus:
        return []  # judging an id the corpus lacks would only add an unknown-document warning
    return judgment_fixes(ctx, qid, doc, golden_text, JUDGE_GRADES)


def judgment_fixes(
    ctx: QrelsContext,
    qid: str,
    doc: str,
    golden_text: str,
    grades: Sequence[int],
    block: Span | None = None,
) -> list[Fix]:
    """Actions writing ``doc``'s grade into question ``qid`` of the golden set, one per grade, as
    minimal edits; none where the golden set cannot be edited (a TREC file, a syntax error).
    ``block``: the question's entry in ``golden_text`` (then it alone is parsed), when the
    caller holds the model parsed from that very text."""
    add = get(ctx.kind).add_judgment
    if add is None:
        return []
    fixes = []
    for grade in grades:
        try:
            edits = add(golden_text, qid, doc, grade, block)
        except EditRefused:
            return []
        what = f"relevant (grade {grade})" if grade else "not relevant (grade 0)"
        fixes.append(
            Fix(
                f"Judge `{doc}` as {what} for `{qid}`",
                tuple(TextEdit(e.span, e.new_text, str(ctx.path)) for e in edits),
            )
        )
    return fixes


def fixes_at(analysis: Analysis, span: Span) -> list[tuple[Finding, Fix]]:
    """The quick fixes of the findings that overlap ``span``."""
    return [
        (f, fix)
        for f in analysis.findings
        if f.fixes and _overlaps(f.span, span)
        for fix in f.fixes
    ]


def stale_at(analysis: Analysis, span: Span) -> list[tuple[str, str, Finding]]:
    """(question, document, finding) of each stale judgment (QR130-QR132) under ``span``: what
    "judge it again" opens the judging view on."""
    from ..core.checks.stale_judgment import STALE_CODES
    from ..core.model import Qrels

    model = analysis.model
    if not isinstance(model, Qrels):
        return []
    out = []
    for f in analysis.findings:
        if f.code in STALE_CODES and _overlaps(f.span, span):
            for query in model.queries.values():
                if _overlaps(query.block, f.span):
                    out += [(query.qid, j.doc_id, f) for j in query.judgments if j.span == f.span]
                    break
    return out
