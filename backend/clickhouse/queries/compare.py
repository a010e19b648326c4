"""Reads for the comparison: per-second histograms and code counts of one test, and exact quantiles when raw.

Counts come from `second_aggregates` whatever the test's source: the tank's stream (source 0), or the rows
ingestion derived from an upload's samples (source = the upload id; same shape, on the tank's bin grid). They are
read with FINAL (a second pushed or recomputed twice counts once) and summed per (case, time slot, key) inside
ClickHouse, so a 10M-sample test arrives as a few hundred thousand numbers, not 10M values. For an upload, one
scan of the raw samples gives what only they can: the tags, the span and the exact quantiles (quantilesExact),
so reported values stay order statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analytics.compare import SparseCounts, coarsen
from analytics.definitions import DISCARDED_NET_CODE, level_fraction
from backend.clickhouse import client
from backend.clickhouse.queries.selection import Selection
from backend.clickhouse.tables import samples, second_aggregates

_KEY_OFFSET = 2**31  # Int32 codes (net codes may be negative) as 32 unsigned bits in a packed GROUP BY key


@dataclass(frozen=True)
class TestCounts:
    """One test's data for the comparison, keyed by case ('' = the selection as a whole).

    Seconds are absolute (unix s). `exact_ms` holds exact quantiles per case, when raw samples exist.
    """

    latency: dict[str, SparseCounts]
    http: dict[str, SparseCounts]
    net: dict[str, SparseCounts]
    exact_ms: dict[str, list[float]] | None
    cases: list[str]


def _merge(parts: Sequence[SparseCounts]) -> SparseCounts:
    if not parts:
        return SparseCounts.empty()
    return SparseCounts.of(
        np.concatenate([p.seconds for p in parts]),
        np.concatenate([p.keys for p in parts]),
        np.concatenate([p.counts for p in parts]),
    )


def first_second(test_id: int, upload_id: int | None) -> int | None:
    """The test's first response second in its data source: the upload's aggregates if any, else the stream's.

    The overall rows have a row for every second with a response, so this is the samples' first second too,
    without reading a column of 10M values.
    """
    rows = client.execute(
        f"SELECT min(ts), count() FROM {second_aggregates.NAME} "
        "WHERE test_id = %(test_id)s AND source_id = %(source_id)s AND case = ''",
        {"test_id": test_id, "source_id": upload_id or 0},
        tag="compare.first_second",
    )
    return int(rows[0][0]) if rows and int(rows[0][1]) > 0 else None


def time_unit_s(span_s: int) -> int:
    """Seconds per time slot read from ClickHouse: 1 for short tests, more for long ones (at most ~100 slots).

    The bootstrap's blocks are ~n^(1/3) seconds or longer (10 s for 1000 s) and a comparison chart needs no
    more than ~100 points, so finer slots would only multiply the rows sent over the wire (10 cases x 1000 s x
    150 bins = 1.5M rows for 10M samples; 10x less with 10 s slots).
    """
    return max(1, -(-span_s // 100))


def from_samples(sel: Selection, levels_pct: Sequence[float]) -> TestCounts:
    """Exact quantiles per tag from raw samples, counts per tag from the upload's aggregates; '' is the selection.

    Seconds in the returned counts are slot starts: origin + k * unit (see time_unit_s). Response-time keys are
    coarsened (analytics.compare.coarsen): the comparison's figures of an uploaded test are drawn on that grid.
    """
    params = sel.params()
    level_names = {f"level_{i}": level_fraction(level) for i, level in enumerate(levels_pct)}
    placeholders = ", ".join(f"%({name})s" for name in level_names)
    # Aggregate-function parameters must be literals: each level is a bound value the driver renders.
    # One scan gives the tags, the span of seconds and the exact quantiles per tag; WITH TOTALS adds, as the last
    # row the driver returns, the same aggregates over the whole selection, so the overall quantiles cost no
    # second scan. Pandora's discarded requests (net code 777) are no response times.
    rows = client.execute(
        f"""
        SELECT tag, min(receive_sec), max(receive_sec),
               quantilesExactIf({placeholders})(interval_real_us, net_code != {DISCARDED_NET_CODE}),
               countIf(net_code != {DISCARDED_NET_CODE}), count()
        FROM {samples.NAME}
        WHERE {sel.samples_where()}
        GROUP BY tag WITH TOTALS
        ORDER BY tag
        """,
        {**params, **level_names},
        tag="compare.samples.tags",
    )
    per_tag, totals = rows[:-1], rows[-1] if rows else None
    if not per_tag or totals is None or int(totals[5]) == 0:
        empty = SparseCounts.empty()
        return TestCounts({"": empty}, {"": empty}, {"": empty}, {}, [])
    # A request with an empty tag belongs to no case (selection.py): in the whole, never listed as a case. In
    # second_aggregates, case '' is the overall row.
    cases = [str(row[0]) for row in per_tag if row[0] != ""]
    origin = min(int(row[1]) for row in per_tag)
    unit = time_unit_s(max(int(row[2]) for row in per_tag) - origin + 1)
    # With cases selected, '' is made of them: the overall row is not read.
    latency, http, net = _second_counts(sel, cases if sel.cases else ["", *cases], origin, unit)
    exact: dict[str, list[float]] = {
        str(row[0]): [float(v) / 1000.0 for v in row[3]] for row in per_tag if int(row[4]) > 0 and row[0] != ""
    }
    if int(totals[4]) > 0:
        exact[""] = [float(v) / 1000.0 for v in totals[3]]
    return TestCounts({case: coarsen(c) for case, c in latency.items()}, http, net, exact, cases)


def _by_tag(
    tags: Sequence[str], position: np.ndarray, seconds: np.ndarray, keys: np.ndarray, counts: np.ndarray
) -> dict[str, SparseCounts]:
    """Per-tag counts (tag position is indexOf's 1-based one).

    (second, key) pairs may repeat (one row per code under a latency bin, and the reverse): everything
    downstream sums counts per pair, so they are left as they are rather than paying for a unique here.
    """
    if position.size == 0:
        return {}
    order = np.argsort(position, kind="stable")
    position, seconds, keys, counts = position[order], seconds[order], keys[order], counts[order]
    bounds = np.searchsorted(position, np.arange(1, len(tags) + 2))
    out: dict[str, SparseCounts] = {}
    for i, tag in enumerate(tags):
        lo, hi = int(bounds[i]), int(bounds[i + 1])
        if hi > lo:
            out[tag] = SparseCounts(seconds[lo:hi], keys[lo:hi], counts[lo:hi])
    return out


def from_stream(sel: Selection) -> TestCounts:
    """Histograms and codes per case from the tank's per-second stream (source 0); '' is the selection."""
    spans = client.execute(
        f"""
        SELECT case, min(ts), max(ts)
        FROM {second_aggregates.NAME} FINAL
        WHERE {sel.aggregates_where(all_cases=True)}
        GROUP BY case
        ORDER BY case
        """,
        sel.params(),
        tag="compare.stream.cases",
    )
    if not spans:
        empty = SparseCounts.empty()
        return TestCounts({"": empty}, {"": empty}, {"": empty}, None, [])
    names = [str(row[0]) for row in spans]
    origin = min(int(row[1]) for row in spans)
    unit = time_unit_s(max(int(row[2]) for row in spans) - origin + 1)
    latency, http, net = _second_counts(sel, names, origin, unit)
    return TestCounts(latency, http, net, None, [c for c in names if c != ""])


def _second_counts(
    sel: Selection, names: Sequence[str], origin: int, unit: int
) -> tuple[dict[str, SparseCounts], dict[str, SparseCounts], dict[str, SparseCounts]]:
    """Response-time bins (tank grid), HTTP and net codes per case of `names` from sel's `second_aggregates` rows.

    Seconds become slot starts, origin + k * unit. Case '' is the overall row, or, when the selection names
    cases, those cases merged (the overall row covers every case). ClickHouse unrolls the arrays (ARRAY JOIN) and
    sums them per (case, slot, key), so an hour of ten cases arrives as numeric columns of a few hundred thousand
    rows, not 40k rows of Python lists.
    """
    params = {**sel.params(), "case_list": list(names), "case_names": tuple(names), "origin": origin, "unit": unit}
    by_kind: list[dict[str, SparseCounts]] = []
    # Identifiers from this module's constants only: the three (keys, counts) array pairs of the table.
    for kind, keys_column, counts_column in (
        ("hist", "hist_bins", "hist_counts"),
        ("http", "http_codes", "http_counts"),
        ("net", "net_codes", "net_counts"),
    ):
        # Grouped by one UInt64 packing (case position: 24 bits, slot: 8, key: 32): 18.16 sums the unrolled
        # arrays of a 10M-sample test (2.6M elements, one thread after FINAL) twice as fast as by the (case, slot,
        # key) tuple. Slots are < 100 (time_unit_s); the key, an Int32 code or a bin index, is offset to unsigned.
        columns = client.execute_numpy(
            f"""
            SELECT row_key + toUInt64(toInt64(key) + {_KEY_OFFSET}) AS packed, sum(cnt)
            FROM (
                SELECT bitShiftLeft(toUInt64(indexOf(%(case_list)s, case)), 40)
                       + bitShiftLeft(toUInt64(intDiv(ts - %(origin)s, %(unit)s)), 32) AS row_key,
                       {keys_column}, {counts_column}
                FROM {second_aggregates.NAME} FINAL
                WHERE {sel.aggregates_where(all_cases=True)} AND case IN %(case_names)s
            )
            ARRAY JOIN {keys_column} AS key, {counts_column} AS cnt
            GROUP BY packed
            """,
            params,
            tag=f"compare.counts.{kind}",
        )
        packed = np.asarray(columns[0], dtype=np.uint64) if len(columns) else np.zeros(0, np.uint64)
        n = np.asarray(columns[1], dtype=np.int64) if len(columns) else np.zeros(0, np.int64)
        position = (packed >> np.uint64(40)).astype(np.int64)
        slot = ((packed >> np.uint64(32)) & np.uint64(0xFF)).astype(np.int64)
        key = (packed & np.uint64(0xFFFFFFFF)).astype(np.int64) - _KEY_OFFSET
        by_kind.append(_by_tag(names, position, origin + slot * unit, key, n))
    latency, http, net = by_kind
    if sel.cases:
        wanted = [c for c in sel.cases if c in names]
        latency[""] = _merge([latency[c] for c in wanted if c in latency])
        http[""] = _merge([http[c] for c in wanted if c in http])
        net[""] = _merge([net[c] for c in wanted if c in net])
    for by_case in (latency, http, net):
        by_case.setdefault("", SparseCounts.empty())
    return latency, http, net


__all__ = ["TestCounts", "first_second", "from_samples", "from_stream"]
