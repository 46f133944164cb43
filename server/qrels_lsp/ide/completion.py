"""Completion candidates for golden sets and YAML runs, in core terms.

- Inside a query's ``relevant:`` (list or mapping, flow or block, half typed or not): corpus ids
  ranked by BM25 against the query's question; ids already judged for the query come last,
  marked with their grade.
- Inside a run's ``results:``: at a query key, the golden set's queries the run does not answer
  yet; inside a ranking, corpus ids ranked against that query's question.
- At key positions: the schema's keys (:data:`GOLDEN_KEYS`, :data:`QUERY_KEYS`,
  :data:`RUN_KEYS`) not already present, with their one-line documentation.

Every item writes what its place needs to stay valid YAML that means what the user meant
(:func:`_written`): an id in a list is the id; in a mapping it is a key with its value (a
grade, a score: a snippet's placeholder for clients that take snippets), unless the line has
its `:` already; quoted as :func:`.yaml_scalar` says, or escaped inside the user's own quotes.

Without a BM25 index (still being built), ids come alphabetically and say so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..core.base.escape import md_code, md_text
from ..core.base.findings import TextEdit
from ..core.base.patterns import SNIPPET_SPECIAL
from ..core.base.text import Span
from ..core.formats.corpus import Corpus
from ..core.formats.golden_derived import CHUNK_KEYS
from ..core.formats.keys import GOLDEN_KEYS, QUERY_KEYS, RUN_KEYS
from ..core.formats.yaml.context import Entry, YamlContext, context_at, entries_of
from ..core.formats.yaml.scalar import in_quotes, yaml_scalar
from ..core.fusion import FUSION_KEYS, METHODS, NORMS
from ..core.model import CRITICAL_TAG, Qrels, Run
from ..core.project.analysis import Analysis
from ..core.search.indexes import IndexCache
from ..core.search.tokens import snippet, tokenize

if TYPE_CHECKING:  # numpy stays out of the import path until an index is built
    from ..core.search.bm25 import BM25Index

LIMIT = 100
NOT_READY = "alphabetical: the BM25 index is still being built"
BLIND = "alphabetical: judging blind, BM25 (a system compared) does not order them"
ItemKind = Literal["document", "query", "key", "run"]
# Keys whose value is a collection (`key:` then a block or a flow value) or a scalar (`key: `).
_COLLECTION_KEYS = {"queries", "runs", "relevant", "results", "fusions"}


@dataclass(frozen=True, slots=True)
class Candidate:
    label: str
    kind: ItemKind
    edit: TextEdit  # replaces the token being typed
    sort_text: str
    filter_text: str
    detail: str | None = None
    documentation: str | None = None  # markdown
    snippet: str | None = None  # the edit's text as a snippet (a value to type over), if it has one


@dataclass(frozen=True, slots=True)
class Completions:
    items: list[Candidate]
    incomplete: bool = False  # capped or provisional: ask again as the user types


@dataclass(frozen=True, slots=True)
class Request:
    """What completion needs to know about the file and its project."""

    kind: str  # the file's FileKind
    text: str
    offset: int
    qrels: Qrels | None  # the golden set (this file, or the one the run answers)
    run: Run | None = None
    corpus: Corpus | None = None
    index: BM25Index | None = None
    runs: tuple[str, ...] = ()  # the names of the golden set's runs (for `compare_to:`)
    blind: bool = False  # judging blind: no BM25 order, which is one of the systems compared


def complete(req: Request) -> Completions | None:
    """Candidates at ``req.offset``; None where nothing is offered."""
    ctx = context_at(req.text, req.offset)
    if ctx is None:
        return None
    if req.kind == "golden":
        return _golden(req, ctx)
    if req.kind == "run-yaml":
        return _run(req, ctx)
    return None


def _golden(req: Request, ctx: YamlContext) -> Completions | None:
    path, role = ctx.path, ctx.role
    if path == () and role == "key":
        return _keys(ctx, GOLDEN_KEYS, "golden set")
    if len(path) == 2 and path[0] == "queries" and role == "key":
        return _keys(ctx, QUERY_KEYS, "query")
    if path == ("compare_to",) and role == "value":
        return _run_names(req, ctx, "Compare the other runs with this one.")
    if path == ("fusions",) and role == "key":
        return _keys(ctx, FUSION_KEYS, "fusion")
    if path == ("fusions", "runs") and role != "value" and not _no_room(ctx):
        return _run_names(req, ctx, "Fuse this run.", {e.text for e in ctx.entries})
    if path in (("fusions", "method"), ("fusions", "norm")) and role == "value":
        return _choices(ctx, list(METHODS) if path[1] == "method" else list(NORMS), path[1])
    if path == ("chunks",) and role == "key":
        return _keys(ctx, CHUNK_KEYS, "`chunks`")
    if len(path) == 3 and path[0] == "queries" and path[2] == "relevant" and role != "value":
        if _no_room(ctx):
            return None
        qid = path[1]
        judged = _judged(ctx.entries)
        return _documents(req, ctx, _question(req, qid), judged, "judged", {}, GRADE)
    if len(path) == 3 and path[0] == "queries" and path[2] == "tags" and role != "value":
        return None if _no_room(ctx) else _tags(req, ctx, path[1])
    return None


CRITICAL = CRITICAL_TAG  # the tag `qrels-lsp gate --critical` looks for by default


def _tags(req: Request, ctx: YamlContext, qid: str) -> Completions:
    """The tags the golden set's other questions use (most used first), and `critical`."""
    counts: dict[str, int] = {CRITICAL: 0}
    for other, query in req.qrels.queries.items() if req.qrels else ():
        for tag in query.tags if other != qid else ():
            counts[tag] = counts.get(tag, 0) + 1
    present = {e.text for e in ctx.entries}
    ranked = sorted((t for t in counts if t not in present), key=lambda t: (-counts[t], t))
    items = [
        Candidate(
            label=tag,
            kind="key",
            edit=_written(ctx, tag)[0],
            sort_text=f"{i:04d}",
            filter_text=tag,
            detail=f"tag of {counts[tag]} question{'s' * (counts[tag] != 1)}",
            documentation="`qrels-lsp gate` fails when a question tagged `critical` gets worse."
            if tag == CRITICAL
            else None,
        )
        for i, tag in enumerate(ranked)
    ]
    return Completions(items)


