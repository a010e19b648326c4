"""Test-vs-test comparison with verdicts: is a difference of a quantile (or of an error share) beyond noise?

Pure: numpy arrays in, dataclasses out. The method, in short (docs/compare.md says it in plain words):

* Every test is reduced to per-second histograms of response time on the tank's bin grid
  (`analytics.histogram`), whatever its source: raw samples are binned, streamed tests already are. That keeps
  10M-sample tests cheap (a few hundred bins per second instead of millions of values).
* Neighbouring seconds are correlated (a GC pause or a slow disk shifts a whole stretch of seconds), so
  resampling single requests would understate the noise. We resample *blocks* of consecutive seconds
  (non-overlapping blocks of about n_seconds^(1/3) seconds, the usual rule for block bootstraps) with
  replacement, each test independently, and recompute the quantiles of each resampled histogram.
* The interval of a difference is a simultaneous bootstrap band over all judged levels (max-|t|): one
  constant `c` such that in 97% of the resamples every level's difference lies within `c` standard errors of
  its estimate, widened to a Student-t quantile for the number of blocks (standard errors estimated from few
  blocks are uncertain themselves). So "same at every level" holds in >= 95% of same-distribution comparisons
  (measured: 98-98.5% with correlated seconds, 99% with independent ones, 95% with strongly correlated ones),
  not merely 95% per level.
* A verdict is `worse`/`better` only when the whole interval lies beyond a floor: 1% of the baseline value (run-
  to-run drift that no within-run resampling can see) or one histogram bin for inexact data. Levels with fewer
  than `min_tail` responses beyond them (e.g. the maximum) cannot be told from noise: `same`, with a note.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from analytics.histogram import BIN_COUNT, BIN_EDGES_US, histogram_quantiles

FloatArray = npt.NDArray[np.float64]
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
LOG_BASE = 1.0 + COARSE_REL_WIDTH


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
    rel_floor: float = 0.01  # a quantile difference under 1% of the baseline is never called real
    share_floor: float = 0.001  # nor is a code share difference under 0.1 percentage point
    min_tail: int = 10  # responses needed beyond a level (in each test) to judge it
    seed: int = 20170424  # fixed: the same data always gives the same verdicts (and cache entries agree)


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
    if series.size < 4:
        return 1.0
    centred = series - series.mean()
    denom = float((centred * centred).sum())
    if denom <= 0:
        return 1.0
    rho1 = float((centred[1:] * centred[:-1]).sum()) / denom
    rho2 = float((centred[2:] * centred[:-2]).sum()) / denom
    # Per-second noise (a median of few responses) lowers every autocorrelation by the same factor; an AR(1)
    # drift under it keeps rho2 / rho1 = its own coefficient. Trust that ratio only when rho1 stands clear of 0.
    phi = rho2 / rho1 if rho1 > 0.2 and rho2 > 0 else rho1
    phi = min(max(phi, 0.0), 0.95)
    return (1.0 + phi) / (1.0 - phi) * time_step_s(data)


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
    """Quantiles of histograms (rows of `counts`) by the one histogram rule (`analytics.histogram`).

    Returns (rows × levels); NaN where a histogram is empty.
    """
    out: FloatArray = np.atleast_2d(histogram_quantiles(np.atleast_2d(counts), levels, lower_ms, upper_ms))
    return out


@dataclass(frozen=True)
class QuantileComparison:
    """Per test (first = baseline) and per level: value, difference, its interval and the verdict."""

    levels: tuple[float, ...]
    counts: list[int]
    values_ms: list[list[float | None]]
    diff_ms: list[list[float | None]]
    interval_ms: list[list[tuple[float, float] | None]]
    verdict: list[list[str | None]]
    notes: dict[float, str] = field(default_factory=dict)
    tau_s: list[float] = field(default_factory=list)  # the correlation time used for each test


@dataclass(frozen=True)
class CodeComparison:
    """Per code (as text) and per test: counts, shares, share difference against the baseline and a verdict."""

    counts: dict[str, list[int]]
    share: dict[str, list[float | None]]
    share_diff: dict[str, list[float | None]]
    interval: dict[str, list[tuple[float, float] | None]]
    verdict: dict[str, list[str | None]]


def _band_constant(deviations: FloatArray, sd: FloatArray, confidence: float) -> float:
    """c such that max over columns of |deviation| / sd stays under c in `confidence` of the rows (max-|t|)."""
    usable = sd > 0
    if not usable.any():
        return 0.0
    t = np.abs(deviations[:, usable]) / sd[usable]
    return float(np.quantile(t.max(axis=1), confidence))


def _verdict(low: float, high: float, floor: float, higher_is_worse: bool) -> str:
    if low > floor:
        return "worse" if higher_is_worse else "better"
    if high < -floor:
        return "better" if higher_is_worse else "worse"
    return "same"


def _round(value: float, digits: int = 3) -> float:
    return float(round(value, digits))


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
    level); they are reported and differenced, while the noise comes from the block bootstrap of the
    histograms. Without them the reported values are quantiles of the histograms on the tank's grid.
    `tau_s` overrides the correlation times estimated from the data (a case can borrow its test's).
    """
    cfg = settings or CompareSettings()
    levels_t = tuple(float(x) for x in levels)
    rng = np.random.default_rng(cfg.seed)
    # Only bins that hold data in some test matter: a few hundred columns instead of 3721.
    fine = list(tests)
    tests = [coarsen(t) for t in tests]
    used = np.unique(np.concatenate([t.keys for t in tests])) if tests else np.zeros(0, dtype=np.int64)
    index = np.full(BIN_COUNT, -1, dtype=np.int64)
    index[used] = np.arange(used.size)
    lower, upper = COARSE_LOWER_MS[used], UPPER_MS[used]

    counts = [t.total for t in tests]
    points: list[FloatArray] = []
    boots: list[FloatArray | None] = []
    taus: list[float] = []
    blocks: list[int] = []
    for i, test in enumerate(tests):
        tau = float(tau_s[i]) if tau_s is not None else correlation_time_s(test, MID_MS)
        taus.append(tau)
        matrix = _block_matrix(test, index, used.size, tau)
        blocks.append(int(matrix.shape[0]))
        if matrix.shape[0] == 0:
            points.append(np.full(len(levels_t), np.nan))
            boots.append(None)
            continue
        hist_point = hist_quantiles_ms(matrix.sum(axis=0), lower, upper, levels_t)[0]
        given = exact_ms[i] if exact_ms is not None else None
        points.append(np.asarray(given, dtype=np.float64) if given is not None else _fine_quantiles(fine[i], levels_t))
        resampled = hist_quantiles_ms(_resample(matrix, cfg.n_resamples, rng), lower, upper, levels_t)
        # Deviations of the resamples from the histogram estimate they scatter around.
        boots.append((resampled - hist_point) * _small_sample_factor(matrix.shape[0]))

    judged = np.array([_judgeable(level, counts, cfg.min_tail) for level in levels_t], dtype=bool)
    notes = {
        level: f"fewer than {cfg.min_tail} responses beyond this level in a test: cannot be told from noise"
        for level, ok in zip(levels_t, judged, strict=True)
        if not ok
    }
    exact_flags = [exact_ms is not None and exact_ms[i] is not None for i in range(len(tests))]
    values: list[list[float | None]] = [[_none_if_nan(v) for v in p] for p in points]
    diff: list[list[float | None]] = [[None if np.isnan(v) else 0.0 for v in points[0]]] if tests else []
    interval: list[list[tuple[float, float] | None]] = [[None] * len(levels_t)] if tests else []
    verdict: list[list[str | None]] = [[None] * len(levels_t)] if tests else []
    base_boot = boots[0] if tests else None
    for i in range(1, len(tests)):
        d = points[i] - points[0]
        diff.append([_none_if_nan(v) for v in d])
        other_boot = boots[i]
        if base_boot is None or other_boot is None:
            interval.append([None] * len(levels_t))
            verdict.append([None] * len(levels_t))
            continue
        dev = other_boot - base_boot
        sd = dev.std(axis=0)
        c = _student_widening(_band_constant(dev[:, judged], sd[judged], cfg.confidence), min(blocks[0], blocks[i]))
        row_int: list[tuple[float, float] | None] = []
        row_ver: list[str | None] = []
        for j in range(len(levels_t)):
            if not judged[j] or np.isnan(d[j]):
                row_int.append(None)
                row_ver.append("same" if not np.isnan(d[j]) else None)
                continue
            low, high = float(d[j] - c * sd[j]), float(d[j] + c * sd[j])
            row_int.append((_round(low), _round(high)))
            floor = cfg.rel_floor * abs(float(points[0][j]))
            if not (exact_flags[0] and exact_flags[i]):
                floor = max(floor, _bin_width_ms(float(points[0][j])))
            row_ver.append(_verdict(low, high, floor, higher_is_worse=True))
        interval.append(row_int)
        verdict.append(row_ver)
    return QuantileComparison(levels_t, counts, values, diff, interval, verdict, notes, taus)


