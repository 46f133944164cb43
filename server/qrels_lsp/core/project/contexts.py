"""The contexts part of a project: what a golden set points at, resolved into a
:class:`.results.QrelsContext` (its corpus, runs, cutoff, level, metrics, fusions, how complete
its judgments are, its lock against the corpus), and its grades, kept per golden set and derived
from the last ones after an edit of one entry (so that the score caches re-score that entry's
question only).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from ..base.files import resolve
from ..base.globs import expand
from ..base.owner import Owner
from ..base.text import Span
from ..checks import CorpusState
from ..coverage.judgments import Judgments, completeness, count_pooled, judged_not_relevant
from ..formats.topics import Topics
from ..fusion import Fusion
from ..history.lock import Locks
from ..metrics import Metric, Since, configured_metrics
from ..metrics.lens import with_lens_metrics
from ..model import FileKind, Qrels, Ref
from ..presets import preset_of
from .config import Config, QrelsBinding, scoring_settings
from .files import Files
from .links import Links, union
from .pending import Pending
from .results import QrelsContext


@dataclass(frozen=True, slots=True)
class Judged:
    """What a golden set's model says for scoring, and how it was made from the last one."""

    qrels: Qrels
    grades: dict[str, dict[str, int]]
    unanswerable: set[str]
    since: Since | None
    pooled: int = 0  # questions with a grade-0 or negative judgment (coverage/judgments.py)


class Contexts:
    """Golden sets resolved against the workspace (through ``files`` and ``links``)."""

    def __init__(self, files: Files, links: Links, *, lens_metrics: bool = False) -> None:
        self.files = files
        self.links = links
        self.config = files.config
        self.lens_metrics = lens_metrics  # always compute recall@k and mrr (the lenses')
        self._judged: dict[Path, Judged] = {}
        self._locks = Locks()  # each golden set's lock against its corpus
        self.owner = Owner("the project's contexts")

    def context(
        self, path: Path, kind: FileKind, qrels: Qrels, pending: Pending | None = None
    ) -> QrelsContext:
        folder = resolve(path).parent
        binding = self.links.binding(path)
        if binding is None and kind != "golden":  # (qrels/test.tsv or .parquet)
            binding = self.links.beir_binding(path)
        outside: list[str] = []
        corpus_path, corpus = self._corpus(folder, qrels, binding, outside)
        chosen = preset_of(path, kind, qrels, binding, self.config)
        given = chosen.preset if chosen is not None else None
        k, level, chunks = scoring_settings(qrels, binding, self.config, given)
        self._topics(qrels, binding, outside)
        boundary = self.files.boundary
        expansions = {r.value: expand(folder, r.value, boundary) for r in qrels.runs}
        matches = {p: e.paths for p, e in expansions.items()}
        problems = {p: (e.refused, e.problem) for p, e in expansions.items() if e.problem}
        bound = self.links.bound_runs(binding) if binding is not None else []
        linked = [*matches.values(), bound, self.links.runs_naming(path, pending)]
        judged = self.judgments(path, qrels)
        return QrelsContext(
            path=resolve(path),
            kind=kind,
            qrels=qrels,
            k=k,
            level=level,
            metrics=self._metrics(k),
            corpus_path=corpus_path,
            corpus=corpus,
            run_paths=union(linked),
            run_matches=matches,
            run_problems=problems,
            outside=outside,
            grades=judged.grades,
            unanswerable=judged.unanswerable,
            grades_since=judged.since,
            compare_to=_compare_to(qrels, binding, self.config),
            judgments=completeness(_judgments_stated(qrels, binding, self.config), judged.pooled),
            fusions=_fusions(qrels, binding, self.config),
            chunks=chunks,
            alpha=self.config.alpha,
            min_difference=self.config.min_difference,
            min_judged=self.config.min_judged,
            pool_depth=self.config.pool_depth,
            blind_judging=self.config.blind_judging,
            preset=chosen,
            lock=self._locks.state(resolve(path), corpus, chunks, self.files.read),
        )

    def _corpus(
        self, folder: Path, qrels: Qrels, binding: QrelsBinding | None, outside: list[str]
    ) -> tuple[Path | None, CorpusState]:
        """The corpus a golden set names (or its table does), loaded; a path out of the
        boundary is said once, as QR112 where it is written, and not looked at."""
        corpus_path: Path | None = None
        if qrels.corpus is not None:
            corpus_path = folder / qrels.corpus.value
        elif binding is not None and binding.corpus is not None:
            corpus_path = binding.corpus
        if corpus_path is None:
            return None, None
        resolved = self.files.boundary.resolve(corpus_path)
        if resolved is None:
            outside.append(self.files.boundary.refusal(corpus_path))
            return _lexical(corpus_path), None  # for messages: never looked at
        return resolved, self.files.corpus(resolved)

    def _topics(self, qrels: Qrels, binding: QrelsBinding | None, outside: list[str]) -> None:
        """A table's topics give the questions the judgments lack (TREC and BEIR qrels)."""
        if binding is None or binding.topics is None:
            return
        if self.files.boundary.allows(binding.topics):
            _attach_topics(qrels, self.files.topics(binding.topics))
        else:
            outside.append(self.files.boundary.refusal(binding.topics))

    def _metrics(self, k: int) -> list[Metric]:
        metrics = configured_metrics(self.config.metrics, k)
        # the lenses' numbers, and the coverage the first line watches
        return with_lens_metrics(metrics, k) if self.lens_metrics else metrics

    def judgments(self, path: Path, qrels: Qrels) -> Judged:
        """The grades and unanswerable ids of a golden set, derived from the last ones after an
        edit of one entry: the other queries keep their grade mappings, and the score caches are
        told that only the edited query needs scoring."""
        self.owner.check()
        key = resolve(path)
        hit = self._judged.get(key)
        if hit is not None and hit.qrels is qrels:
            return hit
        edit = self.files.edit_of(path, qrels)
        if hit is not None and edit is not None and edit.before is hit.qrels:
            judged = _edited(hit, qrels, edit.qid)
        else:
            grades = qrels.grades()
            judged = Judged(
                qrels, grades, qrels.unanswerable(), None, count_pooled(grades.values())
            )
        self._judged[key] = judged
        return judged

    def forget(self, path: Path) -> None:
        self.owner.check()
        self._judged.pop(path, None)
        self._locks.forget([path])  # (a lock among the files changed is read again)

    def clear(self) -> None:
        self.owner.check()
        self._judged.clear()


