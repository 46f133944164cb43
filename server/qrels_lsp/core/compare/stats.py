"""The statistics of a comparison (docs/compare.md), vectorised over a family of comparisons.

A family is a matrix ``D`` of per-query deltas (run - base), one row per comparison, one column
per query, all over the same ``n`` queries. Every comparison in a family shares the same random
sign vectors and the same bootstrap resamples, so the whole family is two matrix products.

Exact sums. The resampling statistics are sums of deltas taken with signs or with bootstrap
counts. They are computed on the deltas put on a grid of ``2**-e`` (``e >= 38`` up to 10,000
queries of values in [-1, 1]; rounding moves a mean by at most ``2**-(e+1)``), chosen so that
every partial sum is an integer below ``2**53``: float64 adds such numbers exactly, in any order.
So the BLAS of the machine, its threads and its summation order cannot change a count near a
tie, the same files give the same p-values and intervals everywhere, and a sum kept between
edits and corrected for one query (``Resamples``) is the very number a fresh computation gives.

The t and noncentral t distributions come from ``scipy.special`` (the functions behind
``scipy.stats.t`` and ``scipy.stats.nct``), imported inside the functions that need them: the
server imports it on its first comparison, and ``scipy.stats`` would cost it 0.4 s more and
about 50 MB more memory for the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

SEED = 20_151_015  # every resample of every comparison derives from this one number
EXACT_MAX = 20  # up to this many queries the randomization test enumerates every sign vector
TOLERANCE = 1e-12  # a resampled |mean| this close below the observed one still counts as >=
_BLOCK = 64  # rows drawn from one generator: the stream does not depend on memory or chunking
_CHUNK_BYTES = 16 << 20  # a float64 matrix of resampled rows is at most this big at a time
_EXACT_CHUNK = 1 << 15  # sign vectors enumerated per matrix product in the exact test
_SIGNS, _BOOT = 0, 1  # the two streams of random numbers
EQUAL = 1e-12  # deltas whose spread is below this (relative to their size) are all the same
STEPS = 1_000  # the most steps a search for a number of questions takes: never an endless loop
MAX_QUESTIONS = 1e15  # past this many questions, "questions needed" says: too small to detect


# -- the grid ------------------------------------------------------------------------------------


def grid(D: Array) -> tuple[Array, Array]:
    """The deltas as integers (in float64) and each row's scale: ``Q = rint(D * scale)``.

    The scale is a power of two per row such that ``n * max|Q|`` is at most ``2**52``: any sum of
    the row's values with signs, or with bootstrap counts (which add up to ``n``), is an exact
    integer. Values within [-1, 1] (every ranking metric's deltas) always get the same scale for a
    given ``n``, so an edit never changes it. A row holding a NaN or an infinity is all zeros on
    the grid: no statistic of it is shown (``finite_rows``), and the others must not see it.
    """
    C, n = D.shape
    finite = finite_rows(D) if n else np.ones(C, dtype=bool)
    if not finite.all():
        D = np.where(finite[:, None], D, 0.0)
    top = np.zeros(C)
    if n:
        biggest = np.max(np.abs(D), axis=1)
        above = biggest > 1.0
        top[above] = np.ceil(np.log2(biggest[above]))
    exponent = 52 - math.ceil(math.log2(max(n, 1))) - top
    scale = np.ldexp(1.0, exponent.astype(np.int64))
    return np.rint(D * scale[:, None]), scale


def _tolerance(Q: Array, scale: Array) -> Array:
    """The observed |sum| less TOLERANCE (on the mean) in grid units: the bar a resample meets."""
    n = Q.shape[1]
    bar: Array = np.abs(Q.sum(axis=1)) - TOLERANCE * n * scale
    return bar


# -- the random streams --------------------------------------------------------------------------


def _blocks(resamples: int) -> Iterator[tuple[int, int, int]]:
    """(block index, first row, rows) for every block of _BLOCK resampled rows."""
    for k, start in enumerate(range(0, resamples, _BLOCK)):
        yield k, start, min(_BLOCK, resamples - start)


def _rng(seed: int, stream: int, n: int, block: int) -> np.random.Generator:
    return np.random.default_rng([seed, stream, n, block])


def _sign_bytes(seed: int, n: int, block: int, rows: int) -> npt.NDArray[np.uint8]:
    """A block of random sign vectors, (rows, ceil(n/8)) bytes: bit j of a row (most significant
    first, as ``np.unpackbits`` reads) is 1 where query j's delta is flipped."""
    return _rng(seed, _SIGNS, n, block).integers(0, 256, size=(rows, -(-n // 8)), dtype=np.uint8)


def _counts(seed: int, n: int, block: int, rows: int) -> npt.NDArray[np.int64]:
    """A block of bootstrap resamples as counts: how often each query was drawn, (rows, n)."""
    small = n <= 1 << 16  # 16-bit draws take half the time of 64-bit ones
    drawn = _rng(seed, _BOOT, n, block).integers(
        0, n, size=(rows, n), dtype=np.uint16 if small else np.int64
    )
    where = drawn + (np.arange(rows, dtype=np.int64) * n)[:, None]
    return np.bincount(where.ravel(), minlength=rows * n).reshape(rows, n)


def _chunks(n: int, resamples: int) -> Iterator[list[tuple[int, int, int]]]:
    """Blocks grouped so that a chunk's float64 matrix stays within _CHUNK_BYTES."""
    per_chunk = max(1, _CHUNK_BYTES // (8 * max(n, 1) * _BLOCK))
    group: list[tuple[int, int, int]] = []
    for block in _blocks(resamples):
        group.append(block)
        if len(group) == per_chunk:
            yield group
            group = []
    if group:
        yield group


NIBBLE = 15
"""The largest count two queries can share a byte with: a query drawn 16 times in one resample of
n >= 16 (a Poisson(1) tail of about 1e-14 per cell) switches the counts to a byte or more each."""


@dataclass(slots=True)
class Resamples:
    """The random sign vectors and bootstrap counts of a family, kept to correct its sums.

    Both as drawn, one row per resample: ``signs`` the sign bits, (B, ceil(n/8)) bytes;
    ``counts`` how often each query was drawn, two queries a byte while every count fits in four
    bits (``packed``: query 2j in the low half of byte j, 2j + 1 in the high half), else (B, n)
    as uint8 or uint16. At n = B = 10,000: 12.5 MB and 50 MB. A query's column is read with a
    stride, O(B).
    """

    n: int
    signs: npt.NDArray[np.uint8]
    counts: npt.NDArray[np.unsignedinteger]
    packed: bool = True

    @classmethod
    def empty(cls, n: int, resamples: int) -> Resamples:
        return cls(
            n,
            np.zeros((resamples, -(-n // 8)), dtype=np.uint8),
            np.zeros((resamples, -(-n // 2)), dtype=np.uint8),
        )

    def keep(self, start: int, signs: npt.NDArray[np.uint8], counts: npt.NDArray[np.int64]) -> None:
        rows = signs.shape[0]
        self.signs[start : start + rows] = signs
        top = counts.max(initial=0)
        if self.packed and top > NIBBLE:
            self.counts, self.packed = self._unpacked(), False
        if self.packed:
            low, high = counts[:, 0::2], counts[:, 1::2]
            packed = low.astype(np.uint8)
            packed[:, : high.shape[1]] |= high.astype(np.uint8) << 4
            self.counts[start : start + rows] = packed
            return
        if top > np.iinfo(self.counts.dtype).max:
            self.counts = self.counts.astype(np.uint16)
        self.counts[start : start + rows] = counts

    def _unpacked(self) -> npt.NDArray[np.unsignedinteger]:
        full = np.empty((self.counts.shape[0], self.n), dtype=np.uint8)
        full[:, 0::2] = self.counts & NIBBLE
        full[:, 1::2] = (self.counts >> 4)[:, : self.n // 2]
        return full

    def sign_columns(self, queries: npt.NDArray[np.intp]) -> Array:
        """The ±1 signs of these queries in every resample, (len(queries), B)."""
        shift = (7 - (queries & 7)).astype(np.uint8)
        bits = (self.signs[:, queries >> 3] >> shift) & 1  # (B, len(queries))
        signs: Array = 1.0 - 2.0 * bits.T.astype(np.float64)
        return signs

    def count_columns(self, queries: npt.NDArray[np.intp]) -> Array:
        """How often these queries were drawn in every resample, (len(queries), B)."""
        if not self.packed:
            whole: Array = self.counts[:, queries].T.astype(np.float64)
            return whole
        shift = ((queries & 1) * 4).astype(np.uint8)
        halves = (self.counts[:, queries >> 1] >> shift) & NIBBLE
        counts: Array = halves.T.astype(np.float64)
        return counts


def resampled_sums(
    Q: Array,
    resamples: int,
    seed: int = SEED,
    keep: Resamples | None = None,
    pause: Callable[[], object] | None = None,
) -> tuple[Array, Array]:
    """Each comparison's sum of grid deltas under every random sign vector (S) and under every
    bootstrap resample (T), both (C, B); ``keep`` receives the signs and counts drawn;
    ``pause`` is called between chunks (the editor's: step aside while a keystroke is
    answered)."""
    C, n = Q.shape
    S = np.zeros((C, resamples))
    T = np.zeros((C, resamples))
    if n == 0:  # no query: every sum is empty
        return S, T
    for group in _chunks(n, resamples):
        if pause is not None:
            pause()
        first = group[0][1]
        last = group[-1][1] + group[-1][2]
        drawn = np.concatenate([_sign_bytes(seed, n, k, rows) for k, _, rows in group])
        bits = np.unpackbits(drawn, axis=1, count=n)
        counts = np.concatenate([_counts(seed, n, k, rows) for k, _, rows in group])
        # sum(s * q) with s = 1 - 2 * bit is sum(q) - 2 * (bits @ q): exact, and no temporary.
        # np.dot, not `@`: numpy's matmul holds the interpreter lock through the product (a
        # keystroke's analysis on another thread ran 12-17x slower beside it), np.dot lets go
        # of it around BLAS; on the grid both are the same exact integers.
        S[:, first:last] = Q.sum(axis=1)[:, None] - 2.0 * np.dot(Q, bits.T.astype(np.float64))
        T[:, first:last] = np.dot(Q, counts.T.astype(np.float64))
        if keep is not None:
            keep.keep(first, drawn, counts)
    return S, T


# -- the randomization test ----------------------------------------------------------------------


def exact_p(Q: Array, scale: Array) -> Array:
    """Two-sided sign-flip p over all 2**n sign vectors. A vector and its opposite give the same
    |sum|, so the half with the last query's sign fixed is enumerated and the count is the same
    fraction."""
    C, n = Q.shape
    if n == 0:
        return np.ones(C)
    bar = _tolerance(Q, scale)
    half = 1 << (n - 1)
    count = np.zeros(C, dtype=np.int64)
    shifts = np.arange(n - 1)
    for start in range(0, half, _EXACT_CHUNK):
        codes = np.arange(start, min(half, start + _EXACT_CHUNK))
        signs = np.ones((codes.size, n))
        signs[:, : n - 1] -= 2.0 * ((codes[:, None] >> shifts) & 1)
        count += np.sum(np.abs(np.dot(signs, Q.T)) >= bar, axis=0)  # (np.dot: see above)
    p: Array = count / half
    return p


def sampled_p(S: Array, Q: Array, scale: Array) -> Array:
    """Two-sided sign-flip p from B random sign vectors' sums (C, B): (1 + count) / (1 + B)."""
    count = np.sum(np.abs(S) >= _tolerance(Q, scale)[:, None], axis=1)
    p: Array = (1.0 + count) / (1.0 + S.shape[1])
    return p


def randomization_p(D: Array, resamples: int = 10_000, seed: int = SEED) -> Array:
    """Paired sign-flip test of each row's mean delta, two-sided (statistic |mean delta|):
    exact up to EXACT_MAX queries, else ``resamples`` sign vectors from ``seed``; NaN for a row
    that is not finite."""
    D = np.asarray(D, dtype=np.float64)
    Q, scale = grid(D)
    if D.shape[1] <= EXACT_MAX:
        p = exact_p(Q, scale)
    else:
        S, _ = resampled_sums(Q, resamples, seed)
        p = sampled_p(S, Q, scale)
    return np.where(finite_rows(D), p, np.nan)


# -- the bootstrap interval ----------------------------------------------------------------------


def interval(T: Array, n: int, scale: Array, level: float = 0.95) -> Array:
    """Percentile interval of the mean delta from the bootstrap sums (C, B), (C, 2)."""
    if n == 0:
        return np.zeros((T.shape[0], 2))
    tail = (1.0 - level) / 2.0
    ends = np.quantile(T, [tail, 1.0 - tail], axis=1)  # (2, C), linear interpolation
    out: Array = (ends / (n * scale)).T
    return out


def bootstrap_ci(D: Array, resamples: int = 10_000, seed: int = SEED, level: float = 0.95) -> Array:
    """Paired bootstrap, percentile method: the queries resampled with replacement
    ``resamples`` times (the same draws for every row), (C, 2); NaN for a row that is not
    finite."""
    D = np.asarray(D, dtype=np.float64)
    Q, scale = grid(D)
    _, T = resampled_sums(Q, resamples, seed)
    ci = interval(T, D.shape[1], scale, level)
    return np.where(finite_rows(D)[:, None], ci, np.nan)


# -- the t-test ----------------------------------------------------------------------------------


def flat(D: Array) -> npt.NDArray[np.bool_]:
    """The rows whose deltas are all equal up to rounding: no variance to test or to size a test
    on. Exact equality is not enough: 0.3 - 0.2 and 0.7 - 0.6 differ in the last bit, so
    fourteen "equal" drops of 0.1 have a standard deviation of 1e-17, a t of 1e16 and an effect
    size scipy's noncentral t cannot evaluate. A ranking metric's values are ratios of small
    integers; two honest deltas never lie within EQUAL of each other's scale."""
    D = np.asarray(D, dtype=np.float64)
    if D.shape[1] == 0:
        return np.ones(D.shape[0], dtype=bool)
    with np.errstate(invalid="ignore"):
        spread = np.ptp(D, axis=1)
        size = np.maximum(1.0, np.max(np.abs(D), axis=1))
        out: npt.NDArray[np.bool_] = spread <= EQUAL * size
    return out


def finite_rows(D: Array) -> npt.NDArray[np.bool_]:
    """The rows with no NaN and no infinity: the only ones a statistic can be computed on."""
    out: npt.NDArray[np.bool_] = np.all(np.isfinite(D), axis=1)
    return out


def ttest_p(D: Array) -> Array:
    """Paired t-test's two-sided p per row (scipy's ttest_rel on the pairs); NaN when undefined:
    fewer than two queries, every delta equal up to rounding (no variance to measure, where
    scipy would answer 0 from a t of 1e16), or a delta that is not a finite number."""
    from scipy import special

    D = np.asarray(D, dtype=np.float64)
    C, n = D.shape
    out = np.full(C, np.nan)
    if n < 2:
        return out
    defined = ~flat(D) & finite_rows(D)
    d = D[defined]
    t = d.mean(axis=1) / np.sqrt(d.var(axis=1, ddof=1) / n)
    out[defined] = 2.0 * special.stdtr(n - 1, -np.abs(t))  # scipy.stats.t.sf(|t|, n - 1)
    return out


# -- Holm ----------------------------------------------------------------------------------------


def holm(p: npt.ArrayLike) -> Array:
    """Holm-Bonferroni adjusted p-values over the family; NaN stays NaN and is not counted."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    known = ~np.isnan(p)
    values = p[known]
    order = np.argsort(values, kind="stable")
    adjusted = np.maximum.accumulate(values[order] * np.arange(values.size, 0, -1))
    result = np.empty(values.size)
    result[order] = np.minimum(adjusted, 1.0)
    out[known] = result
    return out


# -- how many questions --------------------------------------------------------------------------


def _nct_cdf(df: Array, shift: Array, x: Array | float) -> Array:
    """The noncentral t's cdf at ``x``; where scipy's ``nctdtr`` answers NaN (a shift of a few
    dozen or more: the tail it is asked for is below 1e-100 there), the normal approximation
    ``Phi(x - shift)``, which is as good as exact in that tail. Never NaN for finite input."""
    from scipy import special

    cdf = special.nctdtr(df, shift, x)
    lost = np.isnan(cdf)
    if np.any(lost):
        cdf = np.where(lost, special.ndtr(np.asarray(x - shift, dtype=np.float64)), cdf)
    out: Array = cdf
    return out


def _power(effect: Array, n: Array, alpha: float) -> Array:
    """Power of the two-sided paired t-test at effect size ``effect`` with ``n`` queries."""
    from scipy import special

    df = n - 1.0
    crit = -special.stdtrit(df, alpha / 2.0)  # scipy.stats.t.isf(alpha / 2, df)
    with np.errstate(over="ignore"):
        shift = effect * np.sqrt(n)
    lower = _nct_cdf(df, shift, -crit)  # nct.cdf(-crit, df, shift)
    power: Array = 1.0 - _nct_cdf(df, shift, crit) + lower  # nct.sf(crit, df, shift)
    return power


def questions_for(effects: Array, alpha: float = 0.05, power: float = 0.8) -> Array:
    """The smallest n >= 2 whose power at each effect size is at least ``power`` (float array);
    NaN for an effect size that is not a positive finite number, inf past MAX_QUESTIONS.

    Starts from the normal approximation with Guenther's correction, which is within a query or
    two, and steps to the answer with the noncentral t: one or two vectorised evaluations. The
    steps are bounded (STEPS); a guess that needs more stands as it is, never a loop.
    """
    from scipy import special

    effects = np.abs(np.asarray(effects, dtype=np.float64))
    usable = np.isfinite(effects) & (effects > 0)
    za, zb = -special.ndtri(alpha / 2.0), -special.ndtri(1.0 - power)  # scipy.stats.norm.isf
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        guess = np.ceil(((za + zb) / effects) ** 2 + za * za / 2.0)
    n = np.where(usable, np.maximum(2.0, guess), np.nan)
    n[usable & ~(n <= MAX_QUESTIONS)] = np.inf
    exact = usable & (n <= 1e9)  # beyond, the t is the normal: the guess stands
    enough = np.ones(n.shape, dtype=bool)
    enough[exact] = _power(effects[exact], n[exact], alpha) >= power
    down = enough & exact & (n > 2)  # step down while one fewer still suffices
    for _ in range(STEPS):
        if not down.any():
            break
        lower = _power(effects[down], n[down] - 1.0, alpha) >= power
        idx = np.flatnonzero(down)
        n[idx[lower]] -= 1.0
        down[idx[~lower]] = False
        down &= n > 2
    up = exact & ~enough  # step up until it suffices
    for _ in range(STEPS):
        if not up.any():
            break
        n[up] += 1.0
        idx = np.flatnonzero(up)
        up[idx[_power(effects[up], n[up], alpha) >= power]] = False
    needed: Array = n
    return needed


def questions_needed(sd: float, d: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Sakai's topic-set size for a paired t-test: the queries needed to detect a true mean
    difference ``d`` with probability ``power`` at ``alpha`` (two-sided), when the per-query
    deltas have standard deviation ``sd``. None when sd or d is 0 or not a number, or when the
    answer is past MAX_QUESTIONS (a difference too small to detect)."""
    if not (sd > 0 and math.isfinite(sd)) or not (d != 0 and math.isfinite(d)):
        return None
    with np.errstate(over="ignore"):
        effect = abs(d) / sd
    found = float(questions_for(np.array([effect]), alpha, power)[0])
    return int(found) if math.isfinite(found) else None


@lru_cache(maxsize=256)
def _detectable_effect(n: int, alpha: float, power: float) -> float:
    """The effect size at which ``n`` queries reach ``power``: power grows with the effect, so
    halving a bracket until its ends meet in float64 finds it (brentq's answer to 1e-14, without
    the 27 MB of scipy.optimize in the server)."""

    def enough(effect: float) -> bool:
        return bool(_power(np.array(effect), np.array(float(n)), alpha) >= power)

    low, high = 0.0, 2.0 * (3.0 / math.sqrt(n))
    for _ in range(STEPS):  # the power at this bracket's top is 1 for any n >= 2
        if enough(high):
            break
        low, high = high, 2.0 * high
    for _ in range(2 * 1100):  # a float64 bracket halves to adjacent numbers in < 2,100 steps
        mid = 0.5 * (low + high)
        if not low < mid < high:
            break
        if enough(mid):
            high = mid
        else:
            low = mid
    return high


def detectable_difference(
    sd: float, n: int, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """The smallest true mean difference that ``n`` queries detect with probability ``power``
    at ``alpha`` (two-sided) when the deltas have standard deviation ``sd``; None when n < 2 or
    sd is 0. The effect size depends on n only, so it is cached: cheap on every edit."""
    if n < 2 or not (sd > 0 and math.isfinite(sd)):
        return None
    return _detectable_effect(n, alpha, power) * sd