def _run(req: Request, ctx: YamlContext) -> Completions | None:
    path, role = ctx.path, ctx.role
    if path == () and role == "key":
        return _keys(ctx, RUN_KEYS, "run")
    if path == ("results",) and role == "key":
        return _queries(req, ctx)
    if len(path) == 2 and path[0] == "results" and role != "value":
        if _no_room(ctx):
            return None
        qid = path[1]
        query = req.qrels.queries.get(qid) if req.qrels else None
        question = query.question if query is not None else None
        present: dict[str, int | None] = {e.text: None for e in ctx.entries}
        golden = query.grades() if query is not None else {}
        # a new ranking is a list (`- id`), as runs are usually written; `id: score` in a mapping
        score = SCORE if ctx.flow or ctx.entries else None
        return _documents(req, ctx, question, present, "retrieved", golden, score)
    return None


GRADE = "1"  # what a new judgment in a mapping is graded until the user types over it
SCORE = "0"  # the score a document added to a scored ranking (`id: score`) starts with


def _no_room(ctx: YamlContext) -> bool:
    """A key position on a blank line where no entry can go: under a `- ` list (an entry there
    would need its dash, at the dash's column) or under a flow collection written on its key's
    line (`relevant: [a]`: anything below breaks it)."""
    if ctx.role != "key" or ctx.flow:
        return False
    return ctx.block_list or any(e.flow for e in ctx.entries)


def _judged(entries: tuple[Entry, ...]) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for e in entries:
        if e.role == "item":
            out.setdefault(e.text, 1)
        else:
            try:
                out.setdefault(e.text, int(e.value) if e.value is not None else None)
            except ValueError:
                out.setdefault(e.text, None)
    return out


def _question(req: Request, qid: str) -> str | None:
    """The query's question: from the raw text first (the parse may stop before it), else the
    model (e.g. TREC topics attached to it)."""
    for e in entries_of(req.text, ("queries", qid)):
        if e.role == "key" and e.text == "question" and e.value:
            return e.value
    query = req.qrels.queries.get(qid) if req.qrels else None
    return query.question if query is not None else None


