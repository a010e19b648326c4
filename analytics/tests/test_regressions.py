"""KPI specs, thresholds and series of a component's regression dashboard (pure)."""

from __future__ import annotations

import pytest

from analytics.figures_regressions import kpi_figure
from analytics.regressions import (
    KpiConfig,
    KpiError,
    KpiPoint,
    Threshold,
    kpi_spec,
    limit_of,
    parse_kpis,
    reason,
    series,
)


def test_kpi_keys() -> None:
    assert kpi_spec("q99").level_pct == 99.0 and kpi_spec("q99").direction == "higher_is_worse"
    assert kpi_spec("q99.90").key == "q99.9"
    assert kpi_spec("max_rps").direction == "lower_is_worse"
    for bad in ("q0", "q101", "p99", "q", "q99.1234", ""):
        with pytest.raises(KpiError):
            kpi_spec(bad)


def test_limits_on_the_bad_side() -> None:
    q99 = KpiConfig(kpi_spec("q99"), Threshold("relative", 10))
    rps = KpiConfig(kpi_spec("max_rps"), Threshold("relative", 10))
    assert limit_of(q99, 200.0) == pytest.approx(220.0)
    assert limit_of(rps, 1000.0) == pytest.approx(900.0)
    assert limit_of(q99, None) is None  # relative without a baseline: nothing to judge against
    assert limit_of(KpiConfig(kpi_spec("q99"), Threshold("absolute", 500)), None) == 500.0
    assert limit_of(KpiConfig(kpi_spec("q99"), None), 200.0) is None


def test_series_marks_points_past_the_limit_and_change_points() -> None:
    config = KpiConfig(kpi_spec("q99"), Threshold("relative", 20))
    values = [100, 102, 99, 101, 100, 98, 150, 152, 149, 151, 150, 148]
    points = [KpiPoint(i + 1, 1000 + i, float(v)) for i, v in enumerate(values)] + [KpiPoint(99, 2000, None)]
    result = series(config, points, (1, 100.0))
    assert result.limit == pytest.approx(120.0)
    assert result.past == [v > 120 for v in values] + [False]
    assert result.change_points == [7]  # test id of the first slow run
    figure = kpi_figure(result, baseline_test_id=1)
    assert figure["data"][0]["customdata"] == list(range(1, 13))  # the unmeasured test is not plotted
    assert figure["layout"]["shapes"][0]["x0"] == "#7"
    assert [t["name"] for t in figure["data"]] == ["99% quantile", "past the threshold", "baseline", "threshold"]


def test_error_share_is_plotted_in_percent() -> None:
    config = KpiConfig(kpi_spec("error_share"), Threshold("absolute", 0.01))
    result = series(config, [KpiPoint(1, 0, 0.005), KpiPoint(2, 1, 0.02)], None)
    assert result.past == [False, True]
    figure = kpi_figure(result, None)
    assert figure["data"][0]["y"] == [0.5, 2.0]
    assert figure["layout"]["yaxis"]["title"]["text"] == "%"
    assert reason(config, 0.02, 0.01, None) == "error_share: 2.00 % is above its threshold 1.00 %"


def test_parse_kpis_round_trips() -> None:
    raw = [{"kpi": "q99", "threshold": {"kind": "relative", "value": 10}}, {"kpi": "imbalance_rps", "threshold": None}]
    assert [c.as_dict() for c in parse_kpis(raw)] == [
        {"kpi": "q99", "threshold": {"kind": "relative", "value": 10.0}},
        {"kpi": "imbalance_rps", "threshold": None},
    ]
    with pytest.raises(KpiError, match=r"kpis\[0\].threshold.value: a finite number"):
        parse_kpis([{"kpi": "q99", "threshold": {"kind": "absolute", "value": True}}])
    with pytest.raises(KpiError, match="at most 12"):
        parse_kpis([{"kpi": f"q{i}"} for i in range(1, 14)])
