"""Ramp alignment and the compare figures: the same quantile at the same RPS; overlaid, start-aligned charts."""

from __future__ import annotations

import numpy as np

from analytics.compare import SparseCounts, hist_from_values_ms
from analytics.compare_load import compare_by_load, rps_per_second
from analytics.figures_compare import (
    VERDICT_COLOURS,
    by_load_figure,
    distribution_figure,
    quantiles_figure,
    timeline_quantiles,
)


def _ramp(rng: np.random.Generator, duration_s: int, top_rps: int, knee_rps: float, start: int = 0) -> SparseCounts:
    """A line(1, top, duration) ramp: latency 50 ms until `knee_rps`, then growing with the load."""
    seconds: list[np.ndarray] = []
    values: list[np.ndarray] = []
    for s in range(duration_s):
        rps = max(1, round(1 + (top_rps - 1) * s / (duration_s - 1)))
        base = 50.0 * (1.0 + max(0.0, rps - knee_rps) / 20.0)
        seconds.append(np.full(rps, start + s))
        values.append(rng.lognormal(np.log(base), 0.2, rps))
    return hist_from_values_ms(np.concatenate(seconds), np.concatenate(values))


def test_ramps_of_different_slopes_compare_at_the_same_load() -> None:
    rng = np.random.default_rng(1)
    slow_ramp = _ramp(rng, 240, 100, knee_rps=60)
    fast_ramp = _ramp(rng, 120, 100, knee_rps=60, start=5000)
    result = compare_by_load([slow_ramp, fast_ramp], (50.0,))
    assert len(result.bands) >= 5
    # Same latency at the same load, though the second ramp reaches each load twice as early.
    assert all(band.comparison.verdict[1][0] == "same" for band in result.bands)


def test_a_lower_knee_is_worse_at_high_load_only() -> None:
    rng = np.random.default_rng(2)
    before = _ramp(rng, 200, 100, knee_rps=80)
    after = _ramp(rng, 200, 100, knee_rps=40)
    result = compare_by_load([before, after], (50.0,))
    verdicts = [band.comparison.verdict[1][0] for band in result.bands]
    low_load = [v for band, v in zip(result.bands, verdicts, strict=True) if band.rps_high <= 40]
    high_load = [v for band, v in zip(result.bands, verdicts, strict=True) if band.rps_low >= 80]
    assert low_load and all(v == "same" for v in low_load)
    assert high_load and all(v == "worse" for v in high_load)
    figure = by_load_figure(["#1", "#2"], result, (50.0,))
    assert len(figure["data"]) == 2
    assert figure["data"][0]["x"] == [round((b.rps_low + b.rps_high) / 2, 3) for b in result.bands]
    # The slower test's markers say `worse` (colour and shape) where it is; the baseline keeps its own.
    marker = figure["data"][1]["marker"]
    assert [m == VERDICT_COLOURS["worse"] for m in marker["color"]] == [v == "worse" for v in verdicts]
    assert [m == "triangle-up" for m in marker["symbol"]] == [v == "worse" for v in verdicts]
    assert VERDICT_COLOURS["worse"] not in figure["data"][0]["marker"]["color"]


def test_no_common_load_gives_no_bands() -> None:
    rng = np.random.default_rng(3)
    light = _ramp(rng, 60, 10, knee_rps=100)
    heavy = SparseCounts.of(np.repeat(np.arange(30), 200), np.full(6000, 700), np.ones(6000, dtype=np.int64))
    assert max(rps_per_second(light).values()) < min(rps_per_second(heavy).values())
    assert compare_by_load([light, heavy]).bands == []


def test_timeline_is_start_aligned_and_compressed() -> None:
    seconds = np.repeat(np.arange(1000), 10)
    values = np.where(seconds < 500, 10.0, 100.0)
    hist = hist_from_values_ms(seconds, values)
    xs, series = timeline_quantiles(hist, (50.0,), max_points=100)
    assert xs[0] == 0 and xs[1] == 10 and len(xs) == 100
    assert series[0][0] is not None and 10.0 <= series[0][0] <= 11.0  # linear within the 10-11 ms bin
    later, _ = timeline_quantiles(hist.select_seconds(hist.seconds >= 300), (50.0,), max_points=100)
    assert later[0] == 300  # a window keeps its offset from the start
    assert series[0][-1] is not None and 100.0 <= series[0][-1] <= 101.0


def test_quantile_and_distribution_figures_overlay_every_test() -> None:
    rng = np.random.default_rng(4)
    a = hist_from_values_ms(np.repeat(np.arange(60), 50), rng.lognormal(np.log(40.0), 0.3, 3000))
    b = hist_from_values_ms(np.repeat(np.arange(60), 50), rng.lognormal(np.log(60.0), 0.3, 3000))
    quantiles = quantiles_figure(["#1", "#2"], [a, b])
    assert len(quantiles["data"]) == 6  # 3 levels x 2 tests
    assert {t["legendgroup"] for t in quantiles["data"]} == {"#1", "#2"}
    distribution = distribution_figure(["#1", "#2"], [a, b, SparseCounts.empty()][:2])
    first, second = distribution["data"]
    assert first["y"][0] == 0.0 and abs(first["y"][-1] - 100.0) < 1e-6
    # The slower run's curve reaches 50% later.
    half = [next(x for x, y in zip(t["x"], t["y"], strict=True) if y >= 50.0) for t in (first, second)]
    assert half[0] < half[1]
