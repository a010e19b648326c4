"""Per-second, per-case aggregates: what the tank streams (`push_data.json`) and what we derive from phout.

One row per (test, source, second, case); case '' is the overall row (the tank renames an empty tag to
`__NOTAG__`, so '' is unambiguous). `source_id` is 0 for the tank's stream and the upload id for rows derived
from a phout upload, so that exact figures can take over while the streamed ones stay available.

ReplacingMergeTree on the natural key makes a push that arrives twice (the tank retries 5xx with a new
request id) count once; readers that need exactness before merges use FINAL or argMax on `received_at_us`.
Histograms are on the tank's fixed bin grid (analytics.histogram.BIN_EDGES_US): `hist_bins` holds bin
indexes, `hist_counts` their counts, so windows merge exactly by summing counts per index.
Means are kept as sent (ms) and re-weighted by `resps` when windows are merged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from analytics.aggregate import QUANTILE_LEVELS
from backend.clickhouse.engines import Shape, TableSpec, create
from backend.clickhouse.native import ArrayColumn, CodedStrings, ColumnData

if TYPE_CHECKING:
    from analytics.aggregate import SecondCase, SecondTable

NAME = "second_aggregates"

COLUMNS = (
    "test_id",
    "source_id",
    "ts",
    "case",
    "reqps",
    "threads",
    "resps",
    "expect_ms",
    "connect_time_ms",
    "send_time_ms",
    "latency_ms",
    "receive_time_ms",
    "input_bytes",
    "output_bytes",
    "q50_ms",
    "q75_ms",
    "q80_ms",
    "q85_ms",
    "q90_ms",
    "q95_ms",
    "q98_ms",
    "q99_ms",
    "q100_ms",
    "net_codes",
    "net_counts",
    "http_codes",
    "http_counts",
    "hist_bins",
    "hist_counts",
    "received_at_us",
)

SPEC = TableSpec(
    name=NAME,
    columns="""
    test_id UInt64,
    source_id UInt64,
    ts UInt32,
    case String,
    reqps Float64,
    threads UInt32,
    resps UInt64,
    expect_ms Float64,
    connect_time_ms Float64,
    send_time_ms Float64,
    latency_ms Float64,
    receive_time_ms Float64,
    input_bytes UInt64,
    output_bytes UInt64,
    q50_ms Float64,
    q75_ms Float64,
    q80_ms Float64,
    q85_ms Float64,
    q90_ms Float64,
    q95_ms Float64,
    q98_ms Float64,
    q99_ms Float64,
    q100_ms Float64,
    net_codes Array(Int32),
    net_counts Array(UInt64),
    http_codes Array(Int32),
    http_counts Array(UInt64),
    hist_bins Array(UInt16),
    hist_counts Array(UInt64),
    received_at_us UInt64""",
    engine="ReplacingMergeTree",
    version_column="received_at_us",
    keys="""
PARTITION BY toYYYYMM(toDateTime(ts))
ORDER BY (test_id, source_id, ts, case)""",
)

CREATE_SQL = create(SPEC, Shape())[0]


def rows_of(test_id: int, source_id: int, rows: Sequence[SecondCase], received_at_us: int) -> list[tuple[Any, ...]]:
    """Table rows (in COLUMNS order) of per-second aggregates derived from raw samples (analytics.aggregate).

    reqps and threads are the generator's figures (planned RPS, instances): phout does not carry them, so 0.
    """
    return [
        (
            test_id,
            source_id,
            r.ts,
            r.case,
            0.0,
            0,
            r.resps,
            r.expect_ms,
            r.connect_time_ms,
            r.send_time_ms,
            r.latency_ms,
            r.receive_time_ms,
            r.input_bytes,
            r.output_bytes,
            *r.quantiles_ms,
            list(r.net_codes),
            list(r.net_counts),
            list(r.http_codes),
            list(r.http_counts),
            list(r.hist_bins),
            list(r.hist_counts),
            received_at_us,
        )
        for r in rows
    ]


def columns_of(test_id: int, source_id: int, table: SecondTable, received_at_us: int) -> dict[str, ColumnData]:
    """The same rows as `rows_of`, as columns for client.native_insert: no Python object per row or per count."""
    n = table.size
    names = sorted(set(table.case))
    code_of = {name: i for i, name in enumerate(names)}
    quantiles = {f"q{level}_ms": table.quantiles_ms[:, i] for i, level in enumerate(QUANTILE_LEVELS)}
    connect, send, latency, receive = table.phases_ms
    net_ends, http_ends, hist_ends = (sparse.ends(n) for sparse in (table.nets, table.https, table.hist))
    return {
        "test_id": np.full(n, test_id, dtype=np.uint64),
        "source_id": np.full(n, source_id, dtype=np.uint64),
        "ts": table.ts,
        "case": CodedStrings(np.array([code_of[c] for c in table.case], dtype=np.int64), [c.encode() for c in names]),
        "reqps": np.zeros(n, dtype=np.float64),
        "threads": np.zeros(n, dtype=np.uint32),
        "resps": table.resps,
        "expect_ms": table.expect_ms,
        "connect_time_ms": connect,
        "send_time_ms": send,
        "latency_ms": latency,
        "receive_time_ms": receive,
        "input_bytes": table.input_bytes,
        "output_bytes": table.output_bytes,
        **quantiles,
        "net_codes": ArrayColumn(net_ends, table.nets.code),
        "net_counts": ArrayColumn(net_ends, table.nets.count),
        "http_codes": ArrayColumn(http_ends, table.https.code),
        "http_counts": ArrayColumn(http_ends, table.https.count),
        "hist_bins": ArrayColumn(hist_ends, table.hist.code),
        "hist_counts": ArrayColumn(hist_ends, table.hist.count),
        "received_at_us": np.full(n, received_at_us, dtype=np.uint64),
    }
