"""Run YAML -> :class:`Run`: ``results`` maps query ids to a ranked list (rank order is the
ranking) or to a mapping doc id -> score (ranked as trec_eval ranks: score, then docid).

A run in one of the layouts runs are written in is read line by line (:mod:`.run_yaml_lines`,
ten times faster and more); anything else through PyYAML's event stream. Both build the model
with the same functions below, so a finding reads the same whichever path read the file.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from math import isfinite

from ..base.caps import MAX_ID
from ..base.findings import Related
from ..base.patterns import FLOAT_12
from ..base.text import Span
from ..metrics import trec_eval_order
from ..model import Docs, Ranking, Ref, Retrieved, Run
from . import run_yaml_lines
from .format import Format
from .keys import RUN_KEYS
from .yaml.context import keys_under
from .yaml.scalar import rewrite_scalar, yaml_float, yaml_scalar
from .yaml.shape import ShapeReader, doc_id, duplicate_query, read_entries, read_top
from .yaml.tree import YAlias, YMap, YNode, YScalar, YSeq, describe, parse_yaml
from .yaml_format import Schema


def parse_run_yaml(text: str) -> Run:
    """Parse a run YAML: ``results`` maps query ids to a ranked list or to doc id -> score."""
    layout = run_yaml_lines.scan(text)
    if layout is not None:
        return _from_layout(text, layout)
    return parse_run_yaml_tree(text)


def parse_run_yaml_tree(text: str) -> Run:
    """:func:`parse_run_yaml` through PyYAML's event stream, whatever the layout: the plain path
    the line reader is checked against."""
    p, top = read_top(text, RUN_KEYS, "a run")
    run = Run(format="run-yaml", findings=p.findings)
    if top is None:
        return run
    if "qrels" in top:
        refs = p.refs(top["qrels"][1], "`qrels`")
        run.qrels = refs[0] if refs else None
    if "name" in top:
        node = top["name"][1]
        run.name = p.capped(p.string(node, "`name`"), node.span, MAX_ID, "The run's name")
        run.name_span = node.span
    if "description" in top:
        p.string(top["description"][1], "`description`")
    if "results" in top:
        run.results_span = top["results"][0].span
        results = top["results"][1]
        if not (isinstance(results, YScalar) and results.type == "null") and p.expect(
            results, YMap, "`results`", top["results"][0].span
        ):
            assert isinstance(results, YMap)
            read_entries(p, results, run.rankings, lambda k, v: _parse_ranking(p, k, v), "query")
    else:
        p.add("QR004", Span(0, 0), "A run needs a `results:` mapping.")
    return run


def _from_layout(text: str, layout: run_yaml_lines.Layout) -> Run:
    """The run model of a file the line reader read: what the tree path makes of it."""
    p = ShapeReader(text)
    run = Run(format="run-yaml", findings=p.findings)
    top = layout.top
    if "qrels" in top:
        run.qrels = Ref(*top["qrels"])
    if "name" in top:
        name, run.name_span = top["name"]
        run.name = p.capped(name, run.name_span, MAX_ID, "The run's name")
    run.results_span = layout.results
    for e in layout.entries:
        assert e.starts is not None and e.value is not None
        span = Span(e.key, e.key + len(e.qid))
        ranking = Ranking(qid=e.qid, span=span, block=Span(e.key, e.value.end))
        if len(set(e.docs)) == len(e.docs):  # (no document twice: the columns as they are)
            ranking.docs = _columns(e.docs, e.starts, e.scores)
        elif e.scores is None:
            ranking.docs = _ranked_list(
                p,
                [
                    Retrieved(d, Span(s, s + len(d)), rank=r)
                    for r, (d, s) in enumerate(zip(e.docs, e.starts, strict=True), start=1)
                ],
                e.qid,
            )
        else:
            scored = [
                Retrieved(d, Span(s, s + len(d)), score=v)
                for d, s, v in zip(e.docs, e.starts, e.scores, strict=True)
            ]
            ranking.docs = _ranked_scores(p, scored, e.qid)
        first = run.rankings.get(e.qid)
        if first is not None:
            duplicate_query(p, e.qid, span, first.span)
            continue
        run.rankings[e.qid] = ranking
    return run


def _columns(docs: list[str], starts: list[int], scores: list[float] | None) -> Docs:
    """The documents of an entry that names none twice, in evaluation order: what
    :func:`_ranked_list` or :func:`_ranked_scores` make of it, without a Retrieved for each."""
    ids = list(map(sys.intern, docs))
    if scores is None:
        return Docs(ids, array("q", starts), ranks=range(1, len(ids) + 1))
    place = {d: i for i, d in enumerate(ids)}
    order = [place[d] for d in trec_eval_order(zip(ids, scores, strict=True))]
    return Docs(
        [ids[i] for i in order],
        array("q", [starts[i] for i in order]),
        scores=array("d", [scores[i] for i in order]),
    )


def _parse_ranking(p: ShapeReader, key: YScalar, value: YNode) -> Ranking:
    ranking = Ranking(qid=key.value, span=key.span, block=Span(key.span.start, value.span.end))
    entries: list[Retrieved] = []
    if isinstance(value, YSeq):
        for item in value.items:
            doc = doc_id(p, item)
            if doc is not None:
                entries.append(Retrieved(doc, item.span, rank=len(entries) + 1))
    elif isinstance(value, YMap):
        scored: list[Retrieved] = []
        for k, v in value.items:
            doc = doc_id(p, k)
            score = _score(p, v)
            if doc is not None and score is not None:
                scored.append(Retrieved(doc, k.span, score=score))
        ranking.docs = _ranked_scores(p, scored, key.value)
        return ranking
    elif not (isinstance(value, YScalar) and value.type == "null"):
        p.expect(value, YSeq, f"Results of `{key.value}`", key.span)
    ranking.docs = _ranked_list(p, entries, key.value)
    return ranking


def _ranked_list(p: ShapeReader, entries: list[Retrieved], qid: str) -> Sequence[Retrieved]:
    """A listed ranking: its order as written, each document's first occurrence (as columns)."""
    if len({r.doc_id for r in entries}) == len(entries):
        return Docs.of(entries)  # (no document twice: the common case, a set's work)
    _report_duplicates(p, entries, qid)
    return Docs.of(_dedupe(entries))


