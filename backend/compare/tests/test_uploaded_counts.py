"""An uploaded test's counts come from the aggregates ingestion wrote: they must be what its raw samples give."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest
from rest_framework.test import APIClient

from analytics.compare import COARSE_KEY, SparseCounts
from analytics.histogram import MAX_HIST_US, bin_indexes_for_values_us
from backend.clickhouse.queries import compare as queries
from backend.clickhouse.queries.selection import Selection
from backend.compare.tests.conftest import T0, phout_requests
from backend.loadtests.models import Test

# The cases of phout_requests' tags, written out rather than computed by the parser under test.
CASE_OF_TAG = {"index#1": "index", "index#2": "index", "search": "search", "": "", "#7": "__NOTAG__", "gone": "gone"}


def _table(data: SparseCounts) -> Counter[tuple[int, int]]:
    """Counts per (second, key), rows with the same pair summed (readers may repeat a pair)."""
    table: Counter[tuple[int, int]] = Counter()
    for second, key, count in zip(data.seconds.tolist(), data.keys.tolist(), data.counts.tolist(), strict=True):
        table[(second, key)] += count
    return +table


def _expected(seconds: np.ndarray, keys: np.ndarray) -> Counter[tuple[int, int]]:
    return Counter(zip(seconds.tolist(), keys.tolist(), strict=True))


@pytest.mark.parametrize(
    ("cases", "window"),
    [((), (None, None)), (("index", "__NOTAG__", "gone"), (T0 + 20, T0 + 250)), (("search",), (T0 + 100, None))],
)
def test_uploaded_counts_are_those_of_the_raw_samples(
    upload_phout: Callable[..., Test], cases: tuple[str, ...], window: tuple[int | None, int | None]
) -> None:
    requests = phout_requests(seed=11, tags=("index#1", "index#2", "search", "", "#7", "gone"))
    # A case whose every request was discarded: codes, but no response times.
    gone = requests.tag == "gone"
    requests.net[gone], requests.proto[gone], requests.interval_us[gone] = 777, 0, 0
    test = upload_phout(requests)
    upload_id = test.active_upload_id
    sel = Selection(test.pk, upload_id or 0, upload_id, window[0], window[1], cases)

    got = queries.from_samples(sel, (50.0, 99.0))

    receive = requests.receive_sec
    case = np.array([CASE_OF_TAG[t] for t in requests.tag.tolist()], dtype=object)
    chosen = np.ones(receive.size, dtype=bool)
    if window[0] is not None:
        chosen &= receive >= window[0]
    if window[1] is not None:
        chosen &= receive < window[1]
    if cases:
        chosen &= np.isin(case, cases)
    origin = int(receive[chosen].min())
    unit = queries.time_unit_s(int(receive[chosen].max()) - origin + 1)
    assert unit > 1  # the slots really group seconds (300 s, and 5 more minutes of off-grid responses)
    slot = origin + (receive - origin) // unit * unit
    timed = (requests.net != 777) & (requests.interval_us >= 0) & (requests.interval_us <= MAX_HIST_US)
    bins = COARSE_KEY[bin_indexes_for_values_us(requests.interval_us)]
    present = sorted({str(c) for c in case[chosen]} - {""})
    assert got.cases == present
    assert got.exact_ms is not None and set(got.exact_ms) == {"", *present} - {"gone"}
    for name in ["", *present]:
        rows = chosen & (case == name) if name else chosen
        assert _table(got.latency.get(name, SparseCounts.empty())) == _expected(
            slot[rows & timed], bins[rows & timed]
        ), name
        assert _table(got.http[name]) == _expected(slot[rows], requests.proto[rows]), name
        assert _table(got.net[name]) == _expected(slot[rows], requests.net[rows]), name
    assert _table(got.latency[""]).total() == int((chosen & timed).sum())
    if not cases:  # the data has what is counted apart: discarded requests, timeouts, errors, off-grid times
        assert {0, 110, 777} <= set(got.net[""].keys.tolist()) and {0, 200, 500} <= set(got.http[""].keys.tolist())
        assert (requests.interval_us[chosen] > MAX_HIST_US).any()


def test_a_case_with_only_discarded_requests_in_both_tests_compares_without_values(
    upload_phout: Callable[..., Test], owner_api: APIClient
) -> None:
    tests = []
    for seed in (3, 4):
        requests = phout_requests(seed=seed, tags=("index", "gone"))
        gone = requests.tag == "gone"
        requests.net[gone], requests.proto[gone], requests.interval_us[gone] = 777, 0, 0
        tests.append(upload_phout(requests))
    response = owner_api.get(f"/api/v1/compare?tests={tests[0].pk},{tests[1].pk}")
    while response.status_code == 202:  # computed by the analysis task (eager here): ask again
        response = owner_api.get(f"/api/v1/compare?tests={tests[0].pk},{tests[1].pk}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert "gone" in body["cases"]["common"]
    gone_case = body["per_case"]["gone"]
    assert gone_case["count"] == [0, 0]
    assert all(v is None for per_test in gone_case["verdict"].values() for v in per_test)
