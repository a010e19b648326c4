"""The live figures of an online test's newest second: the report's rules on one overall row."""

from __future__ import annotations

import pytest

from analytics.definitions import outcomes
from analytics.histogram import BIN_COUNT, histogram_quantiles
from analytics.live_figures import live_figures, planned_s
from analytics.schema.seconds import ROW_FIELDS


def _row(**values: object) -> tuple[object, ...]:
    defaults: dict[str, object] = {name: 0 for name in ROW_FIELDS}
    defaults.update(case="", net_codes=[], net_counts=[], http_codes=[], http_counts=[], hist_bins=[], hist_counts=[])
    defaults.update(values)
    return tuple(defaults[name] for name in ROW_FIELDS)


def test_the_newest_seconds_figures_follow_the_reports_rules() -> None:
    row = _row(
        ts=1_800_000_012,
        resps=100,
        http_codes=[0, 200, 500],
        http_counts=[2, 90, 8],
        net_codes=[0, 110],
        net_counts=[98, 2],
        hist_bins=[100, 200, 300],
        hist_counts=[50, 45, 5],
    )
    live = live_figures(row, first_ts=1_800_000_000, planned=60)
    counts = [0.0] * BIN_COUNT
    counts[100], counts[200], counts[300] = 50, 45, 5
    assert live.q95_ms == pytest.approx(float(histogram_quantiles(counts, [95])[0]) / 1000)
    expected = outcomes({0: 2, 200: 90, 500: 8}, {0: 98, 110: 2})
    assert (live.failed, live.error_share) == (expected.failed, expected.error_share) == (10, 0.1)
    assert (live.ts, live.rps, live.elapsed_s, live.planned_s) == (1_800_000_012, 100, 13, 60)


def test_an_empty_second_has_no_quantile_and_no_share() -> None:
    live = live_figures(_row(ts=5), first_ts=5, planned=None)
    assert (live.q95_ms, live.error_share, live.failed, live.elapsed_s) == (None, None, 0, 1)


@pytest.mark.parametrize(
    ("scheme", "seconds"),
    [
        (["line(1, 20, 8s)", "const(20, 52s)"], 60),
        ([{"type": "const", "ops": 5, "duration": "1m"}], 60),
        ([], None),
        ("bogus(", None),
        (None, None),
    ],
)
def test_the_planned_duration_is_the_load_schemes(scheme: object, seconds: int | None) -> None:
    assert planned_s(scheme) == seconds
