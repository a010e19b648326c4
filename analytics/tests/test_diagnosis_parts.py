"""The diagnosis building blocks: load-scheme parsing, change points, the USL fit, component trends."""

from __future__ import annotations

import numpy as np
import pytest

from analytics.diagnosis.changepoint import e_divisive, mean_shift
from analytics.diagnosis.loadscheme import LoadSchemeError, parse_duration_s, parse_load_scheme
from analytics.diagnosis.trend import FIGURES, TrendInput, analyse_trend, judge
from analytics.diagnosis.usl import fit_usl, usl


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30", 30), ("30s", 30), ("10m", 600), ("1h", 3600), ("1m30s", 90), ("1500ms", 2), (45, 45)],
)
def test_durations(text: object, seconds: int) -> None:
    assert parse_duration_s(text) == seconds


def test_phantom_strings() -> None:
    scheme = parse_load_scheme(["line(1, 10, 10s) const(10, 5s)", "step(10, 30, 10, 3s)"])
    planned = scheme.planned_rps()
    assert scheme.duration_s == 10 + 5 + 9
    assert planned.size == 24
    assert planned[0] == pytest.approx(1.45)
    assert planned[9] == pytest.approx(9.55)
    assert list(planned[10:15]) == [10.0] * 5
    assert list(planned[15:]) == [10.0] * 3 + [20.0] * 3 + [30.0] * 3
    assert scheme.is_ramp
    assert scheme.const_spans() == [(10, 15)]


def test_pandora_dicts() -> None:
    scheme = parse_load_scheme(
        [
            {"type": "once", "times": 10},
            {"type": "line", "from": 1, "to": 100, "duration": "60s"},
            {"type": "const", "ops": 100, "duration": "1m"},
            {"type": "step", "from": 100, "to": 40, "step": 20, "duration": "2s"},
        ]
    )
    planned = scheme.planned_rps()
    assert planned.size == 60 + 60 + 8
    assert list(planned[-8:]) == [100.0, 100.0, 80.0, 80.0, 60.0, 60.0, 40.0, 40.0]
    assert scheme.const_spans() == [(60, 120)]


def test_const_only_is_not_a_ramp_and_unlimited_plans_nothing() -> None:
    assert not parse_load_scheme(["const(100, 1m)"]).is_ramp
    planned = parse_load_scheme([{"type": "unlimited", "duration": "5s"}]).planned_rps()
    assert planned.size == 5 and np.isnan(planned).all()
    assert parse_load_scheme([]).planned_rps().size == 0
    assert parse_load_scheme(None).duration_s == 0


@pytest.mark.parametrize(
    "bad",
    [
        ["line(1, 2)"],
        ["ramp(1, 2, 3s)"],
        ["const(-1, 10s)"],
        ["const(1, 10x)"],
        [{"type": "sine"}],
        [42],
        ["junk"],
        # Longer than a test may last (MAX_TEST_SPAN_S): laid out per second, each would take gigabytes.
        ["const(1, 100000h)"],
        ["step(1, 1000000000, 1, 1)"],
        [{"type": "step", "from": 1, "to": 1e308, "step": 1e-300, "duration": "1s"}],
    ],
)
def test_bad_schemes_name_the_problem(bad: object) -> None:
    with pytest.raises(LoadSchemeError):
        parse_load_scheme(bad)


def test_mean_shift_finds_the_break() -> None:
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(10, 1, 137), rng.normal(14, 1, 200)])
    shift = mean_shift(x)
    assert shift is not None
    assert abs(shift.index - 137) <= 3
    assert shift.statistic > 10
    flat = mean_shift(rng.normal(10, 1, 337))
    assert flat is not None and flat.statistic < 5


def test_e_divisive_finds_level_changes_and_nothing_in_noise() -> None:
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.normal(100, 3, 15), rng.normal(130, 3, 12), rng.normal(100, 3, 10)])
    points = e_divisive(values)
    assert len(points) == 2
    assert abs(points[0] - 15) <= 1 and abs(points[1] - 27) <= 1
    assert e_divisive(rng.normal(100, 3, 40)) == []
    assert e_divisive([1.0, 2.0]) == []


def test_usl_fit_recovers_parameters() -> None:
    n = np.arange(1, 41, dtype=float)
    x = usl(n, 0.1, 0.002, 50.0)
    fit = fit_usl(n, x)
    assert fit is not None
    assert fit.sigma == pytest.approx(0.1, abs=0.005)
    assert fit.kappa == pytest.approx(0.002, rel=0.05)
    assert fit.lambda_rps == pytest.approx(50.0, rel=0.02)
    assert fit.r2 > 0.999
    linear = fit_usl(n, 10.0 * n)
    assert linear is not None and linear.sigma == 0.0 and linear.kappa == 0.0 and linear.peak_concurrency is None
    assert fit_usl(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])) is None


def test_trend_flags_the_test_that_broke_it() -> None:
    rng = np.random.default_rng(4)
    values = list(rng.normal(100, 2, 12)) + list(rng.normal(160, 2, 6))
    inputs = [TrendInput(test_id=i + 1, ts=1_700_000_000 + i * 3600, value=float(v)) for i, v in enumerate(values)]
    trend = analyse_trend(FIGURES["q99"], inputs)
    assert trend.change_points == [12]
    broke = [p.test_id for p in trend.points if p.broke_trend]
    assert broke == [13]  # the first slow test; the later ones belong to the new regime
    point = trend.points[12]
    assert point.thresholds["upper"] is not None and point.value > point.thresholds["upper"]
    assert any("change point" in r for r in point.reasons)


def test_trend_of_a_healthy_component_is_quiet() -> None:
    rng = np.random.default_rng(6)
    inputs = [TrendInput(i, 1_700_000_000 + i, float(v)) for i, v in enumerate(rng.normal(500, 10, 25))]
    trend = analyse_trend(FIGURES["imbalance_rps"], inputs)
    assert trend.change_points == []
    assert not any(p.broke_trend for p in trend.points)


def test_judge_directions_and_short_history() -> None:
    ok, reasons, _, _ = judge(FIGURES["imbalance_rps"], 400.0, [500.0, 505.0, 498.0, 502.0])
    assert not ok and "below the threshold" in reasons[0]
    ok, _, _, _ = judge(FIGURES["imbalance_rps"], 600.0, [500.0, 505.0, 498.0, 502.0])
    assert ok  # a higher capacity is no failure
    ok, reasons, _, _ = judge(FIGURES["error_share"], 0.2, [0.0, 0.0])
    assert ok and "need 3" in reasons[0]
    ok, _, _, _ = judge(FIGURES["error_share"], 0.004, [0.0, 0.0, 0.0])
    assert ok  # below the absolute floor of half a percent
