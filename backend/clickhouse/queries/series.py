"""Per-second reads of `second_aggregates` behind the report's charts, tables and (for streamed tests) summary.

Rows are read with FINAL: the table is a ReplacingMergeTree and a second the tank pushed twice must count once
before any merge has run. FINAL costs little here because every read names one test and one source, the head
of the sort key. Charts read buckets of `ratio` seconds counted from `origin`, so a long test ships a few
hundred points per series; tables read the whole window at full resolution.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from backend.clickhouse import client
from backend.clickhouse.queries.columns import rows_as
from backend.clickhouse.queries.selection import Selection
from backend.clickhouse.tables import second_aggregates

T = second_aggregates.NAME


@dataclass(frozen=True)
class Span:
    first_ts: int | None
    last_ts: int | None
    cases: list[str]


def span(test_id: int, source_id: int) -> Span:
    """First and last second of a source and the cases seen in it (overall '' excluded)."""
    rows = client.execute(
        f"""
        SELECT min(ts), max(ts), count(), groupUniqArray(case)
        FROM {T}
        WHERE test_id = %(test_id)s AND source_id = %(source_id)s
        """,
        {"test_id": test_id, "source_id": source_id},
        tag="reports.series.span",
    )
    first, last, count, cases = rows[0]
    if int(count) == 0:
        return Span(None, None, [])
    return Span(int(first), int(last), sorted(str(c) for c in cases if c != ""))


def sources(test_id: int) -> dict[int, tuple[int, int]]:
    """Every source of a test in second_aggregates with its first and last second."""
    rows = client.execute(
        f"SELECT source_id, min(ts), max(ts) FROM {T} WHERE test_id = %(test_id)s GROUP BY source_id",
        {"test_id": test_id},
        tag="reports.series.sources",
    )
    return {int(r[0]): (int(r[1]), int(r[2])) for r in rows}


# The start of the bucket of `ratio` seconds, counted from `origin`, that holds second `ts`.
BUCKET_START = "intDiv(ts - %(origin)s, %(ratio)s) * %(ratio)s + %(origin)s"


def _per_bucket(
    sel: Selection, origin: int, ratio: int, sums: Sequence[str], where: str, tag: str
) -> list[tuple[Any, ...]]:
    """One row per bucket that has rows, ascending: its start, then the `sums` (SELECT expressions) over `where`."""
    return client.execute(
        f"SELECT {BUCKET_START} AS bucket, {', '.join(sums)} FROM {T} FINAL "
        f"WHERE {where} GROUP BY bucket ORDER BY bucket",
        {**sel.params(), "origin": origin, "ratio": ratio},
        tag=tag,
    )


# Its fields are the SELECT's columns, in order (columns.rows_as).
@dataclass(frozen=True)
class Buckets:
    """One entry per bucket that has rows, ascending. Sums over the selected cases and the bucket's seconds."""

    start: list[int]
    seconds: list[int]  # distinct seconds with rows in the bucket
    resps: list[int]
    input_bytes: list[int]
    output_bytes: list[int]
    connect_ms_x_resps: list[float]
    send_ms_x_resps: list[float]
    latency_ms_x_resps: list[float]
    receive_ms_x_resps: list[float]
    expect_ms_x_resps: list[float]
    http_codes: list[tuple[list[int], list[int]]]
    net_codes: list[tuple[list[int], list[int]]]
    hist: list[tuple[list[int], list[int]]]


def buckets(sel: Selection, origin: int, ratio: int, *, with_hist: bool = True) -> Buckets:
    hist_sql = "sumMap(hist_bins, hist_counts)" if with_hist else "([], [])"
    sums = (
        "uniqExact(ts)",
        "sum(resps)",
        "sum(input_bytes)",
        "sum(output_bytes)",
        "sum(connect_time_ms * resps)",
        "sum(send_time_ms * resps)",
        "sum(latency_ms * resps)",
        "sum(receive_time_ms * resps)",
        "sum(expect_ms * resps)",
        "sumMap(http_codes, http_counts)",
        "sumMap(net_codes, net_counts)",
        hist_sql,
    )
    rows = _per_bucket(sel, origin, ratio, sums, sel.aggregates_where(), "reports.series.buckets")
    return rows_as(Buckets, rows)


