"""Change-point detection: one mean shift in a per-second series, and e-divisive means across a series of tests.

`mean_shift` finds the single split that best separates a series into two levels (standardised CUSUM; noise
estimated from first differences, so the shift itself does not inflate it). It serves within one test, where the
question is "did the regime change, and when".

`e_divisive` is E-Divisive with means (Matteson & James, 2014), the method Apache Otava (Hunter) uses on
performance-test histories: the energy distance between the two sides of every split, best split accepted when
a permutation test says it is unlikely under no change, then recursion into both sides. It makes no assumption
about the distribution and finds changes in level and in spread. Permutations use a fixed seed, so the same
history always gives the same answer.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from analytics.diagnosis.types import FloatArray


@dataclass(frozen=True)
class MeanShift:
    index: int  # first element of the second level
    before: float  # mean before
    after: float  # mean after
    statistic: float  # standardised CUSUM: shift / noise × sqrt(k(n-k)/n)
    noise: float


def noise_sigma(x: FloatArray) -> float:
    """Robust noise level from first differences (MAD), insensitive to a level shift in the series."""
    if x.size < 3:
        return 0.0
    diffs = np.diff(x)
    mad = float(np.median(np.abs(diffs - np.median(diffs))))
    return float(1.4826 * mad / np.sqrt(2.0))


def mean_shift(x: FloatArray, min_size: int = 5) -> MeanShift | None:
    """The best single split of `x` into two levels, or None if `x` is too short or flat."""
    n = int(x.size)
    if n < 2 * min_size:
        return None
    sigma = noise_sigma(x)
    csum = np.cumsum(x)
    total = float(csum[-1])
    k = np.arange(min_size, n - min_size + 1)
    before = csum[k - 1] / k
    after = (total - csum[k - 1]) / (n - k)
    gain = np.sqrt(k * (n - k) / n) * np.abs(after - before)
    best = int(np.argmax(gain))
    floor = max(sigma, 1e-9 * max(1.0, float(np.max(np.abs(x)))))
    return MeanShift(
        index=int(k[best]),
        before=float(before[best]),
        after=float(after[best]),
        statistic=float(gain[best] / floor),
        noise=sigma,
    )


def _block_sums(d: FloatArray) -> FloatArray:
    """2-D prefix sums with a zero border: sum of d[i1:i2, j1:j2] in O(1)."""
    p = np.zeros((d.shape[0] + 1, d.shape[1] + 1))
    p[1:, 1:] = d.cumsum(axis=0).cumsum(axis=1)
    return p


def _block(p: FloatArray, i1: int, i2: int, j1: int, j2: int) -> float:
    return float(p[i2, j2] - p[i1, j2] - p[i2, j1] + p[i1, j1])


def _best_split(values: FloatArray, min_size: int) -> tuple[int, float]:
    """Best split of one segment by the energy statistic q̂; returns (offset, q̂) or (-1, 0)."""
    n = int(values.size)
    if n < 2 * min_size:
        return -1, 0.0
    p = _block_sums(np.abs(values[:, None] - values[None, :]))
    best_t, best_q = -1, 0.0
    for t in range(min_size, n - min_size + 1):
        m, r = t, n - t
        between = _block(p, 0, t, t, n) / (m * r)
        within_x = _block(p, 0, t, 0, t) / (m * (m - 1))
        within_y = _block(p, t, n, t, n) / (r * (r - 1))
        q = (m * r / n) * (2 * between - within_x - within_y)
        if q > best_q:
            best_t, best_q = t, q
    return best_t, best_q


def e_divisive(
    values: npt.ArrayLike, *, min_size: int = 3, p_value: float = 0.05, permutations: int = 199, seed: int = 0
) -> list[int]:
    """Indexes where a new regime starts (sorted), by E-Divisive means with a permutation test."""
    x = np.asarray(values, dtype=np.float64)
    if x.size < 2 * min_size or not np.all(np.isfinite(x)):
        return []
    rng = np.random.default_rng(seed)
    bounds = [0, int(x.size)]
    while True:
        candidates: list[tuple[float, int, int, int]] = []  # (q, split, start, end)
        for start, end in itertools.pairwise(bounds):
            t, q = _best_split(x[start:end], min_size)
            if t > 0:
                candidates.append((q, start + t, start, end))
        if not candidates:
            break
        q_obs, split, _, _ = max(candidates)
        # Permute within the current segments, as Matteson & James do: the null keeps the accepted changes.
        exceed = 0
        for _ in range(permutations):
            shuffled = x.copy()
            for start, end in itertools.pairwise(bounds):
                shuffled[start:end] = rng.permutation(shuffled[start:end])
            q_perm = max(
                (_best_split(shuffled[s:e], min_size)[1] for s, e in itertools.pairwise(bounds)),
                default=0.0,
            )
            if q_perm >= q_obs:
                exceed += 1
        if (exceed + 1) / (permutations + 1) > p_value:
            break
        bounds = sorted([*bounds, split])
    return bounds[1:-1]
