"""A golden set's fused runs: which of its runs each declared fusion names, what is wrong with
a fusion (each a finding in the golden set, where the fusion is written), and the fused runs.

The fusion itself is :mod:`..fusion`'s; this module knows the project's words for runs (a run
is named as lenses and `compare_to` name it: a run YAML's `name:`, a file's name without its
suffix, `bm25` for the BM25 baseline, or an earlier fusion's name) and what each run can give a
fusion (its rankings in trec_eval's order after any chunk mapping, and its scores).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..base.findings import Finding, Fix, Severity, TextEdit, declare, finding
from ..base.text import Span
from ..fusion import METHODS, Fusion
from ..model import Ref
from .comparing import BASELINE_ALIASES, find_run

if TYPE_CHECKING:
    from .results import QrelsContext, RunResult

QR116 = declare(
    "QR116",
    "fusion-unknown-run",
    Severity.ERROR,
    "golden set",
    "A fusion names a run this golden set does not have (the closest names are offered): the fused run is not made.",
)
QR117 = declare(
    "QR117",
    "fusion-needs-scores",
    Severity.ERROR,
    "golden set",
    "A score fusion (combsum, combmnz, wsum) of a run without scores (a run YAML's lists, an MS MARCO run): use rrf, or give the scores.",
)
QR118 = declare(
    "QR118",
    "fusion-parameters",
    Severity.ERROR,
    "golden set",
    "A fusion's weights do not match its runs (an error), or it sets a parameter its method does not use (a warning).",
)
QR119 = declare(
    "QR119",
    "fusion-name-taken",
    Severity.ERROR,
    "golden set",
    "A fusion's name is already another run's: the fused run is not made.",
)

HasScores = Callable[["RunResult"], bool]


@dataclass(frozen=True, slots=True)
class Resolved:
    """A fusion with the runs it names (None when it cannot be made) and its findings."""

    fusion: Fusion
    inputs: tuple[RunResult, ...] | None
    findings: tuple[Finding, ...]
    waiting: bool = False  # it names the BM25 baseline, whose index is not built yet


def resolve(
    ctx: QrelsContext,
    fusion: Fusion,
    pool: Sequence[RunResult],
    has_scores: HasScores,
    baseline: Callable[[], RunResult | None],
    loading: Sequence[RunResult] = (),
) -> Resolved:
    """The runs ``fusion`` names among ``pool`` (the golden set's runs that could be scored,
    with the BM25 baseline when it is shown, and the fused runs declared before it), or the BM25
    baseline (``baseline()``, asked for only when it is named), and what is wrong with it."""
    found: list[Finding] = []
    named: list[tuple[Ref, RunResult]] = []
    waiting = False
    for ref in fusion.runs:
        hit = find_run(pool, ref.value)
        if (hit is None or hit.baseline) and find_run(loading, ref.value) is not None:
            waiting = True  # a run file still being read (`bm25.trec` before the baseline)
            continue
        if hit is None and ref.value.strip().casefold() in BASELINE_ALIASES:
            hit = baseline()
            if hit is None and ctx.corpus_path is not None:
                waiting = True  # named, and there will be one once the index is built
                continue
        if hit is None:
            found.append(_unknown(fusion, ref, pool, ctx))
        else:
            named.append((ref, hit))
    if find_run(pool, fusion.name) is not None or (
        fusion.name.strip().casefold() in BASELINE_ALIASES and ctx.corpus_path is not None
    ):  # as the runs are looked up by name: `BM25`, `bm25` and `dense.trec` are taken
        found.append(_taken(fusion, pool))
    if METHODS[fusion.method].needs_scores:
        found += [_no_scores(fusion, r, ref) for ref, r in named if not has_scores(r)]
    found += _parameters(fusion)
    broken = any(f.severity == Severity.ERROR for f in found)
    inputs = None if broken or waiting else tuple(r for _, r in named)
    return Resolved(fusion, inputs, tuple(found), waiting)


def _where(fusion: Fusion, span: Span) -> tuple[Span, str]:
    """Where a fusion's finding goes and how it names the fusion: at ``span`` in the golden set
    when declared there; at the top of the file, naming the configuration, when declared there."""
    if fusion.origin is None:
        return span, f"Fusion `{fusion.name}`"
    return Span(0, 0), f"Fusion `{fusion.name}` ({fusion.origin})"


def _unknown(fusion: Fusion, ref: Ref, pool: Sequence[RunResult], ctx: QrelsContext) -> Finding:
    names = [r.name for r in pool if not r.baseline] + (
        ["bm25"] if any(r.baseline for r in pool) else []
    )
    close = difflib.get_close_matches(ref.value, names, n=3, cutoff=0.4)
    span, who = _where(fusion, ref.span)
    fixes: tuple[Fix, ...] = ()
    if fusion.origin is None:
        fixes = tuple(
            Fix(f"Replace with `{c}`", (TextEdit(ref.span, c),), preferred=i == 0)
            for i, c in enumerate(close)
        )
    known = ", ".join(f"`{n}`" for n in names) or "none"
    hint = f" Did you mean `{close[0]}`?" if close else ""
    baseline = "" if ctx.corpus_path is not None else "; `bm25` needs a corpus"
    message = f"{who} names `{ref.value}`, which is no run of this golden set (runs: {known}{baseline}).{hint}"
    return finding(QR116, span, message, fixes=fixes)


def _taken(fusion: Fusion, pool: Sequence[RunResult]) -> Finding:
    span, who = _where(fusion, fusion.name_span)
    other = find_run(pool, fusion.name)
    where = (
        f" ({other.path.name})"
        if other is not None and other.fusion is None and not other.baseline
        else ""
    )
    return finding(
        QR119,
        span,
        f"{who}: `{fusion.name}` is already the name of a run of this golden set{where}; give the fused run a name of its own.",
    )


def _no_scores(fusion: Fusion, run: RunResult, ref: Ref) -> Finding:
    span, who = _where(fusion, ref.span)
    return finding(
        QR117,
        span,
        f"{who}: {fusion.method} adds the runs' scores, and `{run.name}` has none for some or all "
        "of its queries (a run YAML's lists, an MS MARCO run). Use `method: rrf`, which needs "
        "ranks only, or give its results as `id: score` mappings.",
    )


def _parameters(fusion: Fusion) -> list[Finding]:
    out: list[Finding] = []
    method = METHODS[fusion.method]
    if fusion.method == "wsum":
        span, who = _where(fusion, fusion.weights_span or fusion.span)
        if fusion.weights is None:
            out.append(
                finding(
                    QR118, span, f"{who}: wsum needs `weights`, one per run ({len(fusion.runs)})."
                )
            )
        elif len(fusion.weights) != len(fusion.runs):
            out.append(
                finding(
                    QR118,
                    span,
                    f"{who}: {len(fusion.weights)} weight(s) for {len(fusion.runs)} runs; give one weight per run, in the order of `runs`.",
                )
            )
    ignored = sorted(fusion.given & {"k", "weights", "norm"} - method.takes)
    if ignored:
        span, who = _where(fusion, fusion.span)
        keys = ", ".join(f"`{k}`" for k in ignored)
        uses = "ranks, not scores" if fusion.method == "rrf" else "no `k` or `weights`"
        out.append(
            finding(
                QR118,
                span,
                f"{who}: {fusion.method} uses {uses}, so {keys} {'is' if len(ignored) == 1 else 'are'} ignored.",
                severity=Severity.WARNING,
            )
        )
    return out
