"""Known benchmarks' conventions (docs/presets.md): what relevant means, whether a document
whose id is the query's own is dropped from the runs before scoring, and the cutoff the
benchmark reports. A golden set or qrels file takes a preset by name (`preset:` in a golden
set, `preset =` in its `[[qrels]]` table or the configuration) or from the folder of a BEIR
dataset (``arguana/qrels/test.tsv``); ``preset: none`` takes none.

What a preset sets is a default: a value the golden set (or its `[[qrels]]` table) writes itself
wins, and QR140 says where it differs from the benchmark's. Self-hits are dropped in one place,
:func:`without_self` (through :class:`Selfless`, which keeps the lists it made between
analyses), where the project scores a run's rankings (``Scoring.ranked``): every run read,
streamed, fused or built (the BM25 baseline), so the lenses, hover, the report, the judging queue, the
command line and the API all see the same rankings.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .base.findings import Finding, Fix, Severity, TextEdit, declare, finding
from .base.text import Span
from .model import Qrels, Ref, Run

QR140 = declare(
    "QR140",
    "benchmark-preset",
    Severity.INFO,
    "golden set, TREC/BEIR qrels",
    "A known benchmark's conventions apply (relevance level, self-hits dropped, cutoff): said when they were inferred from the dataset's folder, or where the file's own value differs from the benchmark's.",
)
QR141 = declare(
    "QR141",
    "unknown-preset",
    Severity.WARNING,
    "golden set",
    "`preset:` names no known benchmark: none applies (the known ones are listed, the closest as a fix).",
)
QR142 = declare(
    "QR142",
    "self-hits-dropped",
    Severity.INFO,
    "run",
    "The run retrieves documents whose id is the query's own, which its benchmark's preset drops before scoring (as BEIR's evaluation does).",
)

NONE = "none"  # `preset: none`: no preset, not even one the folder implies


@dataclass(frozen=True, slots=True)
class Preset:
    """A benchmark's evaluation conventions, and where they are written."""

    name: str
    title: str
    relevance_level: int
    ignore_self: bool  # drop a retrieved document whose id is the query's
    k: int  # the cutoff its results are reported at
    folders: tuple[str, ...]  # dataset folder names that mean it (compared without case)
    source: str  # where the convention comes from (docs/presets.md cites it in full)


_BEIR = "BEIR's evaluation drops them (EvaluateRetrieval.evaluate, ignore_identical_ids=True)"
_DL = "the TREC Deep Learning track overview: passage judgments of 1 are not relevant"

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("arguana", "BEIR ArguAna", 1, True, 10, ("arguana",), _BEIR),
        Preset("quora", "BEIR Quora", 1, True, 10, ("quora",), _BEIR),
        Preset("msmarco", "MS MARCO passage (dev)", 1, False, 10, ("msmarco",), "MRR@10"),
        Preset("trec-dl-2019", "TREC DL 2019 passage", 2, False, 10, ("trec-dl-2019", "dl19"), _DL),
        Preset("trec-dl-2020", "TREC DL 2020 passage", 2, False, 10, ("trec-dl-2020", "dl20"), _DL),
    )
}


@dataclass(frozen=True, slots=True)
class Chosen:
    """The preset in force for a golden set, and how it was chosen: ``key`` (the golden set's
    `preset:`, at ``span``), ``table`` (its `[[qrels]]` table), ``config`` or ``folder``."""

    preset: Preset
    origin: str
    span: Span | None = None
    folder: str | None = None


def folder_preset(path: Path, levels: int = 3) -> tuple[Preset, str] | None:
    """The preset a qrels file's folders name (``arguana/qrels/test.tsv``, ``dl19/qrels.txt``):
    the nearest of the ``levels`` folders above it whose name is a preset's."""
    for folder in list(path.parents)[:levels]:
        name = folder.name.casefold()
        for preset in PRESETS.values():
            if name in preset.folders:
                return preset, folder.name
    return None


def choose(
    written: tuple[str, Span] | None,
    table: str | None,
    config: str | None,
    path: Path,
    by_folder: bool,
) -> Chosen | None:
    """The preset in force: the golden set's own `preset:`, else its `[[qrels]]` table's, else
    the configuration's, else (``by_folder``: a TREC/BEIR file) its folder's. An unknown name
    chooses none (QR141 says so where the golden set writes it)."""
    for name, origin in (
        (written[0] if written else None, "key"),
        (table, "table"),
        (config, "config"),
    ):
        if name is not None:
            found = PRESETS.get(name.strip().casefold())
            return (
                Chosen(found, origin, written[1] if written and origin == "key" else None)
                if found
                else None
            )
    if by_folder:
        hit = folder_preset(path)
        if hit is not None:
            return Chosen(hit[0], "folder", folder=hit[1])
    return None


def conventions(preset: Preset) -> str:
    """What the preset does, in a sentence's words."""
    parts = [f"relevance level {preset.relevance_level}", f"k {preset.k}"]
    if preset.ignore_self:
        parts.append("a document whose id is the query's is dropped from the runs")
    return ", ".join(parts)


