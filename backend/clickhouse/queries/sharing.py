"""Reads behind the chat preview (backend/sharing): whole-test totals and the quantile series of one source.

A test's figures come from one source (ARCHITECTURE.md, "Which data a report reads"): the active upload's
derived rows (`source_id` = upload id) when there is one, else the tank's stream (`source_id` 0). Only the
overall rows (case '') are read. FINAL collapses a second the tank pushed twice (ReplacingMergeTree) before any
merge has run, so a preview never counts it twice; the preview reads one test, so FINAL's cost stays small.
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.clickhouse import client
from backend.clickhouse.tables import samples, second_aggregates

QUANTILE_COLUMNS = ("q50_ms", "q75_ms", "q80_ms", "q85_ms", "q90_ms", "q95_ms", "q98_ms", "q99_ms", "q100_ms")
QUANTILE_LEVELS_PCT = (50.0, 75.0, 80.0, 85.0, 90.0, 95.0, 98.0, 99.0, 100.0)

_TOTALS_SQL = f"""
SELECT
    sum(resps),
    max(resps),
    sumMap(http_codes, http_counts),
    sumMap(net_codes, net_counts),
    sumMap(hist_bins, hist_counts),
    min(ts),
    max(ts)
FROM {second_aggregates.NAME} FINAL
WHERE test_id = %(test_id)s AND source_id = %(source_id)s AND case = ''
"""

# Per bucket of `ratio` seconds: the worst second of each quantile (a picture of the tail must not smooth
# spikes away) and the mean of responses, planned RPS and instances.
_SERIES_SQL = f"""
SELECT
    intDiv(ts, %(ratio)s) * %(ratio)s AS bucket,
    {", ".join(f"max({c})" for c in QUANTILE_COLUMNS)},
    avg(resps),
    avg(reqps),
    avg(threads)
FROM {second_aggregates.NAME} FINAL
WHERE test_id = %(test_id)s AND source_id = %(source_id)s AND case = ''
GROUP BY bucket
ORDER BY bucket
"""

_SPAN_SQL = f"""
SELECT min(ts), max(ts), count()
FROM {second_aggregates.NAME}
WHERE test_id = %(test_id)s AND source_id = %(source_id)s AND case = ''
"""

# Pandora's `discarded` rows (net code 777) were never sent: they have no response time (contract.md).
_EXACT_QUANTILE_SQL = f"""
SELECT quantileExact(%(level)s)(interval_real_us), count()
FROM {samples.NAME}
WHERE test_id = %(test_id)s AND upload_id = %(upload_id)s AND net_code != 777
"""


@dataclass(frozen=True)
class Totals:
    responses: int
    max_rps: int
    http_codes: dict[int, int]
    net_codes: dict[int, int]
    hist_bins: list[int]
    hist_counts: list[int]
    first_ts: int | None
    last_ts: int | None


@dataclass(frozen=True)
class QuantileSeries:
    ts: list[int]
    quantiles_ms: list[list[float]]  # one row per point, one column per QUANTILE_LEVELS_PCT
    rps: list[float]
    planned_rps: list[float]
    instances: list[float]


def totals(test_id: int, source_id: int) -> Totals:
    rows = client.execute(_TOTALS_SQL, {"test_id": test_id, "source_id": source_id}, tag="sharing.totals")
    responses, max_rps, http, net, hist, first_ts, last_ts = rows[0]
    return Totals(
        responses=int(responses),
        max_rps=int(max_rps),
        http_codes={int(k): int(v) for k, v in zip(http[0], http[1], strict=True)},
        net_codes={int(k): int(v) for k, v in zip(net[0], net[1], strict=True)},
        hist_bins=[int(b) for b in hist[0]],
        hist_counts=[int(c) for c in hist[1]],
        first_ts=int(first_ts) if responses else None,
        last_ts=int(last_ts) if responses else None,
    )


def exact_quantile_ms(test_id: int, upload_id: int, level_pct: float) -> float | None:
    """An exact quantile of the upload's raw samples in ms; None when it has no sent requests."""
    rows = client.execute(
        _EXACT_QUANTILE_SQL,
        {"test_id": test_id, "upload_id": upload_id, "level": level_pct / 100.0},
        tag="sharing.exact_quantile",
    )
    value_us, count = rows[0]
    return float(value_us) / 1000.0 if count else None


def quantile_series(test_id: int, source_id: int, max_points: int) -> QuantileSeries:
    """The overall quantile series at no more than `max_points` points (coarser buckets for long tests)."""
    params = {"test_id": test_id, "source_id": source_id}
    first, last, count = client.execute(_SPAN_SQL, params, tag="sharing.span")[0]
    ratio = 1
    if count:
        span_s = int(last) - int(first) + 1
        ratio = max(1, -(-span_s // max_points))  # ceiling division
    rows = client.execute(_SERIES_SQL, {**params, "ratio": ratio}, tag="sharing.series")
    n = len(QUANTILE_COLUMNS)
    return QuantileSeries(
        ts=[int(r[0]) for r in rows],
        quantiles_ms=[[float(v) for v in r[1 : 1 + n]] for r in rows],
        rps=[float(r[1 + n]) for r in rows],
        planned_rps=[float(r[2 + n]) for r in rows],
        instances=[float(r[3 + n]) for r in rows],
    )