# Its fields are the SELECT's columns, in order (columns.rows_as).
@dataclass(frozen=True)
class Load:
    """The generator's side per bucket, from the overall rows: planned RPS, instances, responses."""

    start: list[int]
    planned_rps: list[float]
    instances: list[float]
    resps: list[int]
    seconds: list[int]


def load(sel: Selection, origin: int, ratio: int) -> Load:
    sums = ("avg(reqps)", "avg(threads)", "sum(resps)", "uniqExact(ts)")
    where = f"{sel.aggregates_where(all_cases=True)} AND case = ''"
    rows = _per_bucket(sel, origin, ratio, sums, where, "reports.series.load")
    return rows_as(Load, rows)


# Its fields are the SELECT's columns, in order (columns.rows_as).
@dataclass(frozen=True)
class SecondHists:
    """Per second: responses of the overall rows (the load) and the merged histogram of the selected cases."""

    ts: list[int]
    load_resps: list[int]
    hist: list[tuple[list[int], list[int]]]


def second_hists(sel: Selection) -> SecondHists:
    rows = client.execute(
        f"""
        SELECT
            ts,
            sumIf(resps, case = ''),
            sumMapIf(hist_bins, hist_counts, case IN %(cases)s)
        FROM {T} FINAL
        WHERE {sel.aggregates_where(all_cases=True)} AND (case = '' OR case IN %(cases)s)
        GROUP BY ts
        ORDER BY ts
        """,
        sel.params(),
        tag="reports.series.second_hists",
    )
    return rows_as(SecondHists, rows)


@dataclass(frozen=True)
class CaseTotals:
    """Whole-window totals of one case ('' = overall) at full resolution."""

    case: str
    resps: int
    seconds: list[int]  # the seconds with responses, ascending, and their responses
    resps_per_second: list[int]
    expect_ms_x_resps: float
    http_codes: dict[int, int]
    net_codes: dict[int, int]
    hist_bins: list[int]
    hist_counts: list[int]


def case_totals(sel: Selection, *, all_cases: bool) -> list[CaseTotals]:
    """Totals per case in the window: every case and the overall row when `all_cases`, else the selected ones."""
    rows = client.execute(
        f"""
        SELECT
            case,
            sum(resps),
            arraySort(groupArrayIf((ts, resps), resps > 0)) AS busy_seconds,
            arrayMap(pair -> tupleElement(pair, 1), busy_seconds),
            arrayMap(pair -> tupleElement(pair, 2), busy_seconds),
            sum(expect_ms * resps),
            sumMap(http_codes, http_counts),
            sumMap(net_codes, net_counts),
            sumMap(hist_bins, hist_counts)
        FROM {T} FINAL
        WHERE {sel.aggregates_where(all_cases=all_cases)}
        GROUP BY case
        ORDER BY case
        """,
        sel.params(),
        tag="reports.series.case_totals",
    )
    out = []
    for r in rows:
        out.append(
            CaseTotals(
                case=str(r[0]),
                resps=int(r[1]),
                seconds=[int(t) for t in r[3]],
                resps_per_second=[int(n) for n in r[4]],
                expect_ms_x_resps=float(r[5]),
                http_codes=dict(zip((int(c) for c in r[6][0]), (int(n) for n in r[6][1]), strict=True)),
                net_codes=dict(zip((int(c) for c in r[7][0]), (int(n) for n in r[7][1]), strict=True)),
                hist_bins=[int(b) for b in r[8][0]],
                hist_counts=[int(n) for n in r[8][1]],
            )
        )
    return out
