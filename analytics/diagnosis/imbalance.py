"""Where the service stopped keeping up ("разладка"): the imbalance point of a ramp, or overload of a steady test.

Three per-second criteria, each smoothed by a 5 s rolling median so that one bad second decides nothing:
- behind: answered responses (not timed out, not discarded) below 90 % of the planned RPS;
- errors: the error share above max(5 %, 3 × its level in the first, lightest seconds);
- latency: q95 above max(3 × its early level, early level + 50 ms).
A criterion fires at the first second that starts a sustained bad stretch (`first_sustained`); the imbalance is
the earliest criterion. The latency onset is then placed precisely by a mean-shift change point on log q95 near
it (a threshold crossing lags a jump by a second or two; the change point sits on the jump), and counts only
where q95 jumped there (three times its level of the ten seconds before), not where it grew with the load.
A steady test with no onset is also checked for a regime change of its quantiles (a significant mean shift of
log q95 by 1.5× or more), which catches a service that degraded without falling behind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from analytics.diagnosis.changepoint import mean_shift
from analytics.diagnosis.types import FloatArray, TestSeries, first_sustained, rolling_median

SMOOTH_S = 5
BEHIND_RATIO = 0.9
REGIME_MIN_RATIO = 1.5
LATENCY_JUMP_RATIO = 3.0
REGIME_MIN_STATISTIC = 8.0


@dataclass(frozen=True)
class Criteria:
    """Per-second booleans and the signals behind them: each criterion compares its smoothed signal with its
    threshold, and a finding quotes both (what it says and the figure beside it come from here)."""

    answered_rps: FloatArray
    error_share: FloatArray
    behind: npt.NDArray[np.bool_]
    errors: npt.NDArray[np.bool_]
    latency: npt.NDArray[np.bool_]
    baseline_q95_ms: float
    baseline_error_share: float
    smooth_answered_rps: FloatArray  # behind: this < BEHIND_RATIO × smooth_planned_rps
    smooth_planned_rps: FloatArray
    smooth_error_share: FloatArray  # errors: this > error_threshold
    error_threshold: float
    smooth_q95_ms: FloatArray  # latency: this > latency_threshold_ms
    latency_threshold_ms: float


@dataclass(frozen=True)
class Onset:
    index: int
    criterion: str  # behind | errors | latency
    end_index: int  # first second after the bad stretch (len(series) if it lasted to the end)


def _early(n: int) -> slice:
    return slice(0, max(5, int(0.15 * n)))


def criteria(series: TestSeries, planned_rps: FloatArray) -> Criteria:
    answered = np.maximum(series.resps - series.timeouts - series.discarded, 0.0)
    sent = np.maximum(series.resps - series.discarded, 0.0)
    error_share = np.divide(series.errors, sent, out=np.zeros_like(sent), where=sent > 0)
    smooth_answered = rolling_median(answered, SMOOTH_S)
    smooth_errors = rolling_median(error_share, SMOOTH_S)
    smooth_q95 = rolling_median(series.q95_ms, SMOOTH_S)

    early = _early(len(series))
    has_answers = series.resps[early] > 0
    # The lower quartile: a generator's first seconds (connections, its own start-up) can be slow for a while.
    baseline_q95 = float(np.percentile(series.q95_ms[early][has_answers], 25)) if has_answers.any() else 0.0
    baseline_err = float(np.median(error_share[early])) if len(series) else 0.0

    planned_known = np.isfinite(planned_rps) & (planned_rps >= 1.0)
    # Smoothed like the answers, so a step change (which answers follow a little late, and which a scheme laid
    # out from the first response second may place up to a second early) is not a deficit.
    safe_planned = rolling_median(np.where(planned_known, planned_rps, 0.0), SMOOTH_S)
    behind = planned_known & (smooth_answered < BEHIND_RATIO * safe_planned)
    error_threshold = max(0.05, 3.0 * baseline_err)
    errors = smooth_errors > error_threshold
    latency_threshold = max(3.0 * baseline_q95, baseline_q95 + 50.0) if baseline_q95 > 0 else math.inf
    latency = smooth_q95 > latency_threshold
    return Criteria(
        answered,
        error_share,
        behind,
        errors,
        latency,
        baseline_q95,
        baseline_err,
        smooth_answered,
        safe_planned,
        smooth_errors,
        error_threshold,
        smooth_q95,
        latency_threshold,
    )


def _refine_latency(q95_ms: FloatArray, index: int) -> int:
    lo, hi = max(0, index - 20), min(q95_ms.size, index + 20)
    window = np.log(np.maximum(q95_ms[lo:hi], 1e-3))
    shift = mean_shift(window, min_size=3)
    if shift is None or shift.after <= shift.before:
        return index
    refined = lo + shift.index
    return refined if abs(refined - index) <= 10 else index


def _stretch_end(bad: npt.NDArray[np.bool_], start: int, quiet_s: int = SMOOTH_S) -> int:
    """First second after `start` that begins `quiet_s` good seconds in a row (len(bad) if none)."""
    good_run = 0
    for i in range(start, bad.size):
        good_run = 0 if bad[i] else good_run + 1
        if good_run >= quiet_s:
            return i - quiet_s + 1
    return int(bad.size)


def find_onset(series: TestSeries, crit: Criteria, *, ramp: bool = True) -> Onset | None:
    """The earliest sustained onset over the criteria.

    A ramp past its breaking point does not recover, so there a bad stretch must also hold for half of the rest
    of the test. A steady test can break for a while and recover (a pause, a failover): there 8 of 10 seconds
    bad suffice, and the end of the stretch is reported too. In a steady test slower answers alone, while the
    service keeps up with the plan and makes no errors, are a regime change, not an overload: latency is not a
    criterion there.
    """
    onsets: list[Onset] = []
    checks = [("behind", crit.behind), ("errors", crit.errors)]
    if ramp:
        checks.append(("latency", crit.latency))
    for name, bad in checks:
        index = first_sustained(bad) if ramp else first_sustained(bad, window=10, share=0.8, tail_share=0.0)
        if index >= 0 and name == "latency":
            index = _latency_onset(series, bad, index)
        if index >= 0:
            onsets.append(Onset(index, name, _stretch_end(bad, index)))
    if not onsets:
        return None
    return min(onsets, key=lambda o: (o.index, o.criterion))


def _latency_onset(series: TestSeries, bad: npt.NDArray[np.bool_], index: int) -> int:
    """The first sustained stretch of slow seconds where q95 jumped (`latency_jumped`), from `index` on; -1 if none.

    A stretch it did not jump into (the slow first seconds of a warm-up, response times that grew with the load) is
    passed over for the next one."""
    while index >= 0:
        refined = _refine_latency(series.q95_ms, index)
        if latency_jumped(series.q95_ms, series.resps, refined):
            return refined
        after = _stretch_end(bad, index)
        if after >= bad.size:
            return -1
        later = first_sustained(bad[after:])
        index = after + later if later >= 0 else -1
    return -1


JUMP_WINDOW_S = 10


def around(values: FloatArray, resps: FloatArray, index: int, window_s: int = JUMP_WINDOW_S) -> tuple[float, float]:
    """The median of `values` over the `window_s` seconds before `index` and over those from it (seconds without
    responses left out; NaN where there are none): the "before" and "after" a finding quotes."""
    lo, hi = max(0, index - window_s), index + window_s
    before = values[lo:index][resps[lo:index] > 0]
    after = values[index:hi][resps[index:hi] > 0]
    return (
        float(np.median(before)) if before.size else math.nan,
        float(np.median(after)) if after.size else math.nan,
    )


def latency_jumped(q95_ms: FloatArray, resps: FloatArray, index: int) -> bool:
    """Did q95 jump at `index`, not merely drift up with the load? Its median over the next JUMP_WINDOW_S seconds
    must be LATENCY_JUMP_RATIO times the median over the previous ones (`around`). A ramp's response times grow
    with its load; only a jump marks where the service stopped keeping up (a 10 % step of q95 while every request
    is served is not one)."""
    before, after = around(q95_ms, resps, index)
    # Without seconds before it (the test's first seconds) nothing tells a jump from a slow start.
    return math.isfinite(before) and math.isfinite(after) and after >= LATENCY_JUMP_RATIO * before


@dataclass(frozen=True)
class RegimeChange:
    index: int
    before_ms: float
    after_ms: float
    statistic: float


def regime_change(q95_ms: FloatArray, resps: FloatArray) -> RegimeChange | None:
    """A significant, large shift of log q95 in a test that otherwise kept up (seconds without answers ignored)."""
    keep = resps > 0
    idx = np.flatnonzero(keep)
    if idx.size < 20:
        return None
    logq = np.log(np.maximum(q95_ms[keep], 1e-3))
    shift = mean_shift(logq, min_size=10)
    if shift is None:
        return None
    ratio = float(np.exp(abs(shift.after - shift.before)))
    if ratio < REGIME_MIN_RATIO or shift.statistic < REGIME_MIN_STATISTIC:
        return None
    return RegimeChange(int(idx[shift.index]), float(np.exp(shift.before)), float(np.exp(shift.after)), shift.statistic)


ERROR_REGIME_MIN_SHIFT = 0.01  # one percentage point of requests


@dataclass(frozen=True)
class ErrorRegimeChange:
    index: int
    before_share: float
    after_share: float


def error_regime_change(error_share: FloatArray, resps: FloatArray) -> ErrorRegimeChange | None:
    """A lasting rise of the error share below the overload level (5 %): at least one percentage point and three
    times the earlier level, found as the best mean shift of the per-second share. The effect size decides, not
    the statistic: with errors rare, second-to-second noise is mostly zero and any shift looks significant."""
    keep = resps > 0
    idx = np.flatnonzero(keep)
    if idx.size < 20:
        return None
    shift = mean_shift(error_share[keep], min_size=10)
    if shift is None:
        return None
    if shift.after - shift.before < ERROR_REGIME_MIN_SHIFT or shift.after < 3.0 * shift.before:
        return None
    return ErrorRegimeChange(int(idx[shift.index]), shift.before, shift.after)