def _ranked_scores(p: ShapeReader, scored: list[Retrieved], qid: str) -> Sequence[Retrieved]:
    """A mapping id -> score in trec_eval's order, each document's first occurrence (as
    columns)."""
    order = trec_eval_order((r.doc_id, r.score or 0.0) for r in scored)
    by_id: dict[str, Retrieved] = {}
    for r in scored:
        by_id.setdefault(r.doc_id, r)
    entries = [by_id[d] for d in order if d in by_id]
    _report_duplicates(p, scored, qid)
    return Docs.of(_dedupe(entries))


def read_run_yaml_ids(text: str) -> dict[str, list[str]]:
    """qid -> doc ids in evaluation order without the span model: the line reader's when it
    reads the file (a few strings per line), else the full parser's."""
    found = run_yaml_lines.rankings(text)
    return found if found is not None else parse_run_yaml(text).ranked_ids()


def qrels_named(text: str) -> Ref | None:
    """The ``qrels:`` a run YAML names: from the lines above ``results:`` when they say it,
    else without its rankings' spans when the line reader reads the file."""
    head = run_yaml_lines.header(text)
    if head is not None and "qrels" in head:
        return Ref(*head["qrels"])
    top = run_yaml_lines.top_values(text)
    if top is not None:
        found = top.get("qrels")
        return Ref(*found) if found is not None else None
    return parse_run_yaml_tree(text).qrels


def name_written(text: str) -> str | None:
    """The ``name:`` a run YAML gives itself (what its lenses and reports are headed by)."""
    top = run_yaml_lines.top_values(text)
    if top is not None:
        found = top.get("name")
        return found[0] if found is not None and len(found[0]) <= MAX_ID else None
    return parse_run_yaml_tree(text).name


# YAML 1.2 / JSON floats such as `1e-05` (what json.dumps and most YAML 1.2 emitters write for
# small scores) are text to YAML 1.1's resolver, which wants a dot: read them as numbers anyway.


def _score(p: ShapeReader, node: YNode) -> float | None:
    if isinstance(node, YScalar) and (
        node.type in ("int", "float") or (node.plain and FLOAT_12.fullmatch(node.value))
    ):
        try:
            return float(node.value.replace("_", ""))
        except ValueError:
            pass
    if not isinstance(node, YAlias):
        p.add("QR004", node.span, f"A score must be a number, found {describe(node)}.")
    return None


def _report_duplicates(p: ShapeReader, entries: list[Retrieved], qid: str) -> None:
    first: dict[str, Retrieved] = {}
    for r in entries:
        if r.doc_id in first:
            p.add(
                "QR203",
                r.span,
                f"`{r.doc_id}` is retrieved twice for `{qid}`; trec_eval refuses such a run. "
                "Only the first occurrence is scored.",
                related=(Related(first[r.doc_id].span, "first retrieved here"),),
            )
        else:
            first[r.doc_id] = r


def _dedupe(entries: list[Retrieved]) -> list[Retrieved]:
    seen: set[str] = set()
    out = []
    for r in entries:
        if r.doc_id not in seen:
            seen.add(r.doc_id)
            out.append(r)
    return out


def run_yaml_text(run: Run, name: str, qrels: str | None = None) -> str:
    """A run YAML holding ``run`` (a converted TREC, JSON or TSV run), its documents in evaluation
    order; with their scores when every one has a finite one (a mapping, which ranks them the
    same way), so that nothing the run said is lost (a run YAML takes no NaN or infinite score:
    such a query keeps its order as a list); ``qrels`` names the golden set it answers."""
    lines = [f"qrels: {yaml_scalar(qrels)}"] if qrels is not None else []
    lines += [f"name: {yaml_scalar(name)}", "results:"]
    for qid, ranking in run.rankings.items():
        lines.append(f"  {yaml_scalar(qid)}:")
        if ranking.docs and all(d.score is not None and isfinite(d.score) for d in ranking.docs):
            lines.extend(
                f"    {yaml_scalar(d.doc_id)}: {yaml_float(d.score)}"  # type: ignore[arg-type]
                for d in ranking.docs
            )
        else:
            lines.extend(f"    - {yaml_scalar(d.doc_id)}" for d in ranking.docs)
    return "\n".join(lines) + "\n"


FORMAT = Format(
    name="run-yaml",
    display="run (YAML)",
    role="run",
    parse=parse_run_yaml,
    yaml=True,
    query_ids=keys_under("results"),
    id_text=rewrite_scalar,
    read_rankings=read_run_yaml_ids,
    clean=run_yaml_lines.clean,
    named=name_written,
    reformat=Schema(
        lambda text: (parse_run_yaml(text), parse_yaml(text)),
        lambda text: (parse_run_yaml(text), None),
        tuple(RUN_KEYS),
        "results",
    ).reformat,
)
