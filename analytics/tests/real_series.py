"""A real run's per-second series for the diagnosis, as ingestion derives it from a phout file (no plan: phout-only).

Seconds are response seconds (start + response time), as `second_aggregates` keeps them; `starts` counts the
requests started in each of those seconds, as the diagnosis reads them from `samples`.
"""

from __future__ import annotations

import numpy as np

from analytics.diagnosis import DiagnosisInput, TestSeries
from analytics.tests.real_runs import Run, load

START_TS = 1_700_000_000


def diagnosis_input(name: str, load_scheme: object = None) -> DiagnosisInput:
    return series_input(load(name), load_scheme)


def series_input(run: Run, load_scheme: object = None) -> DiagnosisInput:
    n = run.seconds
    resps = np.bincount(run.second, minlength=n).astype(np.float64)
    starts = np.bincount(np.floor(run.start_s).astype(np.int64), minlength=n)[:n].astype(np.float64)
    q = np.zeros((n, 3))
    mean = np.zeros(n)
    for s in range(n):
        values = run.time_ms[run.second == s]
        if values.size:
            q[s] = np.percentile(values, [50, 95, 99])
            mean[s] = values.mean()
    errors = np.bincount(run.second, weights=((run.net_code != 0) | (run.proto_code >= 400)).astype(float), minlength=n)
    timeouts = np.bincount(run.second, weights=(run.net_code == 110).astype(float), minlength=n)
    discarded = np.bincount(run.second, weights=(run.net_code == 777).astype(float), minlength=n)
    series = TestSeries.from_columns(
        ts=np.arange(n) + START_TS,
        resps=resps,
        errors=errors,
        timeouts=timeouts,
        discarded=discarded,
        mean_ms=mean,
        q50_ms=q[:, 0],
        q95_ms=q[:, 1],
        q99_ms=q[:, 2],
    )
    return DiagnosisInput(series=series, load_scheme=load_scheme, starts=starts)