def _edit_text(ctx: YamlContext, value: str) -> str:
    """``value`` as written at the token: inside the user's quotes (escaped for them, closed if
    they are still open), else quoted only if YAML needs it."""
    if ctx.quoted:
        return in_quotes(value, ctx.quote) + ctx.closing
    return yaml_scalar(value, flow=ctx.flow)


def _written(ctx: YamlContext, value: str, fill: str | None = None) -> tuple[TextEdit, str | None]:
    """``value`` as an entry of the collection at the token, and as a snippet when it has a
    value to type over. An item is the scalar. At a key position: with its `:` already on the
    line, the scalar; in a mapping (``fill``: the value it starts with), ``value: fill`` (after
    the user's closing quote, which the edit then rewrites); in a block list-only collection
    written as nothing yet (`tags:` then a blank line), ``- value``."""
    scalar = _edit_text(ctx, value)
    if ctx.role != "key" or ctx.keyed or (fill is None and ctx.flow):
        return TextEdit(ctx.token, scalar), None
    if fill is None:
        return TextEdit(ctx.token, f"- {scalar}"), None
    span = ctx.token
    if ctx.quoted and not ctx.closing:  # `"kb/fa|q.md"`: the value goes after the quote
        span, scalar = Span(span.start, span.end + 1), scalar + ctx.quote
    return TextEdit(span, f"{scalar}: {fill}"), f"{_snippet_literal(scalar)}: ${{1:{fill}}}"


def _snippet_literal(text: str) -> str:
    """``text`` as literal snippet text: `$`, `}` and `\\` escaped with a backslash."""
    return SNIPPET_SPECIAL.sub(lambda m: "\\" + m.group(0), text)


def _keys(ctx: YamlContext, keys: dict[str, str], where: str) -> Completions:
    present = {e.text for e in ctx.entries if e.role == "key"}
    items = []
    for i, (key, doc) in enumerate(keys.items()):
        if key in present:
            continue
        colon = "" if ctx.keyed else (":" if key in _COLLECTION_KEYS else ": ")
        new_text = _edit_text(ctx, key) + colon
        items.append(
            Candidate(
                label=key,
                kind="key",
                edit=TextEdit(ctx.token, new_text),
                sort_text=f"{i:03d}",
                filter_text=key,
                detail=f"{where} key",
                documentation=doc,
            )
        )
    return Completions(items)


def _run_names(
    req: Request, ctx: YamlContext, what: str, present: set[str] | None = None
) -> Completions:
    """The golden set's runs by the names `compare_to:` and a fusion's `runs:` take."""
    items = [
        Candidate(
            label=name,
            kind="run",
            edit=_written(ctx, name)[0],
            sort_text=f"{i:03d}",
            filter_text=name,
            detail="run",
            documentation=what,
        )
        for i, name in enumerate(req.runs)
        if not present or name not in present
    ]
    return Completions(items)


def _choices(ctx: YamlContext, values: list[str], key: str) -> Completions:
    """The values a key takes (a fusion's `method:`, `norm:`)."""
    items = [
        Candidate(
            label=value,
            kind="key",
            edit=TextEdit(ctx.token, _edit_text(ctx, value)),
            sort_text=f"{i:03d}",
            filter_text=value,
            detail=f"`{key}`",
        )
        for i, value in enumerate(values)
    ]
    return Completions(items)


def _queries(req: Request, ctx: YamlContext) -> Completions | None:
    if req.qrels is None:
        return None
    present = {e.text for e in ctx.entries if e.role == "key"}
    if req.run is not None:
        present |= set(req.run.rankings)
    items = []
    for i, (qid, query) in enumerate(req.qrels.queries.items()):
        if qid in present:
            continue
        doc = None
        if query.question:
            doc = f"**{qid}**\n\n{query.question}"
        items.append(
            Candidate(
                label=qid,
                kind="query",
                edit=TextEdit(ctx.token, _edit_text(ctx, qid) + ("" if ctx.keyed else ":")),
                sort_text=f"{i:06d}",
                filter_text=qid,
                detail="unanswerable" if query.unanswerable else "not in this run yet",
                documentation=doc,
            )
        )
    return Completions(items)


