"""The one home of each definition (analytics/definitions.py): outcomes, code classes and names, RPS, the exact
quantile rank, and numbers as people read them (the same cases as frontend/src/lib/format.test.ts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from analytics import definitions as d
from analytics.quantiles import exact_quantiles

CASES = json.loads((Path(__file__).parent / "fixtures" / "format_cases.json").read_text())["cases"]
FORMATTERS: dict[str, Any] = {
    "fixed": d.format_fixed,
    "percent": d.format_percent,
    "signedPercent": d.format_signed_percent,
    "ms": d.format_ms,
    "count": d.format_count,
}


@pytest.mark.parametrize("case", CASES, ids=[f"{c['fn']}{c['args']}" for c in CASES])
def test_numbers_read_as_the_pages_write_them(case: dict[str, Any]) -> None:
    assert FORMATTERS[case["fn"]](*case["args"]) == case["out"]


def test_a_failed_request_is_a_net_or_an_http_error_counted_once() -> None:
    # A k6 run: timeouts are status 0 with error code 1050 (net 110); a JMeter assertion failure is 200 with net 999.
    result = d.outcomes({200: 60, 0: 30, 500: 10}, {0: 67, 110: 30, 999: 3})
    assert (result.requests, result.failed, result.http_errors, result.net_errors) == (100, 43, 40, 33)
    assert result.error_share == pytest.approx(0.43) and result.http_2xx == 60 and result.timeouts == 30
    # Pandora: discarded rows (777, HTTP 0) are failed requests, counted once, and counted apart as discarded.
    pandora = d.outcomes({200: 92, 0: 8}, {0: 92, 777: 5, 110: 3})
    assert (pandora.failed, pandora.discarded, pandora.net_errors) == (8, 5, 8)
    as_api = pandora.as_dict()
    assert as_api["failed_share"] == pytest.approx(0.08) and as_api["requests"] == 100
    assert d.outcomes({}, {}).as_dict()["failed_share"] is None


@pytest.mark.parametrize(
    ("kind", "code", "klass", "failing"),
    [
        ("http", 200, "success", False),
        ("http", 302, "redirection", False),
        ("http", 404, "client_error", True),
        ("http", 503, "server_error", True),
        ("http", 0, "no_answer", True),
        ("http", 999, "other", True),
        ("net", 0, "ok", False),
        ("net", 110, "timeout", True),
        ("net", 314, "timeout", True),
        ("net", 777, "discarded", True),
        ("net", 999, "error", True),
    ],
)
def test_code_classes(kind: d.CodeKind, code: int, klass: str, failing: bool) -> None:
    assert d.code_class(kind, code) == klass and klass in d.CODE_CLASSES
    assert d.is_failing_code(kind, code) is failing


def test_code_rows_carry_names_classes_and_full_shares() -> None:
    rows = d.code_rows("net", {0: 2, 999: 1, 110: 0})
    assert [r.as_dict() for r in rows] == [
        {"code": 0, "class": "ok", "name": "OK", "count": 2, "share": 2 / 3},
        {"code": 999, "class": "error", "name": d.net_code_name(999), "count": 1, "share": 1 / 3},
    ]
    assert d.net_code_name(4242) == "errno 4242" and d.http_code_name(503) == "Service Unavailable"


def test_max_rps_is_the_most_held_for_five_seconds_not_a_burst() -> None:
    # const(250) with a catch-up second of 446 after a stall of the generator.
    per_second = [250] * 10 + [120, 446] + [250] * 10
    figures = d.rps_figures(list(range(100, 122)), per_second)
    assert figures.max == 250.0 and figures.mean == pytest.approx(sum(per_second) / 22)
    assert d.rps_figures([10, 10, 12], [3, 2, 5]).max == 5.0  # shorter than 5 s: the median of 5, 0 (11), 5
    assert d.rps_figures([], []).max == 0.0


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 50)),
        min_size=0,
        max_size=30,
    )
)
def test_rps_figures_are_those_of_the_dense_series(rows: list[tuple[int, int]]) -> None:
    # The definition: every second from the first response to the last, silent ones as 0, rows of a second added.
    ts = [1_700_000_000 + t for t, _ in rows]
    counts = [c for _, c in rows]
    answered = [(t, c) for t, c in zip(ts, counts, strict=True) if c > 0]
    figures = d.rps_figures(ts, counts)
    if not answered:
        assert figures == d.RpsFigures(mean=0.0, max=0.0)
        return
    first = min(t for t, _ in answered)
    dense = np.bincount([t - first for t, _ in answered], weights=[c for _, c in answered])
    assert figures.mean == pytest.approx(float(dense.sum()) / dense.size)
    assert figures.max == d.sustained_max_rps(dense)


def test_rps_figures_cost_the_rows_not_the_span_they_cover() -> None:
    # A hostile file: one line in 1970, a few today. Laid out densely this is 1.7e9 seconds (13 GB).
    figures = d.rps_figures([0, 1_700_000_000, 1_700_000_001, 1_700_000_002], [1, 5, 5, 5])
    assert figures.max == 5.0 and figures.mean == pytest.approx(16 / 1_700_000_003)


def test_exact_rank_is_clickhouses_on_the_same_doubles() -> None:
    assert d.quantile_ranks(100, [29, 50, 99, 100]).tolist() == [28, 50, 99, 99]
    assert d.quantile_ranks(10, [25]).tolist() == [2] and d.quantile_ranks(0, [50]).tolist() == [0]
    assert d.quantile_ranks(np.array([10, 4]), [50]).tolist() == [[5], [2]]
    values = np.arange(100)
    assert exact_quantiles(values, [29, 57, 99.9]).tolist() == [28, 56, 99]  # quantilesExact answers the same
