"""Every statistic of a comparison on degenerate deltas: finite in time, and a finite value or
None with a reason (docs/compare.md, "Undefined is said, never made up").

The vectors are the ones ordinary data makes: every delta equal, equal up to rounding (fourteen
drops of 0.1 computed as 0.3 - 0.2 and 0.7 - 0.6: a standard deviation of 1e-17, on which the
power search once looped forever), all zero, one or two questions, a NaN or an infinity, and
100,000 questions. Each call runs under a guard (``bounded``) that turns a loop into a failure
after GUARD seconds: a ceiling for a hang, not a speed claim (the calls take milliseconds).
"""

from __future__ import annotations

import math
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest
from compare_data import looping_case
from hypothesis import given, settings
from hypothesis import strategies as st
from qrels_lsp.core.compare import (
    bootstrap_ci,
    compare,
    detectable_difference,
    holm,
    questions_needed,
    randomization_p,
    ttest_p,
)
from qrels_lsp.core.compare import stats as S
from qrels_lsp.core.compare.results import (
    NO_QUESTIONS,
    NO_VARIANCE,
    NOT_FINITE,
    ONE_QUESTION,
    TOO_SMALL,
)

GUARD = 30  # seconds: a loop, not a slow machine, gets here
T = TypeVar("T")


@contextmanager
def bounded(seconds: int = GUARD) -> Iterator[None]:
    """Fail instead of hanging: SIGALRM interrupts a Python loop (scipy's calls return within
    microseconds, so the interpreter sees the signal at once)."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"a statistic ran past {seconds} s: an endless loop")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def guarded(f: Callable[[], T]) -> T:
    with bounded():
        return f()


# -- the vectors ---------------------------------------------------------------------------------

ROUNDED = [0.3 - 0.2, 0.7 - 0.6, 0.9 - 0.8, 0.5 - 0.4, 0.6 - 0.5, 0.8 - 0.7, 0.4 - 0.3]
"""Ten percentage points each, as subtraction of precision@10 values gives them: not equal."""


def drops_of_a_tenth(n: int) -> np.ndarray:
    return -np.array([ROUNDED[i % len(ROUNDED)] for i in range(n)])


sizes = st.integers(min_value=0, max_value=60)
values = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)


@st.composite
def degenerate(draw: st.DrawFn) -> np.ndarray:
    """A (C, n) family of deltas of one of the degenerate kinds."""
    n = draw(sizes)
    kind = draw(st.sampled_from(["equal", "rounded", "zero", "nonfinite", "two-values", "tiny"]))
    rows = []
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        if kind == "equal":
            row = np.full(n, draw(values))
        elif kind == "rounded":
            row = drops_of_a_tenth(n) * draw(st.sampled_from([1.0, -1.0, 0.5, 3.0]))
        elif kind == "zero":
            row = np.zeros(n)
        elif kind == "nonfinite":
            row = np.array([draw(values) for _ in range(n)])
            if n:
                row[draw(st.integers(0, n - 1))] = draw(
                    st.sampled_from([math.nan, math.inf, -math.inf])
                )
        elif kind == "two-values":
            a, b = draw(values), draw(values)
            row = np.array([a if i % 2 else b for i in range(n)])
        else:  # a spread a rounding error wide on top of a real difference
            row = np.full(n, draw(values)) + np.array(
                [draw(st.sampled_from([0.0, 1e-17, -1e-17, 2e-16])) for _ in range(n)]
            )
        rows.append(row)
    return np.vstack(rows) if rows else np.zeros((1, n))


def finite_or_nan(x: np.ndarray) -> bool:
    """Every value a number, or NaN where the statistic is undefined; never an infinity."""
    return bool(np.all(np.isfinite(x) | np.isnan(x)))


# -- each statistic alone ------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(degenerate())
def test_every_statistic_finishes_with_a_number_or_undefined(D: np.ndarray) -> None:
    finite = np.isfinite(D).all(axis=1)
    p = guarded(lambda: randomization_p(D, resamples=200))
    t = guarded(lambda: ttest_p(D))
    ci = guarded(lambda: bootstrap_ci(D, resamples=200))
    adjusted = guarded(lambda: holm(np.where(finite, p, np.nan)))
    assert np.all((p[finite] >= 0.0) & (p[finite] <= 1.0))
    assert finite_or_nan(t) and finite_or_nan(adjusted)
    assert np.all(np.isfinite(ci[finite]))
    assert np.isnan(p[~finite]).all() and np.isnan(ci[~finite]).all()  # undefined, not made up
    assert np.all(np.isnan(t[S.flat(D) | ~finite]))  # no p from a t made of rounding
    for row in D[finite]:
        if row.size >= 2:
            sd = float(row.std(ddof=1))
            for d in (0.05, 1e-300, float(abs(row.mean())), 1e300):
                needed = guarded(lambda sd=sd, d=d: questions_needed(sd, d))
                assert needed is None or 2 <= needed <= S.MAX_QUESTIONS
            shown = guarded(lambda sd=sd, n=row.size: detectable_difference(sd, n))
            assert shown is None or (math.isfinite(shown) and shown > 0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=0, max_size=40))
def test_questions_for_any_effect_size(effects: list[float]) -> None:
    """The power search's own input: any float at all, NaN and infinities among them."""
    found = guarded(lambda: S.questions_for(np.array(effects, dtype=np.float64)))
    for e, n in zip(effects, found, strict=True):
        if math.isfinite(e) and e != 0:
            assert n == math.inf or 2 <= n <= S.MAX_QUESTIONS
        else:
            assert math.isnan(n)


