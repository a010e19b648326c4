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

from analytics.compare import SparseCounts
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


def _split_by_tag(tags: np.ndarray, secs: np.ndarray, keys: np.ndarray, counts: np.ndarray) -> dict[str, SparseCounts]:
    out: dict[str, SparseCounts] = {}
    if tags.size == 0:
        return out
    names, inverse = np.unique(tags.astype(str), return_inverse=True)
    for j, name in enumerate(names):
        mask = inverse == j
        out[str(name)] = SparseCounts.of(secs[mask], keys[mask], counts[mask])
    return out


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


def from_samples(sel: Selection, levels_pct: Sequence[float]) -> TestCounts:
    """Histograms, codes and exact quantiles per tag from raw samples; '' is the selected tags merged."""
    params = sel.params()
    hist = client.execute_numpy(
        f"""
        SELECT tag, receive_sec, bin, count() AS n
        FROM (
            SELECT tag, receive_sec, {_BIN_SQL} AS bin
            FROM {samples.NAME}
            WHERE {sel.samples_where()} AND net_code != {DISCARDED_NET_CODE}
        )
        WHERE bin >= 0
        GROUP BY tag, receive_sec, bin
        """,
        params,
        tag="compare.samples.histograms",
    )
    codes = client.execute_numpy(
        f"""
        SELECT tag, receive_sec, proto_code, net_code, count() AS n
        FROM {samples.NAME}
        WHERE {sel.samples_where()}
        GROUP BY tag, receive_sec, proto_code, net_code
        """,
        params,
        tag="compare.samples.codes",
    )
    level_names = {f"level_{i}": float(level) / 100.0 for i, level in enumerate(levels_pct)}
    placeholders = ", ".join(f"%({name})s" for name in level_names)
    # Aggregate-function parameters must be literals: each level is a bound value the driver renders.
    exact_rows = client.execute(
        f"""
        SELECT tag, quantilesExact({placeholders})(interval_real_us)
        FROM {samples.NAME}
        WHERE {sel.samples_where()} AND net_code != {DISCARDED_NET_CODE}
        GROUP BY tag
        """,
        {**params, **level_names},
        tag="compare.samples.exact_quantiles_by_tag",
    )
    overall_rows = client.execute(
        f"""
        SELECT quantilesExact({placeholders})(interval_real_us), count()
        FROM {samples.NAME}
        WHERE {sel.samples_where()} AND net_code != {DISCARDED_NET_CODE}
        """,
        {**params, **level_names},
        tag="compare.samples.exact_quantiles",
    )
    as_i64 = [np.asarray(c, dtype=np.int64) for c in (hist[1], hist[2], hist[3])] if len(hist) else []
    tags = np.asarray(hist[0], dtype=object) if len(hist) else np.zeros(0, dtype=object)
    latency = _split_by_tag(tags, *as_i64) if as_i64 else {}
    ctags = np.asarray(codes[0], dtype=object) if len(codes) else np.zeros(0, dtype=object)
    if len(codes):
        secs, proto, net, n = (np.asarray(c, dtype=np.int64) for c in codes[1:])
    else:
        secs = proto = net = n = np.zeros(0, dtype=np.int64)
    http = _split_by_tag(ctags, secs, proto, n)
    netc = _split_by_tag(ctags, secs, net, n)
    exact: dict[str, list[float]] = {
        str(tag): [float(v) / 1000.0 for v in values] for tag, values in exact_rows if len(values) and tag != ""
    }
    if overall_rows and int(overall_rows[0][1]) > 0:
        exact[""] = [float(v) / 1000.0 for v in overall_rows[0][0]]
    # A request with an empty tag belongs to no case (selection.py): in the whole, never listed as a case.
    cases = sorted(tag for tag in http if tag != "")
    latency[""] = _merge(list(latency.values()))
    http[""] = _merge(list(http.values()))
    netc[""] = _merge(list(netc.values()))
    return TestCounts(latency, http, netc, exact, cases)


def from_stream(sel: Selection) -> TestCounts:
    """Histograms and codes per case from the tank's per-second stream (source 0); '' merges the selection."""
    rows = client.execute(
        f"""
        SELECT ts, case, hist_bins, hist_counts, http_codes, http_counts, net_codes, net_counts
        FROM {second_aggregates.NAME} FINAL
        WHERE {sel.aggregates_where(all_cases=True)}
        """,
        sel.params(),
        tag="compare.stream.seconds",
    )
    parts: dict[str, tuple[list[list[int]], list[list[int]], list[list[int]]]] = {}
    for ts, case, hb, hc, hcode, hcount, ncode, ncount in rows:
        lat, htt, nt = parts.setdefault(str(case), ([[], [], []], [[], [], []], [[], [], []]))
        for store, keys, counts in ((lat, hb, hc), (htt, hcode, hcount), (nt, ncode, ncount)):
            store[0].extend([int(ts)] * len(keys))
            store[1].extend(int(k) for k in keys)
            store[2].extend(int(c) for c in counts)
    latency = {case: SparseCounts.of(*p[0]) for case, p in parts.items()}
    http = {case: SparseCounts.of(*p[1]) for case, p in parts.items()}
    net = {case: SparseCounts.of(*p[2]) for case, p in parts.items()}
    cases = sorted(c for c in parts if c != "")
    if sel.cases:
        # The selection as a whole is the chosen cases merged (the tank's '' row covers every case).
        wanted = [c for c in sel.cases if c in parts]
        latency[""] = _merge([latency[c] for c in wanted])
        http[""] = _merge([http[c] for c in wanted])
        net[""] = _merge([net[c] for c in wanted])
    for by_case in (latency, http, net):
        by_case.setdefault("", SparseCounts.empty())
    return TestCounts(latency, http, net, None, cases)


__all__ = ["TestCounts", "first_second", "from_samples", "from_stream"]
