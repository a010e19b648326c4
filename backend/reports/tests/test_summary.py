"""`GET /api/v1/tests/<id>/summary` against numpy on the same samples, for uploaded and streamed tests."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import numpy as np
import pytest

from analytics.quantiles import DEFAULT_LEVELS_PCT, bin_width_us
from analytics.tests import reference
from backend.reports.tests import factory

LEVELS = [50.0, 75.0, 90.0, 95.0, 99.0, 99.9, 100.0]
Q = ",".join(f"{x:g}" for x in LEVELS)


def _windows(s: factory.Samples) -> list[tuple[int | None, int | None]]:
    lo, hi = int(s.receive_sec.min()), int(s.receive_sec.max())
    mid = (lo + hi) // 2
    return [(None, None), (lo, hi + 1), (lo + 7, mid), (mid, None), (None, lo + 3), (mid, mid + 1)]


def _case_sets(tags: tuple[str, ...]) -> list[tuple[str, ...]]:
    return [(), *((t,) for t in tags), *itertools.combinations(tags, 2)]


def _select(s: factory.Samples, window: tuple[int | None, int | None], cases: tuple[str, ...]) -> factory.Samples:
    keep = np.ones(len(s), dtype=bool)
    if window[0] is not None:
        keep &= s.receive_sec >= window[0]
    if window[1] is not None:
        keep &= s.receive_sec < window[1]
    if cases:
        keep &= np.isin(s.tag, list(cases))
    return s.mask(keep)


def _query(window: tuple[int | None, int | None], cases: tuple[str, ...]) -> dict[str, object]:
    params: dict[str, object] = {"q": Q}
    if window[0] is not None:
        params["from"] = window[0]
    if window[1] is not None:
        params["to"] = window[1]
    if cases:
        params["case"] = list(cases)
    return params


def _check_counts(body: dict[str, Any], part: factory.Samples) -> None:
    assert body["count"] == len(part)
    assert body["http_codes"] == {str(k): v for k, v in sorted(Counter(part.proto_code.tolist()).items())}
    assert body["net_codes"] == {str(k): v for k, v in sorted(Counter(part.net_code.tolist()).items())}
    seconds = np.unique(part.receive_sec)
    if len(part):
        assert body["rps"]["max"] == reference.max_rps(part.receive_sec)
        assert body["rps"]["mean"] == pytest.approx(len(part) / (seconds[-1] - seconds[0] + 1), abs=1e-3)


def test_uploaded_summary_is_exact_on_every_window_and_case_combination(uploaded, anon_api) -> None:
    test, s = uploaded
    for window, cases in itertools.product(_windows(s), _case_sets(("index", "search", "__NOTAG__"))):
        response = anon_api.get(f"/api/v1/tests/{test.pk}/summary", _query(window, cases))
        assert response.status_code == 200, response.json()
        body = response.json()
        part = _select(s, window, cases)
        assert body["exact"] is True and body["cases"] == list(cases)
        _check_counts(body, part)
        timed = part.interval_real_us[part.net_code != 777]  # discarded rows have no response time
        if timed.size == 0:
            assert all(v is None for v in body["quantiles_ms"].values())
            continue
        lower = np.percentile(timed, LEVELS, method="lower") / 1000.0
        higher = np.percentile(timed, LEVELS, method="higher") / 1000.0
        got = np.array([body["quantiles_ms"][f"{x:g}"] for x in LEVELS])
        assert np.all(got >= lower - 1e-9) and np.all(got <= higher + 1e-9), (window, cases, got, lower, higher)


def test_streamed_summary_is_within_one_bin(streamed, anon_api) -> None:
    test, s = streamed
    for window, cases in itertools.product(_windows(s), _case_sets(("index", "search"))):
        body = anon_api.get(f"/api/v1/tests/{test.pk}/summary", _query(window, cases)).json()
        part = _select(s, window, cases)
        assert body["exact"] is False
        _check_counts(body, part)
        timed = part.interval_real_us  # the streamed histogram holds every response (none are discarded here)
        timed = timed[part.net_code != 777]
        if len(part) == 0:
            continue
        # The tank's histogram counts the discarded rows' zero times too: compare with what it binned.
        binned = part.interval_real_us
        exact = [reference.order_statistic(binned, level) for level in LEVELS]
        for level, e in zip(LEVELS, exact, strict=True):
            got_us = body["quantiles_ms"][f"{level:g}"] * 1000.0
            assert abs(got_us - e) <= bin_width_us(e) + 1, (window, cases, level, got_us, e)


def test_default_summary_has_the_contract_shape(uploaded, anon_api) -> None:
    test, s = uploaded
    body = anon_api.get(f"/api/v1/tests/{test.pk}/summary").json()
    assert set(body) == {
        "test",
        "from",
        "to",
        "cases",
        "exact",
        "count",
        "quantiles_ms",
        "http_codes",
        "net_codes",
        "rps",
        "outcomes",
    }
    assert body["test"] == test.pk and body["from"] == int(s.receive_sec.min())
    assert body["to"] == int(s.receive_sec.max()) + 1
    assert list(body["quantiles_ms"]) == [f"{x:g}" for x in DEFAULT_LEVELS_PCT]


def test_a_second_pushed_twice_counts_once(streamed, anon_api) -> None:
    test, s = streamed
    before = anon_api.get(f"/api/v1/tests/{test.pk}/summary").json()
    first_second = s.mask(s.receive_sec == s.receive_sec.min())
    # The tank retried a push: the same (second, case) rows arrive again, later.
    factory.insert_aggregates(factory.aggregate_rows(test.pk, 0, first_second, received_at_us=2))
    after = anon_api.get(f"/api/v1/tests/{test.pk}/summary", {"q": "50"}).json()
    assert after["count"] == before["count"] == len(s)


def test_bad_parameters_are_named(uploaded, anon_api) -> None:
    test, _ = uploaded
    for params, word in [
        ({"from": "yesterday"}, "from"),
        ({"q": "101"}, "q"),
        ({"compress_ratio": "0"}, "compress_ratio"),
    ]:
        response = anon_api.get(f"/api/v1/tests/{test.pk}/summary", params)
        assert response.status_code == 400
        assert word in response.json()["error"]
    assert anon_api.get("/api/v1/tests/999999/summary").status_code == 404
    # A window with its end before its start holds no second (the schema cannot forbid the pair): empty, not an error.
    empty = anon_api.get(f"/api/v1/tests/{test.pk}/summary", {"from": 10, "to": 5})
    assert empty.status_code == 200 and empty.json()["count"] == 0
