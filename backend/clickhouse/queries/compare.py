"""Reads for the comparison: per-second histograms and code counts of one test, from raw samples or the stream.

Raw samples are binned on the tank's grid inside ClickHouse (one GROUP BY over (tag, second, bin)), so a
10M-sample test comes back as a few hundred thousand (second, bin, count) rows instead of 10M values; the
exact quantiles are computed there too (quantilesExact), so reported values stay order statistics.
Streamed tests already are histograms on that grid (`second_aggregates`), read with FINAL so a second
pushed twice counts once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from analytics.compare import LOG_BASE, SparseCounts, keys_of_buckets
from analytics.histogram import BIN_COUNT, BIN_EDGES_US, MAX_HIST_US
from backend.clickhouse import client
from backend.clickhouse.queries.selection import Selection
from backend.clickhouse.tables import samples, second_aggregates

DISCARDED_NET_CODE = 777


def _bin_expression(column: str) -> str:
    """SQL giving the tank-grid bin index (index of the upper edge) of a µs value; -1 outside the grid.

    Built from the grid's constant segments (equal steps), mirroring analytics.histogram.bin_indexes_for_values_us:
    a value v in [e[i], e[i+1]) gets index i + 1, the grid's last edge itself the last index.
    """
    edges = [int(e) for e in BIN_EDGES_US]
    steps = np.diff(BIN_EDGES_US)
    branches = [f"{column} < 0, -1"]
    start = 0
    for i in range(1, len(steps) + 1):
        if i == len(steps) or steps[i] != steps[start]:
            # Segment of equal steps: edges[start] .. edges[i], step steps[start].
            step = int(steps[start])
            branches.append(f"{column} < {edges[i]}, {start + 1} + intDiv({column} - {edges[start]}, {step})")
            start = i
    branches.append(f"{column} = {MAX_HIST_US}, {BIN_COUNT - 1}")
    return f"toInt32(multiIf({', '.join(branches)}, -1))"


_BIN_SQL = _bin_expression("interval_real_us")


def _bucket_expression(column: str) -> str:
    """SQL giving the comparison's 2% log bucket (analytics.compare) of a µs value's tank bin; -1 off the grid.

    First the upper edge of the tank bin holding the value (same segments as _bin_expression), then
    floor(ln(edge) / ln(1.02)); Python maps buckets to bin groups (analytics.compare.keys_of_buckets).
    It runs on every sample, so it avoids multiIf, which 18.16 evaluates branch by branch for every row
    (a quarter of the comparison's scan): the segment is a sum of comparisons, and `transform` gives its
    first edge and step. Same edge, same log, so the same buckets as the multiIf it replaced.
    """
    edges = [int(e) for e in BIN_EDGES_US]
    steps = np.diff(BIN_EDGES_US)
    segments: list[tuple[int, int]] = []  # (first edge, step) of each run of equal steps
    start = 0
    for i in range(1, len(steps) + 1):
        if i == len(steps) or steps[i] != steps[start]:
            segments.append((edges[start], int(steps[start])))
            start = i
    segment = "toUInt8(" + (" + ".join(f"({column} >= {lo})" for lo, _ in segments[1:]) or "0") + ")"
    indexes = ", ".join(str(i) for i in range(len(segments)))
    first = f"transform({segment}, [{indexes}], [{', '.join(str(lo) for lo, _ in segments)}], 0)"
    step = f"transform({segment}, [{indexes}], [{', '.join(str(s) for _, s in segments)}], 1)"
    upper = f"if({column} = {MAX_HIST_US}, {MAX_HIST_US}, {first} + (intDiv({column} - {first}, {step}) + 1) * {step})"
    off_grid = f"{column} < 0 OR {column} > {MAX_HIST_US}"
    return f"if({off_grid}, -1, toInt32(floor(log({upper}) / log({LOG_BASE!r}))))"


_BUCKET_SQL = _bucket_expression("interval_real_us")


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
    """The test's first response second in its data source (raw samples if any, else the overall stream rows)."""
    if upload_id:
        rows = client.execute(
            f"SELECT min(receive_sec), count() FROM {samples.NAME} "
            "WHERE test_id = %(test_id)s AND upload_id = %(upload_id)s",
            {"test_id": test_id, "upload_id": upload_id},
            tag="compare.first_second.samples",
        )
    else:
        rows = client.execute(
            f"SELECT min(ts), count() FROM {second_aggregates.NAME} "
            "WHERE test_id = %(test_id)s AND source_id = 0 AND case = ''",
            {"test_id": test_id},
            tag="compare.first_second.stream",
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
    """Histograms, codes and exact quantiles per tag from raw samples; '' is the selected tags merged.

    Seconds in the returned counts are slot starts: origin + k * unit (see time_unit_s).
    """
    params = sel.params()
    level_names = {f"level_{i}": float(level) / 100.0 for i, level in enumerate(levels_pct)}
    placeholders = ", ".join(f"%({name})s" for name in level_names)
    # Aggregate-function parameters must be literals: each level is a bound value the driver renders.
    # Scan 1 gives the tags (later referred to by position, since strings are the slow part of the driver),
    # the span of seconds and the exact quantiles per tag; WITH TOTALS adds, as the last row the driver
    # returns, the same aggregates over the whole selection, so the overall quantiles cost no second scan.
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
    tags = [str(row[0]) for row in per_tag]
    origin = min(int(row[1]) for row in per_tag)
    unit = time_unit_s(max(int(row[2]) for row in per_tag) - origin + 1)
    slot_params = {**params, "tag_list": tags, "origin": origin, "unit": unit}
    # Scan 2: one GROUP BY for histograms and codes together; the tag becomes its position only on the
    # grouped rows (grouping by the string is cheaper than calling indexOf on every sample). Bucket -1 marks
    # rows kept out of response times (Pandora's discarded requests, times beyond the tank's grid) but counted
    # in codes.
    counts = client.execute_numpy(
        f"""
        SELECT indexOf(%(tag_list)s, tag), slot, bucket, proto_code, net_code, n
        FROM (
            SELECT tag, intDiv(receive_sec - %(origin)s, %(unit)s) AS slot,
                   if(net_code = {DISCARDED_NET_CODE}, -1, {_BUCKET_SQL}) AS bucket, proto_code, net_code, count() AS n
            FROM {samples.NAME}
            WHERE {sel.samples_where()}
            GROUP BY tag, slot, bucket, proto_code, net_code
        )
        """,
        slot_params,
        tag="compare.samples.counts",
    )
    columns = [np.asarray(c, dtype=np.int64) for c in counts] if len(counts) else [np.zeros(0, dtype=np.int64)] * 6
    position, slot, bucket, proto, net, n = columns
    seconds = origin + slot * unit
    timed = bucket >= 0
    latency = _by_tag(tags, position[timed], seconds[timed], keys_of_buckets(bucket[timed]), n[timed])
    http = _by_tag(tags, position, seconds, proto, n)
    netc = _by_tag(tags, position, seconds, net, n)
    exact: dict[str, list[float]] = {
        str(row[0]): [float(v) / 1000.0 for v in row[3]] for row in per_tag if int(row[4]) > 0 and row[0] != ""
    }
    if int(totals[4]) > 0:
        exact[""] = [float(v) / 1000.0 for v in totals[3]]
    # A request with an empty tag belongs to no case (selection.py): in the whole, never listed as a case.
    cases = [tag for tag in tags if tag != ""]
    latency[""] = _merge(list(latency.values()))
    http[""] = _merge(list(http.values()))
    netc[""] = _merge(list(netc.values()))
    return TestCounts(latency, http, netc, exact, cases)


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
    """Histograms and codes per case from the tank's per-second stream (source 0); '' merges the selection.

    ClickHouse unrolls the arrays (ARRAY JOIN) and sums them per (case, slot, key), so a one-hour stream of
    ten cases arrives as numeric columns of a few hundred thousand rows, not 40k rows of Python lists.
    """
    params = sel.params()
    spans = client.execute(
        f"""
        SELECT case, min(ts), max(ts)
        FROM {second_aggregates.NAME} FINAL
        WHERE {sel.aggregates_where(all_cases=True)}
        GROUP BY case
        ORDER BY case
        """,
        params,
        tag="compare.stream.cases",
    )
    if not spans:
        empty = SparseCounts.empty()
        return TestCounts({"": empty}, {"": empty}, {"": empty}, None, [])
    names = [str(row[0]) for row in spans]
    origin = min(int(row[1]) for row in spans)
    unit = time_unit_s(max(int(row[2]) for row in spans) - origin + 1)
    slot_params = {**params, "case_list": names, "origin": origin, "unit": unit}
    by_kind: list[dict[str, SparseCounts]] = []
    # Identifiers from this module's constants only: the three (keys, counts) array pairs of the table.
    for kind, keys_column, counts_column in (
        ("hist", "hist_bins", "hist_counts"),
        ("http", "http_codes", "http_counts"),
        ("net", "net_codes", "net_counts"),
    ):
        columns = client.execute_numpy(
            f"""
            SELECT indexOf(%(case_list)s, case), slot, key, n
            FROM (
                SELECT case, slot, key, sum(cnt) AS n
                FROM (
                    SELECT case, intDiv(ts - %(origin)s, %(unit)s) AS slot, {keys_column}, {counts_column}
                    FROM {second_aggregates.NAME} FINAL
                    WHERE {sel.aggregates_where(all_cases=True)}
                )
                ARRAY JOIN {keys_column} AS key, {counts_column} AS cnt
                GROUP BY case, slot, key
            )
            """,
            slot_params,
            tag=f"compare.stream.{kind}",
        )
        arrays = [np.asarray(c, dtype=np.int64) for c in columns] if len(columns) else [np.zeros(0, np.int64)] * 4
        position, slot, key, n = arrays
        by_kind.append(_by_tag(names, position, origin + slot * unit, key, n))
    latency, http, net = by_kind
    cases = [c for c in names if c != ""]
    if sel.cases:
        # The selection as a whole is the chosen cases merged (the tank's '' row covers every case).
        wanted = [c for c in sel.cases if c in names]
        latency[""] = _merge([latency[c] for c in wanted if c in latency])
        http[""] = _merge([http[c] for c in wanted if c in http])
        net[""] = _merge([net[c] for c in wanted if c in net])
    for by_case in (latency, http, net):
        by_case.setdefault("", SparseCounts.empty())
    return TestCounts(latency, http, net, None, cases)


__all__ = ["TestCounts", "first_second", "from_samples", "from_stream"]