def _student_widening(c: float, n_blocks: int) -> float:
    """The Student-t quantile with n_blocks - 1 degrees of freedom at the tail probability of normal quantile c.

    The bootstrap treats its standard errors as known; estimated from b blocks they are not, which matters
    when seconds stay correlated for long and blocks are few (Cornish-Fisher expansion of t in 1/ν).
    """
    nu = max(n_blocks - 1, 2)
    return c + (c**3 + c) / (4 * nu) + (5 * c**5 + 16 * c**3 + 3 * c) / (96 * nu**2)


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
    return None if np.isnan(value) else _round(float(value))


def is_bad_code(kind: str, code: int) -> bool:
    """HTTP 4xx/5xx and 0 (no answer) are failures; for net codes anything but 0 is."""
    if kind == "net":
        return code != 0
    return code == 0 or code >= 400


def compare_codes(tests: Sequence[SparseCounts], kind: str, settings: CompareSettings | None = None) -> CodeComparison:
    """Compare the share of each code (HTTP or net) of tests[1:] against tests[0], with block-bootstrap bands.

    A failing code whose share grows beyond noise is `worse`; a successful code (HTTP 2xx, net 0) that grows is
    `better`.
    """
    cfg = settings or CompareSettings()
    rng = np.random.default_rng(cfg.seed + 1)
    codes = sorted({int(k) for t in tests for k in np.unique(t.keys)})
    key_index = {code: i for i, code in enumerate(codes)}
    names = [str(c) for c in codes]
    totals = [t.totals_by_key() for t in tests]
    counts = {name: [tot.get(code, 0) for tot in totals] for name, code in zip(names, codes, strict=True)}
    grand = [max(sum(tot.values()), 0) for tot in totals]
    share = {name: [(cnt / g if g else None) for cnt, g in zip(counts[name], grand, strict=True)] for name in names}
    boots: list[FloatArray | None] = []
    points: list[FloatArray] = []
    for test, g in zip(tests, grand, strict=True):
        bad = np.array([float(is_bad_code(kind, c)) for c in codes])
        matrix = _block_matrix(
            test, key_index, len(codes), correlation_time_s(test, _per_key(test, key_index, bad), robust=False)
        )
        point = matrix.sum(axis=0) / g if g else np.full(len(codes), np.nan)
        points.append(point)
        if matrix.shape[0] == 0:
            boots.append(None)
            continue
        res = _resample(matrix, cfg.n_resamples, rng)
        boots.append((res / res.sum(axis=1, keepdims=True) - point) * _small_sample_factor(matrix.shape[0]))

    share_diff: dict[str, list[float | None]] = {n: [0.0 if grand and grand[0] else None] for n in names}
    interval: dict[str, list[tuple[float, float] | None]] = {n: [None] for n in names}
    verdict: dict[str, list[str | None]] = {n: [None] for n in names}
    for i in range(1, len(tests)):
        d = points[i] - points[0]
        base_boot, other_boot = boots[0], boots[i]
        if base_boot is None or other_boot is None:
            for j, name in enumerate(names):
                share_diff[name].append(_none_if_nan(float(d[j])) if d.size else None)
                interval[name].append(None)
                verdict[name].append(None)
            continue
        dev = other_boot - base_boot
        sd = dev.std(axis=0)
        c = _band_constant(dev, sd, cfg.confidence)
        for j, name in enumerate(names):
            low, high = float(d[j] - c * sd[j]), float(d[j] + c * sd[j])
            share_diff[name].append(_round(float(d[j]), 6))
            interval[name].append((_round(low, 6), _round(high, 6)))
            verdict[name].append(_verdict(low, high, cfg.share_floor, higher_is_worse=is_bad_code(kind, codes[j])))
    share_out = {n: [None if v is None else _round(v, 6) for v in vals] for n, vals in share.items()}
    return CodeComparison(counts, share_out, share_diff, interval, verdict)
