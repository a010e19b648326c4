"""Several cases' rows of one second as one row: how the tank's stream counts the cases past a test's first
TANKODROM_CASES_MAX under OTHER_CASES (analytics.cases; backend/tankapi/flush.py), as an upload counts their samples.

Pure: rows in analytics.schema.seconds' form (values in ROW_FIELDS order) in, one row out. Counts, bytes and the
code and histogram counts are added; mean times are re-weighted by the responses they were averaged over
(analytics.series.weighted_mean); the generator's figures (planned RPS, instances) are the test's, repeated on
each case's row: the largest is kept. q100 is the rows' largest; the other quantiles are read off the added
histograms by the one rule (analytics.quantiles), or, when the rows carry no histogram, each level's largest value
(an upper bound).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from analytics.definitions import merge_counts
from analytics.quantiles import sparse_histogram_quantiles_us
from analytics.schema.seconds import CODE_COUNTS, QUANTILE_COLUMNS, QUANTILE_LEVELS, ROW_FIELDS, Row
from analytics.series import weighted_mean

_AT = {name: i for i, name in enumerate(ROW_FIELDS)}
_ADDED = tuple(_AT[name] for name in ("resps", "input_bytes", "output_bytes"))
_LARGEST = tuple(_AT[name] for name in ("reqps", "threads"))
_MEANS = tuple(_AT[name] for name in ("expect_ms", "connect_time_ms", "send_time_ms", "latency_ms", "receive_time_ms"))
_QUANTILES = tuple(_AT[name] for name in QUANTILE_COLUMNS)
_PAIRS = tuple((_AT[codes], _AT[counts]) for codes, counts in CODE_COUNTS)
_HIST = (_AT["hist_bins"], _AT["hist_counts"])
_RESPS = _AT["resps"]
_US_PER_MS = 1000.0


def merge_rows(ts: int, case: str, rows: Sequence[Row]) -> Row:
    """The rows (one second, any cases) as one row of `case` at `ts`; one row is only renamed."""
    if len(rows) == 1:
        return (ts, case, *rows[0][2:])
    merged: list[Any] = [None] * len(ROW_FIELDS)
    merged[0], merged[1] = ts, case
    for i in _ADDED:
        merged[i] = sum(int(row[i]) for row in rows)
    for i in _LARGEST:
        merged[i] = max(row[i] for row in rows)
    weights = [int(row[_RESPS]) for row in rows]
    for i in _MEANS:
        mean = weighted_mean([float(row[i]) for row in rows], weights)
        merged[i] = 0.0 if mean is None else mean
    for codes_at, counts_at in _PAIRS:
        counts = merge_counts(
            *({int(c): int(n) for c, n in zip(row[codes_at], row[counts_at], strict=True)} for row in rows)
        )
        codes = sorted(counts)
        merged[codes_at], merged[counts_at] = codes, [counts[c] for c in codes]
    # q100 is the largest value: exact from the rows; the other levels are read off the added histograms.
    top_ms = max(float(row[_QUANTILES[-1]]) for row in rows)
    bins, hist_counts = merged[_HIST[0]], merged[_HIST[1]]
    if sum(hist_counts) > 0:
        quantiles_us = sparse_histogram_quantiles_us(bins, hist_counts, QUANTILE_LEVELS)
        for i, value_us in zip(_QUANTILES, quantiles_us, strict=True):
            merged[i] = min(float(value_us) / _US_PER_MS, top_ms)
    else:
        for i in _QUANTILES:
            merged[i] = max(float(row[i]) for row in rows)
    merged[_QUANTILES[-1]] = top_ms
    return tuple(merged)