def _edited(hit: Judged, qrels: Qrels, qid: str) -> Judged:
    """``hit``'s grades with question ``qid``'s taken from ``qrels`` (its entry was edited)."""
    query = qrels.queries[qid]
    grades = dict(hit.grades)
    old = hit.grades.get(qid)
    pooled = hit.pooled - (old is not None and judged_not_relevant(old))
    grades[qid] = query.grades()
    pooled += judged_not_relevant(grades[qid])
    unanswerable = set(hit.unanswerable)
    if query.unanswerable:
        unanswerable.add(qid)
    else:
        unanswerable.discard(qid)
    return Judged(qrels, grades, unanswerable, Since(hit.grades, frozenset([qid])), pooled)


def _attach_topics(qrels: Qrels, topics: Topics) -> None:
    for qid, query in qrels.queries.items():
        topic = topics.get(qid)
        if topic is not None and query.question is None:
            query.question = topic.text


def _fusions(qrels: Qrels, binding: QrelsBinding | None, config: Config) -> list[Fusion]:
    """The fused runs asked for: the golden set's `fusions:`, else its `[[qrels]]` table's,
    else the configuration's `[[fusions]]`."""
    if qrels.fusions is not None:
        return qrels.fusions
    if binding is not None and binding.fusions is not None:
        return list(binding.fusions)
    return list(config.fusions)


def _judgments_stated(
    qrels: Qrels, binding: QrelsBinding | None, config: Config
) -> tuple[Judgments, str] | None:
    """How complete the judgments are said to be, and by whom: the golden set's `judgments:`,
    its `[[qrels]]` table's, the configuration's; None when nothing says (then it is inferred)."""
    if qrels.judgments is not None:
        return cast("Judgments", qrels.judgments.value), "the golden set"
    if binding is not None and binding.judgments is not None:
        return binding.judgments, "its [[qrels]] table"
    if config.judgments is not None:
        return config.judgments, "the configuration"
    return None


def _compare_to(qrels: Qrels, binding: QrelsBinding | None, config: Config) -> Ref | None:
    """The base run asked for: the golden set's `compare_to:`, its `[[qrels]]` table's, the
    configuration's (the last two with no place in this file)."""
    if qrels.compare_to is not None:
        return qrels.compare_to
    name = (binding.compare_to if binding is not None else None) or config.compare_to
    return Ref(name, Span(0, 0)) if name else None


def _lexical(path: Path) -> Path | None:
    """``path`` made absolute without a look at the disk (None for a NUL byte)."""
    text = str(path)
    return None if "\0" in text else Path(os.path.abspath(text))
