"""Chart buckets as ClickHouse makes them (backend/clickhouse/queries/series.buckets): every second falls in the
bucket that starts at origin + k * ratio, buckets ascend, and the responses of the window are all counted once."""

from __future__ import annotations

import numpy as np
import pytest

from backend.clickhouse.queries import series as q_series
from backend.clickhouse.queries.selection import Selection
from backend.loadtests.models import Test, TestStatus
from backend.reports.tests import factory


@pytest.fixture
def scattered(owner, clickhouse) -> tuple[Test, factory.Samples]:
    test = Test.objects.create(owner=owner, status=TestStatus.READY)
    s = factory.random_samples(2000, 101, tags=("a",), seed=7)
    s = s.mask(np.isin(s.receive_sec - factory.T0, np.arange(0, 101, 3), invert=True))  # silent seconds too
    factory.insert_aggregates(factory.aggregate_rows(test.pk, 0, s))
    return test, s


@pytest.mark.parametrize("ratio", [1, 7, 101, 500])
@pytest.mark.parametrize("origin_offset", [0, -13, 5])
def test_buckets_align_to_the_origin_and_keep_every_response(
    scattered: tuple[Test, factory.Samples], ratio: int, origin_offset: int
) -> None:
    test, s = scattered
    origin = factory.T0 + origin_offset
    sel = Selection(int(test.pk), 0, None, from_ts=origin if origin_offset > 0 else None)
    b = q_series.buckets(sel, origin, ratio, with_hist=False)
    kept = s.receive_sec >= origin if origin_offset > 0 else np.ones(len(s), dtype=bool)
    assert sum(b.resps) == int(kept.sum())
    starts = np.asarray(b.start)
    assert np.all((starts - origin) % ratio == 0) and np.all(np.diff(starts) > 0)
    expected = origin + ((s.receive_sec[kept] - origin) // ratio) * ratio
    values, counts = np.unique(expected, return_counts=True)
    assert b.start == values.tolist() and b.resps == counts.tolist()
    assert all(0 < n <= ratio for n in b.seconds)
