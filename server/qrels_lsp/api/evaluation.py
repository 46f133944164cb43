"""``evaluate`` and ``compare``: ``qrels-lsp score`` and ``compare`` for Python, over the same
core (the project binds the golden set, ``core/metrics`` scores, ``core/compare`` compares)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from .bench import Bench, open_golden, score
from .results import Comparisons, Evaluation, rekeyed

if TYPE_CHECKING:
    from ..core.compare import Comparison
    from ..core.project.results import RunResult
    from .inputs import GoldenInput, RunInput


def evaluate(
    golden: GoldenInput,
    run: RunInput,
    metrics: Sequence[str] | None = None,
    k: int | None = None,
    *,
    relevance_level: int | None = None,
    name: str | None = None,
    preset: str | None = None,
) -> Evaluation:
    """Score ``run`` against ``golden``: per query and mean, keyed by ``metrics`` as written
    (``["recall@10", "nDCG@10"]``; any tool's spelling; default: the configuration's metrics,
    else recall, precision, nDCG, hit rate and judged at k, MRR and MAP).

    ``k`` is the cutoff of a metric written without one (``recall``) and of the defaults: the
    golden set's ``k:``, else the configuration's, else 10. ``relevance_level`` overrides the
    golden set's (trec_eval's ``-l``). ``preset`` names a known benchmark whose conventions
    apply (``"arguana"``: self-hits dropped; docs/presets.md), as a golden set's `preset:` does.
    The numbers are ``qrels-lsp score --format json``'s."""
    bench = open_golden(
        golden, k=k, relevance_level=relevance_level, metrics=metrics, preset=preset
    )
    return _evaluation(bench, score(bench, run, "run", name))


def _evaluation(bench: Bench, result: RunResult) -> Evaluation:
    ev = result.evaluation
    keys = bench.keys
    return Evaluation(
        run=result.name,
        k=bench.ctx.k,
        per_query={q: rekeyed(values, keys) for q, values in ev.per_query.items()},
        mean=rekeyed(ev.mean, keys),
        n_queries=ev.n_queries,
        missing=list(ev.missing),
        unknown=list(ev.unknown),
        unanswerable=list(ev.unanswerable),
    )


def compare(
    golden: GoldenInput,
    runs: Mapping[str, RunInput] | Sequence[RunInput],
    base: str | None = None,
    metrics: Sequence[str] | None = None,
    k: int | None = None,
    *,
    relevance_level: int | None = None,
    alpha: float | None = None,
    min_difference: float | None = None,
    preset: str | None = None,
) -> Comparisons:
    """Compare each run with ``base`` (a run's name; default: the golden set's ``compare_to``,
    else the first run), per metric: deltas, paired randomization and t tests with Holm's
    adjustment over the family, 95% bootstrap intervals, wins/ties/losses and how many questions
    would settle it (docs/compare.md). ``runs`` maps names to runs, or lists runs (named as
    `score` names files; in-memory runs ``run1``, ``run2``...). The runs compared are the ones
    given: unlike the command, no BM25 baseline or fused run is added."""
    from ..core.project.comparing import choose_base, compare_runs

    bench = open_golden(
        golden, k=k, relevance_level=relevance_level, metrics=metrics, preset=preset
    )
    results = _scored_runs(bench, runs)
    if len(results) < 2:
        raise ValueError("compare needs two runs or more")
    chosen = choose_base(bench.ctx, results, base)
    if chosen.problem is not None and base is not None:
        raise ValueError(chosen.problem)
    assert chosen.base is not None
    found = compare_runs(
        bench.ctx,
        results,
        chosen.base,
        metrics=list(dict.fromkeys(bench.keys.values())) if metrics is not None else None,
        alpha=alpha,
        min_difference=min_difference,
    )
    assert found is not None  # two runs or more, named apart
    back = {ours: given for given, ours in bench.keys.items()}
    items = [_given_name(c, back) for c in found.items]
    ordered = [chosen.base, *(r for r in results if r is not chosen.base)]
    return Comparisons(
        base=found.base,
        n_queries=found.n_queries,
        alpha=found.alpha,
        min_difference=found.min_difference,
        items=items,
        evaluations={r.name: _evaluation(bench, r) for r in ordered},
    )


def _scored_runs(
    bench: Bench, runs: Mapping[str, RunInput] | Sequence[RunInput]
) -> list[RunResult]:
    """Each run scored, named by its key (a mapping) or as a file is named; two runs of one
    name cannot be told apart in a comparison."""
    if isinstance(runs, Mapping):
        named = [(str(n), r) for n, r in runs.items()]
        results = [score(bench, r, f"<run {n}>", n) for n, r in named]
    else:
        results = [score(bench, r, f"run{i}") for i, r in enumerate(runs, start=1)]
    seen: set[str] = set()
    for r in results:
        if r.name in seen:
            raise ValueError(f"two runs are named {r.name!r}: pass a mapping of names to runs")
        seen.add(r.name)
    return results


def _given_name(c: Comparison, back: Mapping[str, str]) -> Comparison:
    return replace(c, metric=back.get(c.metric, c.metric))