def findings(
    chosen: Chosen | None,
    written: tuple[str, Span] | None,
    own: Mapping[str, tuple[int, Span]],
) -> list[Finding]:
    """QR141 for a `preset:` naming no benchmark; QR140 when the preset was inferred from the
    folder, and where the golden set's own ``relevance_level`` or ``k`` (value, span) differs
    from the preset's (with a fix writing the preset's value)."""
    out: list[Finding] = []
    if written is not None and written[0].strip().casefold() not in (*PRESETS, NONE):
        known = ", ".join(PRESETS)
        out.append(
            finding(QR141, written[1], f"`{written[0]}` is no known benchmark (known: {known}, or none): no preset applies.",
                    fixes=tuple(_replace(written[1], n, f"Use `{n}`") for n in _closest(written[0], PRESETS)))
        )  # fmt: skip
    if chosen is None:
        return out
    preset = chosen.preset
    if chosen.origin == "folder":
        out.append(
            finding(QR140, Span(0, 0), f"Read as {preset.title} (its folder `{chosen.folder}`): {conventions(preset)} ({preset.source}). Name it with `preset = \"{preset.name}\"` in its [[qrels]] table, or `\"none\"` to score it plainly.")
        )  # fmt: skip
    wants = {"relevance_level": preset.relevance_level, "k": preset.k}
    for key, (value, span) in own.items():
        if key in wants and value != wants[key]:
            out.append(
                finding(QR140, span, f"`{key}: {value}` differs from {preset.title}'s {wants[key]} ({preset.source}); this file's value is used.",
                        fixes=(_replace(span, str(wants[key]), f"Use {preset.title}'s {key}: {wants[key]}"),))
            )  # fmt: skip
    return out


def self_hits(rankings: Mapping[str, Sequence[str]]) -> list[str]:
    """The queries whose ranking holds a document with the query's own id."""
    return [qid for qid, docs in rankings.items() if qid in docs]


def self_hit_finding(preset: Preset, queries: list[str], span: Span) -> Finding:
    n = len(queries)
    shown = ", ".join(queries[:5]) + (" ..." if n > 5 else "")
    return finding(
        QR142,
        span,
        f"{n:,} quer{'y retrieves' if n == 1 else 'ies retrieve'} a document whose id is the "
        f"query's own ({shown}): {preset.title}'s preset drops them before scoring ({preset.source}).",
    )


def _replace(span: Span, text: str, title: str) -> Fix:
    return Fix(title, (TextEdit(span, text),))


def _closest(name: str, known: Iterable[str]) -> list[str]:
    from difflib import get_close_matches

    return get_close_matches(name.strip().casefold(), list(known), n=2, cutoff=0.5)


def golden_findings(
    chosen: Chosen | None, written: Ref | None, qrels_values: Qrels
) -> list[Finding]:
    """:func:`findings` for a golden set's model: its `preset:` and its own level and k."""
    own = {
        key: (value, span)
        for key, value, span in (
            ("relevance_level", qrels_values.relevance_level, qrels_values.level_span),
            ("k", qrels_values.k, qrels_values.k_span),
        )
        if value is not None and span is not None
    }
    return findings(chosen, (written.value, written.span) if written else None, own)


def run_findings(chosen: Chosen | None, run: Run) -> list[Finding]:
    """QR142 on a run whose preset drops self-hits and that has some, at the first query's."""
    if chosen is None or not chosen.preset.ignore_self:
        return []
    queries = self_hits(run.ranked_ids())
    if not queries:
        return []
    return [self_hit_finding(chosen.preset, queries, run.rankings[queries[0]].span)]


def preset_of(path: Path, kind: str, qrels: Qrels, binding: Any, config: Any) -> Chosen | None:
    """The preset in force for the golden set ``qrels`` at ``path`` (:func:`choose`), from
    its `preset:`, its `[[qrels]]` table (``binding``), the configuration, or its folder."""
    written = (qrels.preset.value, qrels.preset.span) if qrels.preset is not None else None
    table = binding.preset if binding is not None else None
    return choose(written, table, config.preset, path, by_folder=kind != "golden")


def without_self(qid: str, ranking: list[str]) -> list[str]:
    """``ranking`` without the document whose id is ``qid`` (the same list when it has none)."""
    return ranking if qid not in ranking else [d for d in ranking if d != qid]


class Selfless:
    """A run's rankings without self-hits, kept between analyses: the same source lists give the
    same lists (the score caches compare rankings by identity), so an edit of one question does
    not re-score the others."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[Mapping[str, list[str]], dict[str, list[str]]] | None = None

    def of(self, rankings: Mapping[str, list[str]]) -> dict[str, list[str]]:
        last = self._last
        if last is not None and last[0] is rankings:
            return last[1]
        before, made = last if last is not None else ({}, {})
        out = {
            qid: made[qid] if before.get(qid) is ranking else without_self(qid, ranking)
            for qid, ranking in rankings.items()
        }
        self._last = (rankings, out)
        return out


def self_hits_dropped(chosen: Chosen | None) -> bool:
    return chosen is not None and chosen.preset.ignore_self
