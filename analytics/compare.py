"""Test-vs-test comparison with verdicts: is a difference of a quantile (or of an error share) beyond noise?

Pure: numpy arrays in, dataclasses out. The method, in short (docs/compare.md says it in plain words):

* Every test is reduced to per-second histograms of response time on the tank's bin grid
  (`analytics.histogram`), whatever its source: raw samples are binned, streamed tests already are. That keeps
  10M-sample tests cheap (a few hundred bins per second instead of millions of values).
* Quantiles: the two tests are compared stretch by stretch of seconds since each one's start (a warm-up meets a
  warm-up; the warm-up itself, the first seconds with a median 1.5x the steady one, is left out). Per level, each
  block of seconds (as short as the level's tail allows: one second for p99 at a few hundred RPS) gives the log
  ratio of the two tests' quantiles there; the estimate is their mean clipped at ±0.5 (Huber: what most stretches
  show; a pause or a spike in one block decides nothing).
* Noise: if both tests come from one system, swapping them within a unit is as likely as the data, so the
  estimate's distribution under "no difference" is that of the sign-flipped unit values (a permutation test,
  exact for exchangeable units). Units are at least 4 s and the correlation time of the ratios, so neighbouring
  seconds that are alike are never treated as independent. The interval is every shift the test does not reject
  (inverted by bisection), each level at its share of 0.75% such that all levels hold at once (max-|t| over the
  levels, which move together; never stricter than Bonferroni): "same at every level" in >= 95% of
  comparisons of one build with itself, measured on real runs (bench/compare/power.py).
* Code shares keep a block bootstrap of the share (blocks of about n^(1/3) seconds, longer when seconds are
  correlated) with a simultaneous max-|t| band.
* A verdict is `worse`/`better` only when the whole interval lies beyond a floor: 1% of the baseline value (run-
  to-run drift that no within-run resampling can see) or one histogram bin for inexact data. Levels with fewer
  than `min_tail` responses beyond them (e.g. the maximum) cannot be told from noise: `same`, with a note.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from analytics.definitions import CodeKind, is_failing_code
from analytics.histogram import BIN_COUNT, BIN_EDGES_US, histogram_quantiles
from analytics.quantiles import level_key

FloatArray = npt.NDArray[np.float64]
Verdict = Literal["better", "worse", "same"]  # of a difference: beyond noise either way, or within it
IntArray = npt.NDArray[np.int64]

DEFAULT_LEVELS: tuple[float, ...] = (50.0, 75.0, 80.0, 85.0, 90.0, 95.0, 98.0, 99.0, 100.0)

# Lower and upper edge (ms) of each bin index; bin 0 is the degenerate [0, 0] bin.
UPPER_MS: FloatArray = BIN_EDGES_US.astype(np.float64) / 1000.0
LOWER_MS: FloatArray = np.concatenate(([0.0], UPPER_MS[:-1]))
MID_MS: FloatArray = (LOWER_MS + UPPER_MS) / 2.0

# The bootstrap runs on a coarser grid: tank bins are grouped by the 2% log bucket of their upper edge,
# floor(ln(edge_us) / ln(1.02)) (the tank's 1 ms steps at 10-500 ms become ~2% wide groups; below 0.5 ms its
# 10 µs bins stay apart). Quantiles are interpolated linearly inside a group, so resampled quantiles still move
# smoothly, and the resampled histograms have fewer columns. Reported values never come from this grid: they
# are exact order statistics, or quantiles of the tank's own grid for streamed tests.
COARSE_REL_WIDTH = 0.02
FULL_FLIPS_UP_TO = 11  # units: every sign pattern (2048) up to there, else 2000 drawn at random
MIN_BLOCKS = 8  # blocks (and units) a level needs at the least to be judged
LOG_FLOOR_MS = 0.001  # log ratios of quantiles: a 0 ms quantile counts as 1 µs
MIN_UNIT_SLOTS = 4  # flip units of at least 4 slots: neighbouring seconds of a run are alike (measured on real runs)
BISECTION_STEPS = 9  # interval ends to 1/500 of the units' spread (0.1-0.3 % of the value)
WARMUP_RATIO = 1.5  # a first second whose median is 1.5x the steady one is still warming up
LOG_BASE = 1.0 + COARSE_REL_WIDTH
# The paired test's statistic is the mean of the blocks' log ratios (less the tested shift) clipped to ±0.5 (a
# factor of 1.65): a block where a pause or a spike sets one test's quantile counts no more than that, so the few
# such blocks cannot hide a shift every other block shows (Huber's estimator). A tail quantile of a short block is
# set by whether a pause fell in it, so its log ratios are a mixture of a shift and of ±1.5-2 jumps.
CLIP_LOG = 0.5

# Why a level was not judged (QuantileComparison.notes).
NOT_ENOUGH_TAIL = "fewer than {min_tail} responses beyond this level in a test: cannot be told from noise"
NOT_ENOUGH_STRETCHES = "too few responses beyond this level in stretches of the tests' seconds to tell it from noise"
OPPOSITE_SIGNS = (
    "not judged: the typical stretch and the whole window moved in opposite directions (a few seconds decide the "
    "whole-window figure)"
)
WARMUP_IN_WINDOW = "; its first {warmup_s} s, a warm-up the verdicts leave out, count in it: compare from {warmup_s} s"


def _coarse_grid() -> tuple[IntArray, FloatArray]:
    edges = BIN_EDGES_US.astype(np.float64)
    bucket = np.full(BIN_COUNT, -1, dtype=np.int64)
    bucket[edges > 0] = np.floor(np.log(edges[edges > 0]) / np.log(LOG_BASE)).astype(np.int64)
    key = np.zeros(BIN_COUNT, dtype=np.int64)  # tank bin index -> index of its group's last tank bin
    lower = LOWER_MS.copy()  # at a group key: the group's lower edge
    start = 0
    for i in range(1, BIN_COUNT + 1):
        if i == BIN_COUNT or bucket[i] != bucket[start]:
            key[start:i] = i - 1
            lower[i - 1] = LOWER_MS[start]
            start = i
    return key, lower


COARSE_KEY, COARSE_LOWER_MS = _coarse_grid()


def coarsen(data: SparseCounts) -> SparseCounts:
    """The same counts on the coarse grid (keys = each group's last tank bin); idempotent."""
    return SparseCounts(data.seconds, COARSE_KEY[data.keys], data.counts)


@dataclass(frozen=True)
class CompareSettings:
    """Knobs of the method; the defaults are what the API uses and what docs/compare.md describes."""

    n_resamples: int = 1000
    # Nominal 97%: with a few dozen blocks the bootstrap's real coverage runs 1-2 points under nominal
    # (simulated, analytics/tests/test_compare.py), and what we promise is "same" in >= 95% of A/A runs.
    confidence: float = 0.97
    # The quantiles' sign-flip test is exact for exchangeable stretches; a 30 s test leaves only 1 s stretches,
    # which are still a little alike, so the nominal rate is above the 95 % "same" promised (docs/compare.md
    # gives the A/A rates measured on real runs).
    flip_confidence: float = 0.9925
    rel_floor: float = 0.01  # a quantile difference under 1% of the baseline is never called real
    share_floor: float = 0.001  # nor is a code share difference under 0.1 percentage point
    min_tail: int = 10  # responses needed beyond a level (in each test) to judge it
    min_block_tail: float = 2.0  # responses a block needs beyond a level, on average, for its quantile there
    seed: int = 20170424  # fixed: the same data always gives the same verdicts (and cache entries agree)


def method_text(cfg: CompareSettings | None = None) -> str:
    """The method in one paragraph, from the settings it runs with (the answer's `method`; docs/compare.md says
    it at length)."""
    cfg = cfg or CompareSettings()
    return (
        "Paired sign-flip test over stretches of seconds: each test's seconds since its own start are cut into "
        f"blocks (as short as leaves {cfg.min_block_tail:g} responses beyond a level), and per level the mean of "
        f"the blocks' log ratio of quantiles (test / baseline), clipped at ±{CLIP_LOG:g}, estimates the typical "
        f"change of a stretch (change_pct); warm-up seconds (a median over {WARMUP_RATIO:g}× the steady one) are left "
        "out. Swapping the tests within "
        f"units of consecutive blocks (at least {MIN_UNIT_SLOTS} time slots and the correlation time) gives its "
        "distribution under no difference. Intervals hold for all judged levels at once "
        f"({cfg.flip_confidence:.2%}), found by inverting the test; 'worse'/'better' only when the whole interval "
        f"lies beyond {cfg.rel_floor:.0%} of the baseline (and one histogram bin for streamed data) and the whole "
        f"test moved the same way (diff_pct); levels with fewer than {cfg.min_tail} responses beyond them are not "
        "judged, and neither is one whose stretches and whole test moved opposite ways. Each test is judged "
        "against the first on its own: adding a test changes no other verdict. Code shares: a block bootstrap, "
        f"floor {cfg.share_floor * 100:g} percentage point. Values are exact order statistics when raw samples exist. "
        "Details: docs/compare.md."
    )


@dataclass(frozen=True)
class SparseCounts:
    """Counts of (second, key) pairs: key is a histogram bin index or a code. Seconds are unix or relative."""

    seconds: IntArray
    keys: IntArray
    counts: IntArray

    @staticmethod
    def empty() -> SparseCounts:
        z = np.zeros(0, dtype=np.int64)
        return SparseCounts(z, z, z)

    @staticmethod
    def of(
        seconds: Sequence[int] | IntArray, keys: Sequence[int] | IntArray, counts: Sequence[int] | IntArray
    ) -> SparseCounts:
        return SparseCounts(
            np.asarray(seconds, dtype=np.int64), np.asarray(keys, dtype=np.int64), np.asarray(counts, dtype=np.int64)
        )

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def select_seconds(self, mask: npt.NDArray[np.bool_]) -> SparseCounts:
        """The rows where `mask` (one flag per row) is set."""
        return SparseCounts(self.seconds[mask], self.keys[mask], self.counts[mask])

    def shifted(self, offset_s: int) -> SparseCounts:
        """The same counts with `offset_s` subtracted from every second (absolute → relative to a start)."""
        return SparseCounts(self.seconds - offset_s, self.keys, self.counts)

    def totals_by_key(self) -> dict[int, int]:
        if self.keys.size == 0:
            return {}
        uniq, inverse = np.unique(self.keys, return_inverse=True)
        sums = np.bincount(inverse, weights=self.counts.astype(np.float64))
        return {int(k): round(float(s)) for k, s in zip(uniq, sums, strict=True)}


def time_step_s(data: SparseCounts) -> int:
    """Seconds between consecutive time slots of `data`: 1 for per-second data, more when read in slots."""
    uniq = np.unique(data.seconds)
    if uniq.size < 2:
        return 1
    return max(1, int(np.diff(uniq).min()))


def block_length_s(n_seconds: int) -> int:
    """Block length for the block bootstrap: about n^(1/3) seconds (Hall, Horowitz & Jing 1995), at least 1."""
    return max(1, round(math.cbrt(max(n_seconds, 1))))


def hist_from_values_ms(seconds: Sequence[int] | IntArray, values_ms: Sequence[float] | FloatArray) -> SparseCounts:
    """Bin raw response times (ms) per second on the tank's grid, as the samples query does in ClickHouse."""
    from analytics.histogram import bin_indexes_for_values_us

    secs = np.asarray(seconds, dtype=np.int64)
    bins = bin_indexes_for_values_us(np.round(np.asarray(values_ms, dtype=np.float64) * 1000).astype(np.int64))
    keep = bins >= 0
    secs, bins = secs[keep], bins[keep]
    if secs.size == 0:
        return SparseCounts.empty()
    pair = (secs - secs.min()) * BIN_COUNT + bins
    uniq, counts = np.unique(pair, return_counts=True)
    return SparseCounts(uniq // BIN_COUNT + secs.min(), uniq % BIN_COUNT, counts.astype(np.int64))


def _per_second_medians(data: SparseCounts, values: FloatArray) -> FloatArray:
    """Median of `values[key]` in each second that has data (in time order)."""
    order = np.lexsort((data.keys, data.seconds))
    secs, vals, cnts = data.seconds[order], values[data.keys[order]], data.counts[order].astype(np.float64)
    uniq, starts = np.unique(secs, return_index=True)
    group = np.repeat(np.arange(uniq.size), np.diff(np.append(starts, secs.size)))
    cum = np.cumsum(cnts)
    before = np.concatenate(([0.0], cum))[starts]
    within = cum - before[group]
    totals = np.bincount(group, weights=cnts)
    reached = np.nonzero(within >= totals[group] / 2.0)[0]
    _, first = np.unique(group[reached], return_index=True)
    out: FloatArray = vals[reached[first]]
    return out


def _per_second_means(data: SparseCounts, values: FloatArray) -> FloatArray:
    first = int(data.seconds.min())
    rel = data.seconds - first
    weights = data.counts.astype(np.float64)
    totals = np.bincount(rel, weights=weights)
    sums = np.bincount(rel, weights=weights * values[data.keys])
    present = totals > 0
    out: FloatArray = sums[present] / totals[present]
    return out


def correlation_time_s(data: SparseCounts, values: FloatArray, *, robust: bool = True) -> float:
    """(1 + ρ) / (1 - ρ) from the lag-1 autocorrelation ρ of a per-second statistic of `values[key]`.

    That is the integrated autocorrelation time of an AR(1) series: how many seconds one independent
    observation is worth. Blocks shorter than it leave correlation out and make intervals too narrow. The
    statistic is the per-second median for latencies (a few slow outliers per second would otherwise hide the
    slow drift of the bulk) and the mean for code shares.
    """
    if data.seconds.size == 0:
        return 1.0
    series = _per_second_medians(data, values) if robust else _per_second_means(data, values)
    return _ar1_time(series) * time_step_s(data)


def _block_matrix(
    data: SparseCounts, key_index: dict[int, int] | IntArray, n_keys: int, tau_s: float = 1.0
) -> FloatArray:
    """Dense (block × key) counts: seconds grouped into consecutive blocks.

    The block is n^(1/3) seconds or the correlation time `tau_s`, whichever is longer, but short enough to
    leave at least 10 blocks to draw from.
    """
    if data.seconds.size == 0:
        return np.zeros((0, n_keys))
    first, last = int(data.seconds.min()), int(data.seconds.max())
    n_seconds = last - first + 1
    length = max(block_length_s(n_seconds), min(int(np.ceil(tau_s)), max(n_seconds // 10, 1)))
    blocks = (data.seconds - first) // length
    n_blocks = int(blocks.max()) + 1
    if isinstance(key_index, dict):
        known = np.array(sorted(key_index), dtype=np.int64)
        position = np.array([key_index[int(k)] for k in known], dtype=np.int64)
        cols = position[np.searchsorted(known, data.keys)]
    else:
        cols = key_index[data.keys]
    flat = np.bincount(blocks * n_keys + cols, weights=data.counts.astype(np.float64), minlength=n_blocks * n_keys)
    matrix = flat.reshape(n_blocks, n_keys)
    # Blocks with no responses (a pause between stages) carry no information; dropping them keeps every
    # resample non-empty when the test has any data.
    kept: FloatArray = matrix[matrix.sum(axis=1) > 0]
    return kept


def _resample(matrix: FloatArray, n: int, rng: np.random.Generator) -> FloatArray:
    """n block-bootstrap resamples of a (block × key) matrix, summed over the drawn blocks: (n × key).

    Callers scale the resulting deviations by sqrt(b / (b - 1)) for b blocks: the bootstrap variance of a
    mean over b blocks is (b - 1) / b of the unbiased one, which matters when the blocks are few.
    """
    n_blocks = matrix.shape[0]
    # How often each block is drawn in each resample (n_blocks draws with replacement); bincount over the
    # drawn indexes is much faster than numpy's multinomial for the same distribution.
    drawn = rng.integers(0, n_blocks, size=(n, n_blocks)) + np.arange(n)[:, None] * n_blocks
    weights = np.bincount(drawn.ravel(), minlength=n * n_blocks).reshape(n, n_blocks).astype(np.float64)
    out: FloatArray = weights @ matrix
    return out


def hist_quantiles_ms(
    counts: FloatArray, lower_ms: FloatArray, upper_ms: FloatArray, levels: Sequence[float]
) -> FloatArray:
    """Quantiles of histograms (rows of `counts`) by the one histogram rule (`analytics.histogram`): the values
    the comparison reports and draws.

    Returns (rows × levels); NaN where a histogram is empty.
    """
    out: FloatArray = np.atleast_2d(histogram_quantiles(np.atleast_2d(counts), levels, lower_ms, upper_ms))
    return out


def block_rank(n: npt.NDArray[np.int64], levels_pct: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """The rank the paired test reads a block's quantile at: floor((n - 1) × p), one below the figures' rule
    (analytics.definitions) at the tail. It is a statistic, never shown: with 2 responses beyond a level per
    block, the lower of them is the steadier estimate (bench/compare/power.py measured both: the figures' rank
    raised the A/A rate of the pause runs at 30 s from 5.0 % to 6.5 %)."""
    fractions = np.asarray(levels_pct, dtype=np.float64) / 100.0
    counts = np.maximum(np.asarray(n, dtype=np.float64), 1.0)[..., None]
    # (n-1)·p computed in float may land a hair under an integer it equals exactly.
    ranks: npt.NDArray[np.int64] = np.floor((counts - 1.0) * fractions + 1e-9).astype(np.int64)
    return ranks


def _block_quantiles_ms(counts: FloatArray, lower_ms: FloatArray, upper_ms: FloatArray, level: float) -> FloatArray:
    """Each row's quantile at `level` for the paired test (block_rank), ms."""
    out: FloatArray = np.atleast_2d(
        histogram_quantiles(np.atleast_2d(counts), [level], lower_ms, upper_ms, rank=block_rank)
    )[:, 0]
    return out


@dataclass(frozen=True)
class QuantileComparison:
    """Per test (first = baseline) and per level: value, whole-test difference, the judged change and the verdict.

    `diff_ms`/`diff_pct` are the whole-test values' difference (what a page shows beside the values). The verdict
    judges `change_pct`, the typical change of a stretch of seconds (the clipped mean of the blocks' log ratios,
    in %), whose interval `change_interval_pct` always contains it; a level is `worse`/`better` only when that
    interval lies beyond the floor and `diff_ms` has the same sign, else `same`, or None (not judged) with the
    reason in `notes[test][level]`. Each test is judged against the baseline on its own: adding a test to a
    comparison changes no other pair's figures."""

    levels: tuple[float, ...]
    counts: list[int]
    values_ms: list[list[float | None]]
    diff_ms: list[list[float | None]]
    diff_pct: list[list[float | None]]
    change_pct: list[list[float | None]]
    change_interval_pct: list[list[tuple[float, float] | None]]
    verdict: list[list[Verdict | None]]
    notes: list[dict[float, str]] = field(default_factory=list)  # per test: level → why it was not judged
    block_s: list[float] = field(default_factory=list)  # per test: the block length of its paired test (0: none)
    warmup_s: list[int] = field(default_factory=list)  # per test: seconds at the start left out as a warm-up

    def as_json(self) -> dict[str, Any]:
        """The API's shape: per level (its key, "99.9"), one entry per test (the LEVEL_TABLES), and `count` and
        `warmup_s` per test."""
        n = len(self.values_ms)

        def per_level(rows: Sequence[Sequence[Any]]) -> dict[str, list[Any]]:
            return {level_key(level): [_listed(rows[i][j]) for i in range(n)] for j, level in enumerate(self.levels)}

        return {
            "count": self.counts,
            "quantiles_ms": per_level(self.values_ms),
            "diff_ms": per_level(self.diff_ms),
            "diff_pct": per_level(self.diff_pct),
            "change_pct": per_level(self.change_pct),
            "change_interval_pct": per_level(self.change_interval_pct),
            "verdict": per_level(self.verdict),
            "verdict_notes": {level_key(level): [self.notes[i].get(level) for i in range(n)] for level in self.levels},
            "warmup_s": self.warmup_s,
        }


# The per-level tables of QuantileComparison.as_json.
LEVEL_TABLES = ("quantiles_ms", "diff_ms", "diff_pct", "change_pct", "change_interval_pct", "verdict", "verdict_notes")


def _listed(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class CodeComparison:
    """Per code (as text) and per test: counts, shares, share difference against the baseline and a verdict."""

    counts: dict[str, list[int]]
    share: dict[str, list[float | None]]
    share_diff: dict[str, list[float | None]]
    interval: dict[str, list[tuple[float, float] | None]]
    verdict: dict[str, list[Verdict | None]]


def _band_constant(deviations: FloatArray, sd: FloatArray, confidence: float) -> float:
    """c such that max over columns of |deviation| / sd stays under c in `confidence` of the rows (max-|t|)."""
    usable = sd > 0
    if not usable.any():
        return 0.0
    t = np.abs(deviations[:, usable]) / sd[usable]
    return float(np.quantile(t.max(axis=1), confidence))


def _verdict(low: float, high: float, floor: float, higher_is_worse: bool) -> Verdict:
    if low > floor:
        return "worse" if higher_is_worse else "better"
    if high < -floor:
        return "better" if higher_is_worse else "worse"
    return "same"


def _slot_matrix(data: SparseCounts, index: IntArray, n_keys: int) -> FloatArray:
    """Dense (slot × key) counts, one row per time slot from the test's first slot (empty slots included), so that
    row k of two tests is the k-th slot since each one's start."""
    if data.seconds.size == 0:
        return np.zeros((0, n_keys))
    step = time_step_s(data)
    rows = (data.seconds - int(data.seconds.min())) // step
    n_rows = int(rows.max()) + 1
    flat = np.bincount(
        rows * n_keys + index[data.keys], weights=data.counts.astype(np.float64), minlength=n_rows * n_keys
    )
    out: FloatArray = flat.reshape(n_rows, n_keys).astype(np.float64)
    return out


def _flip_signs(n_blocks: int, rng: np.random.Generator, n_random: int) -> FloatArray:
    """Sign patterns for a sign-flip test: all 2^K when few, else `n_random` random ones (plus the identity)."""
    if n_blocks <= FULL_FLIPS_UP_TO:
        codes = np.arange(2**n_blocks)[:, None]
        bits = (codes >> np.arange(n_blocks)[None, :]) & 1
    else:
        bits = np.vstack([np.zeros((1, n_blocks), dtype=np.int64), rng.integers(0, 2, size=(n_random, n_blocks))])
    out: FloatArray = 1.0 - 2.0 * bits.astype(np.float64)
    return out


@dataclass(frozen=True)
class _Paired:
    """The paired block test of one test against the baseline, on log quantiles."""

    mean_log: FloatArray  # per level: clipped mean (M-estimate) over blocks of log(test / baseline)
    low_log: FloatArray  # per level: the interval of the log ratio
    high_log: FloatArray
    judged: npt.NDArray[np.bool_]
    block_s: float
    n_blocks: int


def _paired_log_test(
    base: FloatArray,
    other: FloatArray,
    lower: FloatArray,
    upper: FloatArray,
    levels: Sequence[float],
    judged: npt.NDArray[np.bool_],
    step_s: int,
    min_block_slots: int,
    cfg: CompareSettings,
    rng: np.random.Generator,
) -> _Paired | None:
    """A sign-flip permutation test of the per-block log ratios of the two tests' quantiles.

    Block k of each test is its k-th stretch of slots since its own start, as short as the level's tail allows
    (`min_block_tail` responses beyond the level). Per level, the statistic is the clipped mean over blocks of
    log(test's quantile / baseline's) (a pause or a spike in one test moves a few blocks by at most CLIP_LOG
    each). If the two tests come from the same system, swapping the tests inside a unit of consecutive blocks is as
    likely as the data: every sign pattern over the units (all blocks of a unit flipped together) gives the
    statistic's distribution under "no difference" (exact, whatever the spread). Units are at least MIN_UNIT_SLOTS
    slots and the correlation time of the log ratios; each level's interval is inverted from the test at its share
    of the error rate (_joint_alphas)."""
    n_slots = min(base.shape[0], other.shape[0])
    longest = n_slots // MIN_BLOCKS
    if longest < 1:
        return None
    per_slot = min(base[:n_slots].sum() / n_slots, other[:n_slots].sum() / n_slots)
    level_arr = np.asarray(levels, dtype=np.float64)
    with np.errstate(divide="ignore"):
        need = np.ceil(cfg.min_block_tail / np.maximum((100.0 - level_arr) / 100.0 * max(per_slot, 1e-9), 1e-12))
    need = np.maximum(need, 1)
    usable = judged & (need <= longest)
    if not usable.any():
        return None
    unit = int(min(max(need[usable].max(), min_block_slots, 1), longest))
    for j in np.flatnonzero(usable):
        length = _divisor_at_least(unit, int(need[j]))
        d = _block_log_ratios(base, other, n_slots - n_slots % unit, length, lower, upper, levels[int(j)])
        unit = int(min(max(unit, math.ceil(_ar1_time(d[np.isfinite(d)]) * length)), longest))
    # Enough units that the sign patterns can reach each level's share of the error rate (Bonferroni) 16 times over.
    min_units = max(MIN_BLOCKS, math.ceil(math.log2(16.0 * int(usable.sum()) / (1.0 - cfg.flip_confidence))))
    unit = min(max(unit, MIN_UNIT_SLOTS), max(n_slots // min_units, 1))
    n_units = n_slots // unit
    signs = _flip_signs(n_units, rng, 2 * cfg.n_resamples)
    # Every level's interval holds at once in `flip_confidence` of the cases (_joint_alphas).
    cases: dict[int, tuple[FloatArray, FloatArray]] = {}
    for col in (int(k) for k in np.flatnonzero(usable)):
        length = _divisor_at_least(unit, int(need[col]))
        d = _block_log_ratios(base, other, n_units * unit, length, lower, upper, levels[col])
        ok = np.isfinite(d)
        if ok.sum() >= MIN_BLOCKS:
            unit_of = np.minimum(np.arange(d.size) * length // unit, n_units - 1)[ok]
            cases[col] = (d[ok], signs[:, unit_of])
    alphas = _joint_alphas(cases, 1.0 - cfg.flip_confidence)
    low_all = np.zeros(len(levels))
    high_all = np.zeros(len(levels))
    mean_all = np.zeros(len(levels))
    done = np.zeros(len(levels), dtype=bool)
    for col, (d, flips) in cases.items():
        low, estimate, high = _inverted_interval(d, flips, alphas[col])
        low_all[col], mean_all[col], high_all[col], done[col] = low, estimate, high, True
    if not done.any():
        return None
    return _Paired(mean_all, low_all, high_all, done, float(unit * step_s), n_units)


def _joint_alphas(cases: dict[int, tuple[FloatArray, FloatArray]], error_rate: float) -> dict[int, float]:
    """Each level's share of `error_rate` such that all levels' intervals hold at once (max-|t| over levels).

    The levels' statistics move together (p95, p98 and p99 share their slow responses), so Bonferroni's
    error_rate / levels is needlessly strict. Under each sign pattern every level's flipped statistic (of its
    residuals around its estimate) is scaled by its spread over the patterns; the threshold the largest of them
    passes in `error_rate` of the patterns gives each level the share of patterns its own scaled statistic passes
    it in, never less than Bonferroni's."""
    if not cases:
        return {}
    bonferroni = error_rate / len(cases)
    scaled: list[FloatArray] = []
    for d, flips in cases.values():
        x = np.clip(d - _m_estimate(d), -CLIP_LOG, CLIP_LOG)
        null = np.abs(flips @ x) / x.size
        spread = float(null.std())
        scaled.append(null / spread if spread > 0 else np.zeros_like(null))
    table = np.vstack(scaled)
    threshold = float(np.quantile(table.max(axis=0), 1.0 - error_rate))
    return {j: max(bonferroni, float(np.mean(row > threshold - 1e-12))) for j, row in zip(cases, table, strict=True)}


def _m_estimate(d: FloatArray) -> float:
    """The shift δ where the clipped mean of d - δ is 0 (it falls as δ grows)."""
    low_d, high_d = float(d.min()), float(d.max())
    for _ in range(2 * BISECTION_STEPS):
        middle = (low_d + high_d) / 2.0
        if _clipped_mean(d - middle) > 0:
            low_d = middle
        else:
            high_d = middle
    return (low_d + high_d) / 2.0


def _clipped_mean(x: FloatArray) -> float:
    return float(np.clip(x, -CLIP_LOG, CLIP_LOG).mean())


def _inverted_interval(d: FloatArray, signs: FloatArray, alpha: float) -> tuple[float, float, float]:
    """(low, estimate, high): the shifts δ of the log ratios `d` that the sign-flip test does not reject at `alpha`.

    The statistic for a shift δ is the clipped mean of d - δ (CLIP_LOG); the estimate is the δ where it is 0 (Huber's
    M-estimate). The test flips the signs of d - δ by units (`signs`, one row per pattern, one column per block:
    the blocks of a unit share a sign) and asks how often a flipped statistic is as far from 0 as the real one:
    exact when the units' residuals are symmetric (clipping is odd, so it keeps that), and the interval it inverts
    to never gets wider because the change itself is large (flipping d itself would)."""
    estimate = _m_estimate(d)

    def p_value(delta: float) -> float:
        x = np.clip(d - delta, -CLIP_LOG, CLIP_LOG)
        observed = abs(float(x.mean()))
        null = np.abs(signs @ x) / x.size
        return float(np.mean(null >= observed - 1e-12))

    span = 2.0 * float(np.abs(d - estimate).max()) + 1e-6
    bounds: list[float] = []
    for direction in (-1.0, 1.0):
        inside, outside = estimate, estimate + direction * span
        if p_value(outside) > alpha:  # the test cannot reject anything this data allows: the widest interval
            bounds.append(outside)
            continue
        for _ in range(BISECTION_STEPS):
            middle = (inside + outside) / 2.0
            if p_value(middle) > alpha:
                inside = middle
            else:
                outside = middle
        bounds.append(inside)
    return bounds[0], estimate, bounds[1]


def _divisor_at_least(unit: int, minimum: int) -> int:
    """The smallest divisor of `unit` that is at least `minimum` (blocks nest in the flip units)."""
    for length in range(max(minimum, 1), unit + 1):
        if unit % length == 0:
            return length
    return unit


def _block_log_ratios(
    base: FloatArray, other: FloatArray, n_slots: int, length: int, lower: FloatArray, upper: FloatArray, level: float
) -> FloatArray:
    """log(other's quantile / base's quantile) at `level` in each block of `length` slots (NaN: a block is empty)."""
    n_blocks = n_slots // length
    a = base[: n_blocks * length].reshape(n_blocks, length, -1).sum(axis=1)
    b = other[: n_blocks * length].reshape(n_blocks, length, -1).sum(axis=1)
    qa = _block_quantiles_ms(a, lower, upper, level)
    qb = _block_quantiles_ms(b, lower, upper, level)
    out: FloatArray = np.log(np.maximum(qb, LOG_FLOOR_MS)) - np.log(np.maximum(qa, LOG_FLOOR_MS))
    return out


@dataclass(frozen=True)
class _Grid:
    """The tests on one shared grid of the coarse bins any of them uses: per test its slot matrix, its time step
    and its whole-test quantiles (exact where given, else the fine histogram's; NaN where it has no responses)."""

    lower: FloatArray
    upper: FloatArray
    counts: list[int]
    matrices: list[FloatArray]
    steps: list[int]
    points: list[FloatArray]
    exact: list[bool]


def _grid(
    tests: Sequence[SparseCounts], levels: tuple[float, ...], exact_ms: Sequence[Sequence[float] | None] | None
) -> _Grid:
    fine = list(tests)
    coarse = [coarsen(t) for t in tests]
    used = np.unique(np.concatenate([t.keys for t in coarse])) if coarse else np.zeros(0, dtype=np.int64)
    index = np.full(BIN_COUNT, -1, dtype=np.int64)
    index[used] = np.arange(used.size)
    points: list[FloatArray] = []
    for i, test in enumerate(coarse):
        given = exact_ms[i] if exact_ms is not None else None
        if test.total == 0:
            points.append(np.full(len(levels), np.nan))
        else:
            points.append(
                np.asarray(given, dtype=np.float64) if given is not None else _fine_quantiles(fine[i], levels)
            )
    return _Grid(
        lower=COARSE_LOWER_MS[used],
        upper=UPPER_MS[used],
        counts=[t.total for t in coarse],
        matrices=[_slot_matrix(t, index, used.size) for t in coarse],
        steps=[time_step_s(t) for t in coarse],
        points=points,
        exact=[exact_ms is not None and exact_ms[i] is not None for i in range(len(coarse))],
    )


@dataclass
class _PairRow:
    """One test's row against the baseline: the whole-test differences and, per level, the judged change."""

    diff_ms: list[float | None]
    diff_pct: list[float | None]
    change_pct: list[float | None] = field(default_factory=list)
    interval_pct: list[tuple[float, float] | None] = field(default_factory=list)
    verdict: list[Verdict | None] = field(default_factory=list)
    notes: dict[float, str] = field(default_factory=dict)
    block_s: float = 0.0
    warmup_s: int = 0

    def not_judged(self) -> None:
        self.change_pct.append(None)
        self.interval_pct.append(None)
        self.verdict.append(None)


def _paired_for(
    grid: _Grid,
    i: int,
    levels: tuple[float, ...],
    judged: npt.NDArray[np.bool_],
    tau_s: Sequence[float] | None,
    cfg: CompareSettings,
) -> tuple[_Paired | None, int, int]:
    """Test i's paired block test against the baseline, its time step and the warm-up slots it leaves out."""
    # Each pair on its own: its random sign patterns, what it can judge and its warm-up depend on these two tests
    # only, so adding a test to a comparison changes no other pair's verdict.
    rng = np.random.default_rng(cfg.seed)
    base, other = grid.matrices[0], grid.matrices[i]
    step = max(grid.steps[0], grid.steps[i])
    if tau_s is not None:
        tau = max(float(tau_s[0]), float(tau_s[i]))
    else:
        tau = _paired_correlation_time_s(base, other, grid.lower, grid.upper) * step
    skip = max(_warmup_slots(base, grid.lower, grid.upper), _warmup_slots(other, grid.lower, grid.upper))
    paired = _paired_log_test(
        base[skip:], other[skip:], grid.lower, grid.upper, levels, judged, step, math.ceil(tau / step), cfg, rng
    )
    return paired, step, skip


def _pair_row(
    grid: _Grid, i: int, levels: tuple[float, ...], tau_s: Sequence[float] | None, cfg: CompareSettings
) -> _PairRow:
    d = grid.points[i] - grid.points[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(grid.points[0] > 0, d / grid.points[0] * 100.0, np.nan)
    row = _PairRow(diff_ms=[_none_if_nan(v) for v in d], diff_pct=[_none_if_nan(v) for v in rel])
    judged = np.array([_judgeable(level, [grid.counts[0], grid.counts[i]], cfg.min_tail) for level in levels], bool)
    row.notes = {
        level: NOT_ENOUGH_TAIL.format(min_tail=cfg.min_tail) for level, ok in zip(levels, judged, strict=True) if not ok
    }
    paired, step, skip = _paired_for(grid, i, levels, judged, tau_s, cfg)
    row.warmup_s = skip * step if paired is not None else 0
    row.block_s = paired.block_s if paired is not None else 0.0
    for j, level in enumerate(levels):
        if np.isnan(d[j]):
            row.not_judged()
            row.notes.setdefault(level, "a test has no responses")
            continue
        if paired is None or not paired.judged[j]:
            row.notes.setdefault(level, NOT_ENOUGH_STRETCHES)
            row.not_judged()
            continue
        _judge_level(row, grid, i, j, level, float(d[j]), paired, row.warmup_s, cfg)
    return row


def _judge_level(
    row: _PairRow,
    grid: _Grid,
    i: int,
    j: int,
    level: float,
    d_ms: float,
    paired: _Paired,
    warmup_s: int,
    cfg: CompareSettings,
) -> None:
    """Level j's judged change, its interval and verdict (None, with the reason, where the figures disagree)."""
    low_pct, high_pct = math.expm1(paired.low_log[j]) * 100.0, math.expm1(paired.high_log[j]) * 100.0
    row.change_pct.append(math.expm1(paired.mean_log[j]) * 100.0)
    row.interval_pct.append((low_pct, high_pct))
    base = float(grid.points[0][j])
    floor_pct = cfg.rel_floor * 100.0
    if not (grid.exact[0] and grid.exact[i]) and base > 0:
        floor_pct = max(floor_pct, _bin_width_ms(base) / base * 100.0)
    judged_verdict = _verdict(low_pct, high_pct, floor_pct, higher_is_worse=True)
    slower = judged_verdict == "worse"
    if judged_verdict != "same" and not (d_ms > 0 if slower else d_ms < 0):
        # Stretch by stretch one way, the whole test the other (or not at all): a verdict either way would
        # contradict one of the two figures the page shows.
        row.notes[level] = OPPOSITE_SIGNS + (WARMUP_IN_WINDOW.format(warmup_s=warmup_s) if warmup_s else "")
        row.verdict.append(None)
        return
    row.verdict.append(judged_verdict)


def compare_quantiles(
    tests: Sequence[SparseCounts],
    levels: Sequence[float] = DEFAULT_LEVELS,
    *,
    exact_ms: Sequence[Sequence[float] | None] | None = None,
    tau_s: Sequence[float] | None = None,
    settings: CompareSettings | None = None,
) -> QuantileComparison:
    """Compare response-time quantiles of tests[1:] against tests[0].

    `tests` are per-second histograms on the tank grid (keys = bin indexes), or already coarsened.
    `exact_ms[i]`, when given, holds test i's exact quantiles (order statistics of its raw samples, one per
    level); they are reported and differenced. Without them the reported values are quantiles of the histograms
    on the tank's grid. The verdicts and intervals come from the paired block test (module docstring).
    `tau_s` gives each test's correlation time (s), the shortest block worth using (a case can borrow its
    test's); by default it is estimated from the paired series of per-second medians.
    """
    cfg = settings or CompareSettings()
    levels_t = tuple(float(x) for x in levels)
    grid = _grid(tests, levels_t, exact_ms)
    values: list[list[float | None]] = [[_none_if_nan(v) for v in p] for p in grid.points]
    if not tests:
        return QuantileComparison(levels_t, grid.counts, values, [], [], [], [], [], [], [], [])
    nones: list[None] = [None] * len(levels_t)
    zeros = [None if np.isnan(v) else 0.0 for v in grid.points[0]]
    baseline = _PairRow(list(zeros), list(zeros), list(nones), list(nones), list(nones))
    rows = [baseline, *(_pair_row(grid, i, levels_t, tau_s, cfg) for i in range(1, len(tests)))]
    return QuantileComparison(
        levels_t,
        grid.counts,
        values,
        [r.diff_ms for r in rows],
        [r.diff_pct for r in rows],
        [r.change_pct for r in rows],
        [r.interval_pct for r in rows],
        [r.verdict for r in rows],
        [r.notes for r in rows],
        [r.block_s for r in rows],
        [r.warmup_s for r in rows],
    )


def _warmup_slots(matrix: FloatArray, lower: FloatArray, upper: FloatArray) -> int:
    """Slots of a warm-up at the start: the first slots whose median is above WARMUP_RATIO × the median of the
    test's second half (at most a third of the test). They are left out of the paired test: a warm-up differs from
    run to run far more than the service does, and says nothing about the service's steady speed."""
    n = matrix.shape[0]
    if n < 6:
        return 0
    medians = _block_quantiles_ms(matrix, lower, upper, 50.0)
    steady = float(np.nanmedian(medians[n // 2 :])) if np.isfinite(medians[n // 2 :]).any() else math.nan
    if not math.isfinite(steady) or steady <= 0:
        return 0
    slow = np.flatnonzero(np.nan_to_num(medians[: n // 3], nan=0.0) > WARMUP_RATIO * steady)
    return int(slow.max()) + 1 if slow.size else 0


def _paired_correlation_time_s(base: FloatArray, other: FloatArray, lower: FloatArray, upper: FloatArray) -> float:
    """Correlation time (in slots) of the per-slot log-median ratio of two tests, as `correlation_time_s` reads it.

    The difference, not each test's own series: a warm-up both tests share cancels in it, a drift of either does
    not."""
    n = min(base.shape[0], other.shape[0])
    if n < 4:
        return 1.0
    qa = _block_quantiles_ms(base[:n], lower, upper, 50.0)
    qb = _block_quantiles_ms(other[:n], lower, upper, 50.0)
    ok = np.isfinite(qa) & np.isfinite(qb)
    series = np.log(np.maximum(qb[ok], LOG_FLOOR_MS)) - np.log(np.maximum(qa[ok], LOG_FLOOR_MS))
    return _ar1_time(series)


def _ar1_time(series: FloatArray) -> float:
    """(1 + φ) / (1 - φ), in steps of `series`, for the AR(1) coefficient φ read off its autocorrelations (1 when
    fewer than 4 points or no spread)."""
    if series.size < 4:
        return 1.0
    centred = series - series.mean()
    denom = float((centred * centred).sum())
    if denom <= 0:
        return 1.0
    rho1 = float((centred[1:] * centred[:-1]).sum()) / denom
    rho2 = float((centred[2:] * centred[:-2]).sum()) / denom
    # Per-step noise (a median of few responses) lowers every autocorrelation by the same factor; an AR(1) drift
    # under it keeps rho2 / rho1 = its own coefficient. Trust that ratio only when rho1 stands clear of 0.
    phi = rho2 / rho1 if rho1 > 0.2 and rho2 > 0 else rho1
    phi = min(max(phi, 0.0), 0.95)
    return (1.0 + phi) / (1.0 - phi)


def _small_sample_factor(n_blocks: int) -> float:
    return float(np.sqrt(n_blocks / (n_blocks - 1))) if n_blocks > 1 else 1.0


def _per_key(data: SparseCounts, key_index: dict[int, int], column_values: FloatArray) -> FloatArray:
    """A lookup array from key to value (codes can be large, so indexed by a dense array up to the max key)."""
    size = int(data.keys.max()) + 1 if data.keys.size else 1
    out = np.zeros(max(size, 1))
    for key, col in key_index.items():
        if 0 <= key < out.size:
            out[key] = column_values[col]
    return out


def _fine_quantiles(data: SparseCounts, levels: Sequence[float]) -> FloatArray:
    dense: FloatArray = np.bincount(data.keys, weights=data.counts.astype(np.float64), minlength=BIN_COUNT).astype(
        np.float64
    )
    out: FloatArray = hist_quantiles_ms(dense, LOWER_MS, UPPER_MS, levels)[0]
    return out


def _judgeable(level: float, counts: Sequence[int], min_tail: int) -> bool:
    return all(n * (100.0 - level) / 100.0 >= min_tail and n * level / 100.0 >= min_tail for n in counts)


def _bin_width_ms(value_ms: float) -> float:
    idx = int(np.searchsorted(UPPER_MS, value_ms, side="left"))
    idx = min(max(idx, 1), BIN_COUNT - 1)
    return float(UPPER_MS[idx] - LOWER_MS[idx])


def _none_if_nan(value: float) -> float | None:
    return None if not np.isfinite(value) else float(value)


def compare_codes(
    tests: Sequence[SparseCounts], kind: CodeKind, settings: CompareSettings | None = None
) -> CodeComparison:
    """Compare the share of each code (HTTP or net) of tests[1:] against tests[0], with block-bootstrap bands.

    A failing code (analytics.definitions.is_failing_code) whose share grows beyond noise is `worse`; a successful
    code (HTTP 2xx, net 0) that grows is `better`. Each pair is resampled on its own (the same draws whatever other
    tests are compared): adding a test changes no other pair's verdict.
    """
    cfg = settings or CompareSettings()
    codes = sorted({int(k) for t in tests for k in np.unique(t.keys)})
    key_index = {code: i for i, code in enumerate(codes)}
    names = [str(c) for c in codes]
    totals = [t.totals_by_key() for t in tests]
    counts = {name: [tot.get(code, 0) for tot in totals] for name, code in zip(names, codes, strict=True)}
    grand = [max(sum(tot.values()), 0) for tot in totals]
    share = {name: [(cnt / g if g else None) for cnt, g in zip(counts[name], grand, strict=True)] for name in names}
    bad = np.array([float(is_failing_code(kind, c)) for c in codes])
    matrices: list[FloatArray] = []
    points: list[FloatArray] = []
    for test, g in zip(tests, grand, strict=True):
        matrix = _block_matrix(
            test, key_index, len(codes), correlation_time_s(test, _per_key(test, key_index, bad), robust=False)
        )
        matrices.append(matrix)
        points.append(matrix.sum(axis=0) / g if g else np.full(len(codes), np.nan))

    def deviations(matrix: FloatArray, point: FloatArray, rng: np.random.Generator) -> FloatArray:
        res = _resample(matrix, cfg.n_resamples, rng)
        out: FloatArray = (res / res.sum(axis=1, keepdims=True) - point) * _small_sample_factor(matrix.shape[0])
        return out

    share_diff: dict[str, list[float | None]] = {n: [0.0 if grand and grand[0] else None] for n in names}
    interval: dict[str, list[tuple[float, float] | None]] = {n: [None] for n in names}
    verdict: dict[str, list[Verdict | None]] = {n: [None] for n in names}
    for i in range(1, len(tests)):
        d = points[i] - points[0]
        if matrices[0].shape[0] == 0 or matrices[i].shape[0] == 0:
            for j, name in enumerate(names):
                share_diff[name].append(_none_if_nan(float(d[j])) if d.size else None)
                interval[name].append(None)
                verdict[name].append(None)
            continue
        rng = np.random.default_rng(cfg.seed + 1)
        base_boot = deviations(matrices[0], points[0], rng)
        dev = deviations(matrices[i], points[i], rng) - base_boot
        sd = dev.std(axis=0)
        c = _band_constant(dev, sd, cfg.confidence)
        for j, name in enumerate(names):
            low, high = float(d[j] - c * sd[j]), float(d[j] + c * sd[j])
            share_diff[name].append(float(d[j]))
            interval[name].append((low, high))
            verdict[name].append(_verdict(low, high, cfg.share_floor, higher_is_worse=is_failing_code(kind, codes[j])))
    share_out = {n: [None if v is None else float(v) for v in vals] for n, vals in share.items()}
    return CodeComparison(counts, share_out, share_diff, interval, verdict)
