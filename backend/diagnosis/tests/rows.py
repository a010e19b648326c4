"""Helpers of the diagnosis tests: store per-second series, phout files and monitoring as the ingest paths do."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from analytics.aggregate import aggregate_table
from analytics.histogram import bin_indexes_for_values_us
from analytics.phout import PhoutParser, parse_stream
from analytics.schema.samples import SampleColumns
from backend.clickhouse import client
from backend.clickhouse.tables import monitoring, second_aggregates


def overall_row(
    test_id: int,
    source_id: int,
    ts: int,
    *,
    resps: int,
    reqps: float = 0.0,
    threads: int = 0,
    q95_ms: float = 20.0,
    timeouts: int = 0,
    http_5xx: int = 0,
    received_at_us: int = 1,
) -> tuple[Any, ...]:
    """One overall second as the tank streams it (quantiles scaled from q95, a one-bin histogram)."""
    ok = max(resps - timeouts - http_5xx, 0)
    net_codes, net_counts = ([0], [resps - timeouts]) if not timeouts else ([0, 110], [resps - timeouts, timeouts])
    http_codes = [c for c, n in ((0, timeouts), (200, ok), (503, http_5xx)) if n]
    http_counts = [n for n in (timeouts, ok, http_5xx) if n]
    q = [q95_ms * f for f in (0.5, 0.6, 0.65, 0.7, 0.8, 1.0, 1.1, 1.2, 1.5)]
    bins = bin_indexes_for_values_us(np.array([int(q95_ms * 1000)]))
    return (
        test_id,
        source_id,
        ts,
        "",
        float(reqps),
        int(threads),
        int(resps),
        q95_ms * 0.6,
        0.1,
        0.01,
        q95_ms * 0.5,
        0.05,
        0,
        0,
        *q,
        net_codes,
        net_counts,
        http_codes,
        http_counts,
        [int(bins[0])],
        [int(resps)],
        received_at_us,
    )


def insert_rows(rows: Sequence[tuple[Any, ...]]) -> None:
    client.insert_rows(second_aggregates.NAME, second_aggregates.COLUMNS, list(rows), tag="tests.diagnosis.rows")


def insert_monitoring(test_id: int, host: str, ts: Sequence[int], metrics: dict[str, Sequence[float]]) -> None:
    rows = [
        (test_id, t, host, name, float(v), 1)
        for name, values in metrics.items()
        for t, v in zip(ts, values, strict=True)
    ]
    client.insert_rows(monitoring.NAME, monitoring.COLUMNS, rows, tag="tests.diagnosis.monitoring")


def ingest_phout(path: Path, test_id: int, upload_id: int) -> int:
    """Parse a phout file and store its per-second rows as the upload's source, like the upload pipeline does.

    Uses the project's own parser and aggregator (analytics.phout, analytics.aggregate); returns the rows stored.
    """
    parser = PhoutParser()
    batches = list(parse_stream([path.read_bytes()], parser))
    assert parser.stats.lines_bad == 0, parser.stats.bad_examples
    table = aggregate_table(SampleColumns.concat(batches), parser.cases)
    # A phout has no planned RPS nor instances (0 in the rows): the diagnosis takes them from the load scheme.
    with client.native_insert(second_aggregates.NAME, second_aggregates.COLUMNS, tag="tests.diagnosis.phout") as ins:
        ins.send(second_aggregates.columns_of(test_id, upload_id, table, 1))
    return table.size
