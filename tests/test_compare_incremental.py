"""The Comparer (issue 15, item 5): after an edit that changes a few queries' values, it corrects
the last comparison's resampled sums instead of drawing them again, and must give exactly what a
fresh ``compare`` gives (``==`` on every field: the sums are exact, see stats.py)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from compare_data import METRICS, bm25, demoted, scored, shuffled
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.compare import Comparer, compare
from qrels_lsp.core.metrics.evaluate import Since

PerQuery = dict[str, Mapping[str, float]]
NAMES = ["a", "b"]
VALUES = st.sampled_from([0.0, 0.1, 0.25, 1 / 3, 0.5, 2 / 3, 0.7, 1.0]) | st.floats(0.0, 1.0)
RESAMPLES = 100  # a full block of 64 and a partial one: the bits of both are kept and read


def row(draw: st.DrawFn) -> dict[str, float]:
    return {m: draw(VALUES) for m in NAMES}


@st.composite
def families(draw: st.DrawFn) -> tuple[PerQuery, list[tuple[str, PerQuery]]]:
    n = draw(st.integers(21, 40))  # above 20: the randomization test samples
    qids = [f"q{i}" for i in draw(st.permutations(range(n)))]
    base = {q: row(draw) for q in qids}
    runs = [(f"run{r}", {q: row(draw) for q in qids}) for r in range(draw(st.integers(1, 3)))]
    return base, runs


@st.composite
def edit(
    draw: st.DrawFn, family: tuple[PerQuery, list[tuple[str, PerQuery]]]
) -> tuple[PerQuery, list[tuple[str, PerQuery]]]:
    """New mappings with a few queries' rows replaced (the other rows the very same objects, as
    the project makes them), a query dropped from a run or one added to it."""
    base, runs = family
    sources = [base, *(r for _, r in runs)]
    qids = list(base)
    for _ in range(draw(st.integers(1, 3))):
        s = draw(st.integers(0, len(sources) - 1))
        q = draw(st.sampled_from(qids))
        new = dict(sources[s])
        kind = draw(
            st.sampled_from(["values", "same values", "drop", "extra"] if s else ["values"])
        )
        if kind == "values":
            new[q] = row(draw)
        elif kind == "same values":  # a new row object, equal to the old one
            new[q] = dict(new.get(q, dict.fromkeys(NAMES, 0.0)))
        elif kind == "drop":  # missing from the run: counts 0
            new.pop(q, None)
        else:  # only in the run: ignored
            new[f"extra{draw(st.integers(0, 5))}"] = row(draw)
        sources[s] = new
    return sources[0], [(name, sources[i + 1]) for i, (name, _) in enumerate(runs)]


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_corrections_equal_a_fresh_comparison(data: st.DataObject) -> None:
    family = data.draw(families())
    comparer = Comparer()
    steps = data.draw(st.integers(1, 4))
    min_difference = data.draw(st.sampled_from([0.05, None]))
    for _ in range(steps + 1):
        base, runs = family
        ours = comparer.compare(
            "base", base, runs, NAMES, resamples=RESAMPLES, min_difference=min_difference
        )
        assert ours == compare(
            "base", base, runs, NAMES, resamples=RESAMPLES, min_difference=min_difference
        )
        family = data.draw(edit(family))
    assert comparer.recomputed == 1  # every later comparison was a correction
    assert comparer.corrected == steps


@settings(max_examples=examples(60), deadline=None)
@given(st.data())
def test_corrections_told_what_changed_equal_a_fresh_comparison(data: st.DataObject) -> None:
    """A table said (``Since``) to be the last one with a few rows replaced is read at those rows
    only: the comparison is still the fresh one, also when only some tables say so, or when one
    says so of a table the comparer never saw (then it is read whole)."""
    base, runs = data.draw(families())
    comparer = Comparer()
    sources = [base, *(r for _, r in runs)]
    since: list[Since | None] = [None] * len(sources)
    for _ in range(data.draw(st.integers(1, 4)) + 1):
        named = [(name, sources[i + 1]) for i, (name, _) in enumerate(runs)]
        ours = comparer.compare("base", sources[0], named, NAMES, resamples=RESAMPLES, since=since)
        assert ours == compare("base", sources[0], named, NAMES, resamples=RESAMPLES)
        edited: dict[int, set[str]] = {}
        for _ in range(data.draw(st.integers(1, 3))):  # as `edit` does: a few rows in all
            edited.setdefault(data.draw(st.integers(0, len(sources) - 1)), set()).add(
                data.draw(st.sampled_from(list(base)))
            )
        since = [None] * len(sources)
        for i, keys in edited.items():
            old, new = sources[i], dict(sources[i])
            for q in keys:
                new[q] = row(data.draw) if data.draw(st.booleans()) else dict(new[q])
            said = data.draw(st.sampled_from(["told", "not told", "told of another"]))
            if said != "not told":
                since[i] = Since(old if said == "told" else dict(old), frozenset(keys))
            sources[i] = new
    assert comparer.recomputed == 1


def test_corrections_on_real_runs() -> None:
    base = scored(bm25()).per_query
    runs = [("demoted", scored(demoted()).per_query), ("shuffled", scored(shuffled()).per_query)]
    comparer = Comparer()
    first = comparer.compare("bm25", base, runs, METRICS, resamples=500)
    assert first == compare("bm25", base, runs, METRICS, resamples=500)
    last = first
    # A judgment edit re-scores that query in every run; the same query twice in a row too.
    for qid, value in [("1", 1.0), ("17", 0.0), ("17", 1.0), ("93", 0.5)]:
        base = {**base, qid: dict.fromkeys(METRICS, value)}
        runs = [(name, {**r, qid: {m: v / 3 for m, v in r[qid].items()}}) for name, r in runs]
        ours = comparer.compare("bm25", base, runs, METRICS, resamples=500)
        assert ours == compare("bm25", base, runs, METRICS, resamples=500)
        moved = [
            a.p_randomization != b.p_randomization
            for a, b in zip(ours.items, last.items, strict=True)
        ]
        assert any(moved)  # the edit is felt by the randomization test, not only by the means
        last = ours
    assert (comparer.recomputed, comparer.corrected) == (1, 4)


@pytest.mark.parametrize("change", ["queries", "order", "runs", "metrics", "resamples", "many"])
def test_other_changes_recompute(change: str) -> None:
    base, run = scored(bm25()).per_query, scored(demoted()).per_query
    runs = [("demoted", run)]
    comparer = Comparer()
    comparer.compare("bm25", base, runs, METRICS, resamples=300)
    metrics, resamples = METRICS, 300
    if change == "queries":
        base = {q: v for q, v in base.items() if q != "5"}
    elif change == "order":
        base = dict(reversed(base.items()))
    elif change == "runs":
        runs = [*runs, ("copy", dict(base))]
    elif change == "metrics":
        metrics = METRICS[:2]
    elif change == "resamples":
        resamples = 400
    else:  # more than a quarter of the queries
        run = {q: {m: 1.0 - v for m, v in r.items()} for q, r in run.items()}
        runs = [("demoted", run)]
    ours = comparer.compare("bm25", base, runs, metrics, resamples=resamples)
    assert ours == compare("bm25", base, runs, metrics, resamples=resamples)
    assert comparer.recomputed == 2


def test_alpha_and_min_difference_change_without_recomputing() -> None:
    base, run = scored(bm25()).per_query, scored(demoted()).per_query
    comparer = Comparer()
    comparer.compare("bm25", base, [("d", run)], METRICS, resamples=300)
    ours = comparer.compare(
        "bm25", base, [("d", run)], METRICS, resamples=300, alpha=1e-6, min_difference=0.2
    )
    assert ours == compare(
        "bm25", base, [("d", run)], METRICS, resamples=300, alpha=1e-6, min_difference=0.2
    )
    assert (comparer.recomputed, comparer.corrected) == (1, 1)


def test_small_query_sets_are_recomputed_and_equal() -> None:
    """Up to 20 queries the randomization test is exact: nothing is kept, all is recomputed."""
    base, run = scored(bm25()).per_query, scored(demoted()).per_query
    base = dict(list(base.items())[:15])
    comparer = Comparer()
    for value in (0.0, 0.5, 1.0):
        base = {**base, "2": dict.fromkeys(METRICS, value)}
        ours = comparer.compare("bm25", base, [("d", run)], METRICS, resamples=200)
        assert ours == compare("bm25", base, [("d", run)], METRICS, resamples=200)
    assert comparer.corrected == 0


def test_a_comparison_that_pauses_between_chunks_is_the_same_comparison() -> None:
    """The editor's reports thread passes a pause (it steps aside while a keystroke is
    answered) into a fresh resampling: the numbers do not change, and it is called."""
    base = scored(bm25()).per_query
    runs = [("demoted", scored(demoted()).per_query), ("shuffled", scored(shuffled()).per_query)]
    paused: list[None] = []
    ours = Comparer().compare(
        "bm25", base, runs, METRICS, resamples=5_000, pause=lambda: paused.append(None)
    )
    assert ours == compare("bm25", base, runs, METRICS, resamples=5_000)
    assert paused
