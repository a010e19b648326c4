"""Chart resolution, weighted means, per-case summaries and the figure builders' shapes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analytics.downsample import auto_compress_ratio, parse_compress_ratio
from analytics.figures import distribution_figure, quantiles_figure
from analytics.series import weighted_mean


def test_auto_ratio_keeps_an_hour_under_the_point_budget() -> None:
    assert auto_compress_ratio(60) == 1
    ratio = auto_compress_ratio(3600)
    assert ratio > 1 and 3600 / ratio <= 600
    assert auto_compress_ratio(600) == 1


def test_parse_compress_ratio() -> None:
    assert parse_compress_ratio(None) is None and parse_compress_ratio("auto") is None
    assert parse_compress_ratio("5") == 5
    for bad in ("0", "x", "-3"):
        with pytest.raises(ValueError, match="compress_ratio"):
            parse_compress_ratio(bad)


def test_weighted_mean() -> None:
    assert weighted_mean([10.0, 20.0], [1, 3]) == pytest.approx(17.5)
    assert weighted_mean([1.0], [0]) is None


def test_figures_are_json_with_gaps_as_null() -> None:
    fig = quantiles_figure(
        [100, 101], [50.0, 99.0], np.array([[1.0, 2.0], [np.nan, np.nan]]), [10, 0], [20, 20], [0, 0]
    )
    text = json.dumps(fig, allow_nan=False)
    names = [trace["name"] for trace in fig["data"]]
    assert "planned RPS" in names and "instances" not in names and "null" in text
    assert fig["data"][0]["x"] == [100_000, 101_000] and fig["data"][0]["y"] == [1.0, None]
    assert fig["data"][1]["fill"] == "tonexty"
    dist = distribution_figure({"overall": ([1.0], [1.0], [3])}, log=True)
    assert dist["layout"]["yaxis"]["type"] == "log"


def test_a_maximum_that_dwarfs_the_other_quantiles_is_shown_on_demand() -> None:
    # One 10 s timeout per second: the 100 % band would squash 50..99 % into the bottom pixels, even when the
    # 99 % band itself has a few spikes (seen on a 10M-line test: q99 ~300 ms with spikes to 1043, max ~1100).
    q = np.array([[5.0, 40.0, 10_000.0], [6.0, 45.0, 10_000.0], [6.0, 9_000.0, 10_000.0]])
    fig = quantiles_figure([1, 2, 3], [50.0, 99.0, 100.0], q, [100, 100, 100])
    visibility = {trace["name"]: trace.get("visible", True) for trace in fig["data"]}
    assert visibility["100 %"] == "legendonly" and visibility["99 %"] is True
    calm = quantiles_figure([1, 2], [50.0, 99.0, 100.0], np.array([[5.0, 40.0, 60.0], [6.0, 45.0, 70.0]]), [1, 1])
    assert all(trace.get("visible", True) is True for trace in calm["data"])
    empty = quantiles_figure([1], [50.0, 100.0], np.array([[np.nan, np.nan]]), [0])
    assert all(trace.get("visible", True) is True for trace in empty["data"])


def test_monitoring_metrics_fall_into_the_tabs_groups() -> None:
    from analytics.series import metric_group

    expected = {
        "custom:cpu-cpu-total_usage_user": "cpu",
        "Memory_used": "memory",
        "System_la1": "load",
        "custom:net-eth0_bytes_recv": "network",
        "Net_retransmit": "network",
        "custom:diskio-sda_read_bytes": "disk",
        "custom:queue": "custom",
        "System_csw": "custom",
    }
    assert {name: metric_group(name) for name in expected} == expected


def test_case_summary() -> None:
    from analytics.stats import case_summary

    row = case_summary(
        "a", count=30, seconds=[100, 101, 102, 104], resps_per_second=[9, 7, 8, 6], expect_ms_x_resps=600.0,
        net_codes={0: 28, 110: 2}, http_codes={200: 25, 404: 3, 0: 2},
    )  # fmt: skip
    assert (row.rps_mean, row.rps_max, row.mean_ms) == (6.0, 7.0, 20.0)  # second 103 silent: 0
    assert (row.outcomes.failed, row.outcomes.http_errors, row.outcomes.net_errors) == (5, 5, 2)
    empty = case_summary("b", count=0, seconds=[], resps_per_second=[], expect_ms_x_resps=0.0,
                         net_codes={}, http_codes={})  # fmt: skip
    assert empty.mean_ms is None and empty.count == 0 and empty.outcomes.error_share is None