def test_the_drops_that_looped_forever() -> None:
    """Issue 30's case: 14 questions whose precision@10 each drops by 0.1."""
    D = drops_of_a_tenth(14)[None, :]
    assert D.std(ddof=1) > 0  # not equal in float64: the case exact equality missed
    sd = float(D.std(ddof=1))
    assert guarded(lambda: questions_needed(sd, 0.05)) == 2  # an effect of ~1e15 needs two
    assert guarded(lambda: S.questions_for(np.array([0.05 / sd])))[0] == 2
    assert np.isnan(ttest_p(D)).all()
    family = guarded(lambda: compare("base", _base(D), [("run", _run(D))], ["m"]))
    (c,) = family.items
    assert c.p_ttest is None and c.questions_needed is None and c.detectable_difference is None
    assert c.undefined == dict.fromkeys(
        ("p_ttest", "questions_needed", "detectable_difference"), NO_VARIANCE
    )
    assert c.p_randomization == pytest.approx(2.0 / 2**14)  # 14 equal signs: exact, defined
    assert c.significant and c.ci95 == pytest.approx((-0.1, -0.1), abs=1e-9)


def test_the_noncentral_t_never_answers_nan() -> None:
    """scipy's nctdtr answers NaN from a shift of a few dozen on (df 100, shift 38, x 2)."""
    df = np.array([1.0, 5.0, 13.0, 100.0, 1e4])
    for shift in (10.0, 38.0, 40.0, 50.0, 1e3, 1e16, 1e300):
        for x in (2.0, -2.0, 12.7):
            cdf = S._nct_cdf(df, np.full(df.shape, shift), x)
            assert np.all(np.isfinite(cdf)) and np.all((cdf >= 0) & (cdf <= 1))


# -- whole comparisons ---------------------------------------------------------------------------


def _base(D: np.ndarray) -> dict[str, dict[str, float]]:
    return {f"q{i}": {"m": 0.5} for i in range(D.shape[1])}


def _run(D: np.ndarray, row: int = 0) -> dict[str, dict[str, float]]:
    return {f"q{i}": {"m": 0.5 + float(d)} for i, d in enumerate(D[row])}


@settings(max_examples=60, deadline=None)
@given(degenerate(), st.sampled_from([None, 0.05, 1e-300]))
def test_compare_says_why_each_statistic_is_missing(
    D: np.ndarray, min_difference: float | None
) -> None:
    runs = [(f"r{c}", _run(D, c)) for c in range(D.shape[0])]
    family = guarded(
        lambda: compare("base", _base(D), runs, ["m"], resamples=200, min_difference=min_difference)
    )
    n = D.shape[1]
    for c, item in zip(range(D.shape[0]), family.items, strict=True):
        for name in ("ci95", "p_randomization", "p_ttest", "p_adjusted", "questions_needed"):
            value = getattr(item, name)
            assert (value is None) == (name in item.undefined), (name, item)
            if value is not None:
                assert all(math.isfinite(v) for v in np.ravel(value))
        if n == 0:
            assert item.undefined["p_randomization"] == NO_QUESTIONS
        elif not np.isfinite(D[c] + 0.5).all():
            assert item.undefined["p_adjusted"] == NOT_FINITE and not item.significant
        elif n == 1:
            assert item.undefined["p_ttest"] == ONE_QUESTION
        elif S.flat(D[c : c + 1])[0]:
            assert item.undefined["questions_needed"] == NO_VARIANCE
        if min_difference == 1e-300 and item.questions_needed is None and n >= 2:
            assert item.undefined["questions_needed"] in (TOO_SMALL, NO_VARIANCE, NOT_FINITE)


@pytest.mark.parametrize("kind", ["equal", "rounded", "mixed"])
def test_a_hundred_thousand_questions(kind: str) -> None:
    n = 100_000
    rng = np.random.default_rng(7)
    delta = {
        "equal": np.full(n, -0.1),
        "rounded": drops_of_a_tenth(n),
        "mixed": rng.choice([-0.2, 0.0, 0.1], size=n),
    }[kind]
    D = delta[None, :]
    family = guarded(lambda: compare("base", _base(D), [("run", _run(D))], ["m"], resamples=200))
    (c,) = family.items
    assert c.p_randomization is not None and 0 < c.p_randomization <= 1
    assert c.ci95 is not None and all(math.isfinite(v) for v in c.ci95)
    if kind == "mixed":
        assert c.p_ttest is not None and c.questions_needed is not None
    else:
        assert c.undefined["questions_needed"] == NO_VARIANCE


# -- the command line on the files that looped ----------------------------------------------------


@pytest.mark.parametrize("metric", ["precision@10", "rbp"])
def test_compare_and_gate_return_on_the_looping_files(tmp_path: Path, metric: str) -> None:
    golden, base, head = looping_case(tmp_path)
    cli = [sys.executable, "-m", "qrels_lsp.cli"]
    compared = subprocess.run(
        [*cli, "compare", golden.name, base.name, head.name, "--metrics", metric, "--format",
         "json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert compared.returncode == 0, compared.stderr
    gate = subprocess.run(
        [*cli, "gate", golden.name, "--base", base.name, "--head", head.name, "--metric", metric],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert gate.returncode == 1, gate.stdout + gate.stderr  # a drop on every question: fails
