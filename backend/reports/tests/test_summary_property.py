"""Property test on the real store: for random samples, windows and cases, the summary's exact quantiles are
order statistics between numpy's `lower` and `higher`, and its counts equal numpy's."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.reports import service
from backend.reports.tests import factory
from backend.reports.window import Window

TAGS = ("a", "b", "c")
LEVELS = (0.0, 25.0, 50.0, 90.0, 99.0, 99.9, 100.0)

rows_strategy = st.lists(
    st.tuples(
        st.integers(0, 9),  # second
        st.sampled_from(TAGS),
        st.integers(0, 20_000_000),  # interval_real_us
        st.booleans().map(lambda b: 777 if b else 0),  # a few discarded rows
    ),
    min_size=1,
    max_size=60,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=rows_strategy,
    window=st.tuples(st.integers(0, 10), st.integers(1, 11)).filter(lambda w: w[0] < w[1]),
    cases=st.lists(st.sampled_from(TAGS), unique=True, max_size=2),
)
def test_exact_summary_matches_numpy(owner: Any, clickhouse: None, rows, window, cases) -> None:
    test = Test.objects.create(owner=owner, status=TestStatus.READY)
    upload = Upload.objects.create(test=test, status=UploadStatus.READY)
    n = len(rows)
    sec = np.array([factory.T0 + r[0] for r in rows])
    net = np.array([r[3] for r in rows])
    interval = np.where(net == 777, 0, np.array([r[2] for r in rows]))
    s = factory.Samples(
        receive_sec=sec,
        tag=np.array([r[1] for r in rows], dtype=object),
        interval_real_us=interval,
        connect_time_us=np.zeros(n, dtype=np.int64),
        latency_us=np.zeros(n, dtype=np.int64),
        size_in_bytes=np.zeros(n, dtype=np.int64),
        size_out_bytes=np.zeros(n, dtype=np.int64),
        net_code=net,
        proto_code=np.where(net == 777, 0, 200),
    )
    factory.insert_samples(test.pk, upload.pk, s)
    factory.insert_aggregates(factory.aggregate_rows(test.pk, upload.pk, s))
    test.active_upload = upload
    test.save(update_fields=["active_upload"])

    body = service.summary(
        test,
        Window(from_ts=factory.T0 + window[0], to_ts=factory.T0 + window[1], cases=tuple(cases), levels_pct=LEVELS),
    )
    keep = (sec >= factory.T0 + window[0]) & (sec < factory.T0 + window[1])
    if cases:
        keep &= np.isin(s.tag, cases)
    assert body["count"] == int(keep.sum())
    assert body["net_codes"] == {str(k): int(v) for k, v in zip(*np.unique(net[keep], return_counts=True), strict=True)}
    timed = interval[keep & (net != 777)]
    got = [body["quantiles_ms"][f"{x:g}"] for x in LEVELS]
    if timed.size == 0:
        assert got == [None] * len(LEVELS)
        return
    lower = np.percentile(timed, LEVELS, method="lower") / 1000.0
    higher = np.percentile(timed, LEVELS, method="higher") / 1000.0
    assert all(lo - 1e-9 <= g <= hi + 1e-9 for g, lo, hi in zip(got, lower, higher, strict=True)), (got, lower, higher)
