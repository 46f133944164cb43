"""Content checks for golden sets and runs: what a parser cannot see on its own.

Each check takes parsed models and the context it needs (the corpus, the golden set a run
answers, k) and returns findings with fixes. Parser findings (syntax, shape) are not repeated
here; :func:`check_golden` and :func:`check_run` return only what they add.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable

from .corpus import Corpus, CorpusError
from .edits import insert_entry, newline_of, remove_item
from .findings import Finding, Fix, Related, TextEdit, finding, shift_finding
from .incremental import EntryEdit
from .model import Judgment, Qrels, QrelsFormat, Query, Run
from .text import LineIndex, Span, line_end_at, line_index, line_start_at
from .tokens import (
    COPY_THRESHOLD,
    MAX_COPY_DOCUMENT_CHARS,
    MAX_COPY_DOCUMENTS,
    MAX_COPY_QUESTION_CHARS,
    content_ngrams,
    ngram_overlap,
)

CorpusState = Corpus | CorpusError | None  # None: the file names no corpus


_Key = tuple[str, str]  # query id, entry text


class CheckCache:
    """Per-query findings by the query's own text, so an edit re-checks the query it touched.

    A query's findings depend on its entry's text (from its key's line to the end of its last
    line) and on the setting: the corpus, the relevance level and the file's line break (a fix
    that inserts a line uses the file's own). Cached findings are moved with their entry; another
    setting starts afresh. The corpus object is held, so that its identity stands for its
    content (a reloaded corpus is a new object, and a freed one's id cannot come back).

    The last result is kept per query too: after an edit of one entry (an :class:`EntryEdit`
    from the incremental re-parse), the others' findings are the last ones, moved by the edit
    where they lie after it, with no pass over every entry's text.
    """

    def __init__(self) -> None:
        self._entries: dict[_Key, tuple[int, list[Finding]]] = {}
        self._setting: tuple[Corpus | None, int, str] | None = None
        self._last: tuple[Qrels, dict[str, list[Finding]]] | None = None

    def use(self, corpus: Corpus | None, level: int, newline: str) -> None:
        """The setting of the next check; a different one empties the cache."""
        old = self._setting
        if old is None or old[0] is not corpus or old[1:] != (level, newline):
            self._entries, self._last = {}, None
            self._setting = (corpus, level, newline)

    def get(self, key: _Key, start: int) -> list[Finding] | None:
        hit = self._entries.get(key)
        if hit is None:
            return None
        old_start, found = hit
        return found if old_start == start else [shift_finding(f, start - old_start) for f in found]

    def put(self, key: _Key, start: int, found: list[Finding]) -> None:
        self._entries[key] = (start, found)

    def keep_only(self, keys: set[_Key]) -> None:
        for key in [k for k in self._entries if k not in keys]:
            del self._entries[key]

    def remember(self, qrels: Qrels, found: dict[str, list[Finding]]) -> None:
        self._last = (qrels, found)

    def last_for(self, edit: EntryEdit) -> dict[str, list[Finding]] | None:
        """The last per-query findings, if they were computed for the model ``edit`` changed."""
        last = self._last
        return last[1] if last is not None and last[0] is edit.before else None


def check_golden(
    qrels: Qrels,
    text: str,
    corpus: CorpusState,
    *,
    level: int = 1,
    cache: CheckCache | None = None,
    edit: EntryEdit | None = None,
) -> list[Finding]:
    """Checks of a golden set (or TREC/BEIR qrels, where the text-level fixes do not apply).

    ``edit`` says that ``qrels`` differs from the model last checked with ``cache`` in one entry
    only: the other entries' findings are then taken from the last check.
    """
    out: list[Finding] = []
    if qrels.corpus is not None and isinstance(corpus, CorpusError):
        out.append(
            finding("QR109", qrels.corpus.span, f"Corpus `{qrels.corpus.value}`: {corpus.message}")
        )
    known = corpus if isinstance(corpus, Corpus) else None
    if known is not None and known.limits:
        span = qrels.corpus.span if qrels.corpus is not None else Span(0, 0)
        name = f"`{qrels.corpus.value}`" if qrels.corpus is not None else "The corpus"
        out.append(finding("QR113", span, f"{name}: " + "; ".join(known.limits) + "."))
    if qrels.format != "golden":
        cache = None  # TREC/BEIR qrels are parsed whole, with no edit fixes to keep
    if cache is not None:
        cache.use(known, level, newline_of(text))
    last = cache.last_for(edit) if cache is not None and edit is not None else None
    if last is not None and edit is not None:
        per_query = _moved_findings(last, edit)
        query = qrels.queries[edit.qid]
        per_query[edit.qid] = _check_query(query, text, line_index(text), known, level, "golden")
    else:
        per_query = _check_all(qrels, text, known, level, cache)
    if cache is not None:
        cache.remember(qrels, per_query)
    out.extend(itertools.chain.from_iterable(per_query.values()))
    out.extend(_duplicate_questions(qrels.queries.values()))
    return out


def _moved_findings(last: dict[str, list[Finding]], edit: EntryEdit) -> dict[str, list[Finding]]:
    """The last per-query findings, in the same order, with those after the edit moved."""
    out = dict(last)
    for qid, found in last.items():
        if found and qid != edit.qid:
            out[qid] = [shift_finding(f, edit.delta, edit.end) for f in found]
    return out


def _check_all(
    qrels: Qrels,
    text: str,
    known: Corpus | None,
    level: int,
    cache: CheckCache | None,
) -> dict[str, list[Finding]]:
    """Every query's findings, from the text-keyed cache where the entry is unchanged."""
    lines: LineIndex | None = None
    budget = SuggestionBudget()  # one for the file: "did you mean" for its first unknown ids
    used: set[_Key] = set()
    out: dict[str, list[Finding]] = {}
    for query in qrels.queries.values():
        start = line_start_at(text, query.span.start)
        key = (query.qid, text[start : line_end_at(text, query.block.end)])
        found = cache.get(key, start) if cache is not None else None
        if found is None:
            if lines is None:
                lines = line_index(text)
            found = _check_query(query, text, lines, known, level, qrels.format, budget)
            if cache is not None:
                cache.put(key, start, found)
        used.add(key)
        out[query.qid] = found
    if cache is not None:
        cache.keep_only(used)
    return out


def _check_query(
    query: Query,
    text: str,
    lines: LineIndex,
    known: Corpus | None,
    level: int,
    fmt: QrelsFormat,
    budget: SuggestionBudget | None = None,
) -> list[Finding]:
    yaml_fixes = fmt == "golden"  # TREC/BEIR lines have no YAML edits to offer
    found = list(_duplicate_documents(query, text, lines, yaml_fixes))
    found += _linkage(query, text, lines, level, yaml_fixes)
    found += _empty_question(query, fmt)
    if known is not None:
        found += _unknown_documents(query, known, budget or SuggestionBudget())
        found += _copied_wording(query, known, level)
    return found


def _relevant(query: Query, level: int) -> list[Judgment]:
    return [j for j in query.judgments if j.grade >= level]


def _duplicate_documents(
    query: Query, text: str, lines: LineIndex, with_fix: bool
) -> Iterable[Finding]:
    first: dict[str, Judgment] = {}
    previous: Judgment | None = None
    for j in query.judgments:
        if j.doc_id in first:
            fixes: tuple[Fix, ...] = ()
            item = Span(j.span.start, (j.grade_span or j.span).end)
            edit = remove_item(text, lines, item, _end(previous)) if with_fix else None
            if edit is not None:
                fixes = (Fix(f"Remove the second `{j.doc_id}`", (edit,), True),)
            yield finding(
                "QR102",
                j.span,
                f"`{j.doc_id}` is listed twice for `{query.qid}`; only the first "
                f"(grade {first[j.doc_id].grade}) counts. Remove one.",
                fixes=fixes,
                related=(Related(first[j.doc_id].span, "first listed here"),),
            )
        else:
            first[j.doc_id] = j
        previous = j


def _end(j: Judgment | None) -> int | None:
    if j is None:
        return None
    return (j.grade_span or j.span).end


def _linkage(
    query: Query, text: str, lines: LineIndex, level: int, with_fix: bool
) -> Iterable[Finding]:
    relevant = _relevant(query, level)
    if query.unanswerable:
        if relevant and query.unanswerable_span is not None:
            edit = remove_item(text, lines, query.unanswerable_span, None) if with_fix else None
            fixes = (Fix("Remove `unanswerable: true`", (edit,)),) if edit else ()
            yield finding(
                "QR105",
                query.unanswerable_span,
                f"`{query.qid}` is marked unanswerable but has {len(relevant)} relevant "
                "document(s); it is left out of the means. Remove the mark or the judgments.",
                fixes=fixes,
            )
        return
    if relevant:
        return
    judged = (
        f" (its {len(query.judgments)} judgment(s) are all below relevance level {level})"
        if query.judgments
        else ""
    )
    fixes = ()
    if with_fix:
        edit = insert_entry(text, lines, query.span, query.block, "unanswerable: true")
        fixes = (Fix(f"Mark `{query.qid}` as unanswerable", (edit,)),) if edit else ()
    yield finding(
        "QR104",
        query.span,
        f"`{query.qid}` has no relevant document{judged}: link the documents that answer it, "
        "or mark it `unanswerable: true` if the corpus holds no answer. It scores 0 everywhere.",
        fixes=fixes,
    )


def _empty_question(query: Query, fmt: str) -> Iterable[Finding]:
    if fmt != "golden":
        return
    if query.question is None and query.question_span is None:
        yield finding(
            "QR107",
            query.span,
            f"`{query.qid}` has no `question:`; write the question as a user asked it.",
        )
    elif query.question is not None and not query.question.strip():
        yield finding(
            "QR107",
            query.question_span or query.span,
            f"The question of `{query.qid}` is empty; write the question as a user asked it.",
        )


_NORMALIZE = re.compile(r"[\W_]+")


@functools.lru_cache(maxsize=65536)
def _normalized(question: str) -> str:
    """A question's words, for comparing questions (cached: asked for every question per edit)."""
    return _NORMALIZE.sub(" ", question.casefold()).strip()


def _duplicate_questions(queries: Iterable[Query]) -> Iterable[Finding]:
    first: dict[str, Query] = {}
    for query in queries:
        if not query.question:  # (spans are read for duplicates only: see Query.shifted)
            continue
        key = _normalized(query.question)
        if not key:
            continue
        if key in first:
            other = first[key]
            # A question from a topics file has no place in this file: it is not compared.
            if other.question_span is None:
                if query.question_span is not None:
                    first[key] = query
                continue
            if query.question_span is None:
                continue
            yield finding(
                "QR108",
                query.question_span,
                f"`{query.qid}` asks the same question as `{other.qid}`; the mean counts it "
                "twice. Merge them or reword one as users really ask it.",
                related=(Related(other.question_span, f"`{other.qid}` asks it here"),),
            )
        else:
            first[key] = query


SUGGESTION_BUDGET = 5_000_000
"""Id comparisons spent on "did you mean" per check of a file (each unknown id is compared with
every corpus id, ~0.1 s per million): 50 unknown ids get suggestions in a 100,000-document corpus,
5,000 in a 1,000-document one. Past it an unknown id is still reported, without suggestions
(10,000 unknown ids against 100,000 documents had taken 100 s)."""


class SuggestionBudget:
    """What is left of :data:`SUGGESTION_BUDGET` for one check of one file."""

    __slots__ = ("left", "spent_on")

    def __init__(self, comparisons: int = SUGGESTION_BUDGET) -> None:
        self.left = comparisons
        self.spent_on = 0  # unknown ids that got suggestions

    def take(self, cost: int) -> bool:
        """Whether ``cost`` comparisons may be spent (and spend them)."""
        if cost > self.left:
            self.left = 0  # later, cheaper ids are not served either: first come, first served
            return False
        self.left -= cost
        self.spent_on += 1
        return True


def _unknown_documents(query: Query, corpus: Corpus, budget: SuggestionBudget) -> Iterable[Finding]:
    for j in query.judgments:
        if j.doc_id in corpus:
            continue
        yield unknown_document("QR106", j.doc_id, j.span, corpus, budget)


def unknown_document(
    code: str, doc_id: str, span: Span, corpus: Corpus, budget: SuggestionBudget | None = None
) -> Finding:
    """An id missing from the corpus, with the closest ids as one-click replacements while the
    check's ``budget`` lasts (a lone call gets a budget of its own). The message says when no
    suggestion was looked for, and when the corpus was read only in part."""
    budget = budget if budget is not None else SuggestionBudget()
    searched = budget.take(len(corpus))
    close = corpus.closest(doc_id, 3) if searched else []
    fixes = tuple(
        Fix(f"Replace with `{c}`", (TextEdit(span, c),), preferred=i == 0)
        for i, c in enumerate(close)
    )
    if close:
        hint = f" Did you mean `{close[0]}`?"
    elif not searched:
        hint = (
            " (No similar id was looked for: the check of a file compares at most "
            f"{SUGGESTION_BUDGET:,} ids for suggestions, spent on the first "
            f"{budget.spent_on:,} unknown ids.)"
        )
    else:
        hint = ""
    count = f"{len(corpus)} documents"
    if corpus.partial is not None:
        count += f" read; it was read only in part ({corpus.partial}), so it may be in the rest"
    return finding(code, span, f"`{doc_id}` is not in the corpus ({count}).{hint}", fixes=fixes)


def _copied_wording(query: Query, corpus: Corpus, level: int) -> Iterable[Finding]:
    """QR110, with the work per question bounded: a question longer than
    :data:`MAX_COPY_QUESTION_CHARS` is not compared (and the finding says so), and it is compared
    with at most :data:`MAX_COPY_DOCUMENTS` documents, each on its first characters only."""
    if not query.question or query.question_span is None:
        return
    if len(query.question) > MAX_COPY_QUESTION_CHARS:
        yield finding(
            "QR110",
            query.question_span,
            f"The question of `{query.qid}` is {len(query.question):,} characters long: it was "
            f"not compared with its documents (only questions of up to "
            f"{MAX_COPY_QUESTION_CHARS:,} characters are). Is it really a question?",
        )
        return
    grams = content_ngrams(query.question)
    for j in _relevant(query, level)[:MAX_COPY_DOCUMENTS]:
        doc = corpus.get(j.doc_id)
        if doc is None:
            continue
        text = doc.searchable_prefix(MAX_COPY_DOCUMENT_CHARS)
        overlap = ngram_overlap(grams, text, at_least=COPY_THRESHOLD)
        if overlap >= COPY_THRESHOLD:
            yield finding(
                "QR110",
                query.question_span,
                f"The question copies `{j.doc_id}`: {overlap:.0%} of its word pairs appear "
                f"verbatim there (threshold {COPY_THRESHOLD:.0%}). Questions written from the "
                "documents flatter every retriever; use the words a user would.",
                related=(Related(j.span, "the document it copies"),),
            )
            return


def check_run(
    run: Run,
    qrels: Qrels | None,
    corpus: CorpusState,
    *,
    k: int,
    level: int = 1,
    unbound_reason: str | None = None,
) -> list[Finding]:
    """Checks of a run against the golden set it answers (``qrels``) and its corpus."""
    out: list[Finding] = []
    if qrels is None:
        span = run.qrels.span if run.qrels is not None else Span(0, 0)
        reason = unbound_reason or (
            "This run is not tied to a golden set: add `qrels: path/to/golden.qrels.yaml`, "
            "list it in a golden set's `runs:`, or name it in qrels-lsp.toml."
        )
        out.append(finding("QR207", span, reason))
    known = corpus if isinstance(corpus, Corpus) else None
    budget = SuggestionBudget()
    for qid, ranking in run.rankings.items():
        if qrels is not None and qid not in qrels.queries:
            out.append(
                finding(
                    "QR201",
                    ranking.span,
                    f"`{qid}` is not a query of the golden set; it is left out of the means.",
                )
            )
        if len(ranking.docs) < k:
            out.append(
                finding(
                    "QR205",
                    ranking.span,
                    f"`{qid}` has {len(ranking.docs)} result(s), fewer than k = {k}.",
                )
            )
        if known is not None:
            for doc in ranking.docs:
                if doc.doc_id not in known:
                    out.append(unknown_document("QR206", doc.doc_id, doc.span, known, budget))
    if qrels is not None:
        missing = [
            qid
            for qid, q in qrels.queries.items()
            if qid not in run.rankings and not q.unanswerable
        ]
        if missing:
            shown = ", ".join(f"`{q}`" for q in missing[:10]) + (
                " ..." if len(missing) > 10 else ""
            )
            span = run.results_span or (run.qrels.span if run.qrels is not None else Span(0, 0))
            out.append(
                finding(
                    "QR202",
                    span,
                    f"{len(missing)} golden-set quer{'y is' if len(missing) == 1 else 'ies are'} "
                    f"missing from this run and score 0 in every mean: {shown}.",
                )
            )
    return out