def _matches(doc_id: str, prefix: str) -> bool:
    return not prefix or prefix.lower() in doc_id.lower()


def _documents(
    req: Request,
    ctx: YamlContext,
    question: str | None,
    already: dict[str, int | None],
    mark: Literal["judged", "retrieved"],
    golden: dict[str, int],
    fill: str | None,
) -> Completions | None:
    corpus = req.corpus
    if corpus is None:
        return None
    prefix = ctx.prefix
    ids = corpus.ids
    index = req.index
    tokens = tokenize(question) if question else []
    if req.blind or index is None or len(index.doc_ids) != len(ids):
        ranked = sorted(i for i in ids if _matches(i, prefix))
        scores: dict[str, float] = {}
        provisional = index is None
    else:
        import numpy as np  # loaded with the index already; kept off the start-up path

        arr = index.scores(tokens) if tokens else np.zeros(len(ids))
        order = np.lexsort((np.arange(len(ids)), -arr))
        ranked = [ids[i] for i in order if _matches(ids[i], prefix)]
        scores = {ids[i]: float(arr[i]) for i in order[: 4 * LIMIT]}
        provisional = False
    fresh = [d for d in ranked if d not in already]
    done = [d for d in ranked if d in already]
    chosen = (fresh + done)[:LIMIT]
    items = []
    for n, doc_id in enumerate(chosen):
        group = "1" if doc_id in already else "0"
        if doc_id in already:
            grade = already[doc_id]
            if mark == "judged":
                detail = "already judged" + (f" (grade {grade})" if grade is not None else "")
            else:
                detail = "already in this ranking"
        elif req.blind:
            detail = BLIND
        elif provisional:
            detail = NOT_READY
        else:
            score = scores.get(doc_id, 0.0)
            detail = f"BM25 {score:.2f}" if score else "BM25: no word in common with the question"
        if doc_id in golden:
            detail += f" · judged grade {golden[doc_id]} in the golden set"
        edit, snippet = _written(ctx, doc_id, fill)
        items.append(
            Candidate(
                label=doc_id,
                kind="document",
                edit=edit,
                sort_text=f"{group}{n:06d}",
                filter_text=doc_id,
                detail=detail,
                documentation=None if provisional else _doc_markdown(corpus, doc_id, tokens),
                snippet=snippet,
            )
        )
    return Completions(items, incomplete=provisional or len(fresh) + len(done) > LIMIT)


def _doc_markdown(corpus: Corpus, doc_id: str, tokens: list[str]) -> str | None:
    doc = corpus.get(doc_id)
    if doc is None:
        return None
    title = doc.title or doc_id
    lines = [f"**{md_text(title)}**", "", md_code(doc_id)]
    text = snippet(doc, tokens)
    if text:
        lines += [""] + [f"> {md_text(line)}" for line in text.splitlines()]
    return "\n".join(lines)


__all__ = [
    "LIMIT",
    "NOT_READY",
    "Candidate",
    "Completions",
    "Request",
    "complete",
]


def corpus_of(analysis: Analysis) -> Corpus | None:
    """The corpus an analysed file's ids point at, when it was read."""
    ctx = analysis.context
    return ctx.corpus if ctx is not None and isinstance(ctx.corpus, Corpus) else None


def request_for(analysis: Analysis, offset: int, indexes: IndexCache) -> Request:
    """The completion request at ``offset`` of an analysed file."""
    ctx = analysis.context
    model = analysis.model
    corpus = corpus_of(analysis)
    return Request(
        kind=analysis.kind,
        text=analysis.text,
        offset=offset,
        qrels=ctx.qrels if ctx is not None else (model if isinstance(model, Qrels) else None),
        run=model if isinstance(model, Run) else None,
        corpus=corpus,
        index=indexes.get(corpus) if corpus is not None else None,
        runs=tuple(("bm25" if r.baseline else r.name) for r in analysis.runs if not r.error),
        blind=ctx.blind_judging if ctx is not None else False,
    )
