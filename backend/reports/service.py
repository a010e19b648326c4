"""Report logic: every figure, table and summary of the report for a window.

Views call one function here and serialize its dict. Which data a test reads is backend/reports/source.py's: the
active upload's raw samples and derived per-second rows when there is an upload (exact), else the tank's stream
(source 0, histogram quantiles). Numbers are computed by analytics/ (pure); this module only
fetches through backend.clickhouse.queries and assembles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from analytics import figures, figures_monitoring
from analytics.definitions import code_rows, merge_counts, outcomes, rps_figures
from analytics.diagnosis.engine import closed_model, plan_of_scheme
from analytics.diagnosis.loadscheme import LoadScheme, LoadSchemeError, parse_load_scheme
from analytics.downsample import auto_compress_ratio
from analytics.histogram import BIN_COUNT, BIN_EDGES_US, LOWER_EDGES_US
from analytics.intervals import interval_table
from analytics.quantiles import (
    as_ms_dict,
    dense_histogram,
    histogram_quantiles_us,
    level_key,
)
from analytics.series import MONITORING_GROUPS, metric_group
from analytics.stats import case_summary
from backend.clickhouse.queries import monitoring as q_monitoring
from backend.clickhouse.queries import series as q_series
from backend.clickhouse.queries import summary as q_summary
from backend.clickhouse.queries.selection import Selection
from backend.loadtests.models import Test
from backend.reports.source import Source, source_of
from backend.reports.window import Window

CHART_NAMES: tuple[str, ...] = (
    "quantiles",
    "http_codes",
    "net_codes",
    "times",
    "sizes",
    "quantiles_by_load",
    "instances_rps",
    "distribution",
)
OVERALL = "overall"
# quantiles_by_load groups seconds into at most this many load levels.
MAX_LOAD_LEVELS = 60
# Hard cap on points per time series, whatever compress_ratio asks.
MAX_POINTS = 7200


class UnknownChart(ValueError):
    pass


def _selection(test: Test, window: Window, source: Source) -> Selection:
    return Selection(
        test_id=int(test.pk),
        source_id=source.source_id,
        upload_id=source.upload_id,
        from_ts=window.from_ts,
        to_ts=window.to_ts,
        cases=window.cases,
    )


def bounds(test: Test, source: Source) -> q_series.Span:
    """The source's first and last second and its cases; an upload with no per-second rows yet: its samples' span."""
    span = q_series.span(int(test.pk), source.source_id)
    if span.first_ts is None and source.upload_id is not None:
        first, last, _ = q_summary.sample_span(int(test.pk), source.upload_id)
        return q_series.Span(first, last, [])
    return span


@dataclass(frozen=True)
class Resolution:
    origin: int
    end: int  # exclusive
    ratio: int


def _resolution(window: Window, b: q_series.Span) -> Resolution | None:
    first = window.from_ts if window.from_ts is not None else b.first_ts
    end = window.to_ts if window.to_ts is not None else (b.last_ts + 1 if b.last_ts is not None else None)
    if first is None or end is None or end <= first:
        return None
    ratio = window.compress_ratio or auto_compress_ratio(end - first)
    # An explicit ratio is honoured up to MAX_POINTS per series; beyond, the answer's compress_ratio says what
    # was used (a day at 1 s per point would be 86,400 points per trace).
    ratio = max(ratio, auto_compress_ratio(end - first, MAX_POINTS))
    return Resolution(origin=first, end=end, ratio=ratio)


# ── report ──────────────────────────────────────────────────────────────────────────────────────────────


def report(test: Test) -> dict[str, Any]:
    source = source_of(test)
    b = bounds(test, source)
    stream_span = q_series.sources(int(test.pk))
    sources = [
        {
            "source_id": sid,
            "kind": "stream" if sid == 0 else "upload",
            "first_ts": first,
            "last_ts": last,
            "active": sid == source.source_id,
        }
        for sid, (first, last) in sorted(stream_span.items())
    ]
    duration = (b.last_ts - b.first_ts + 1) if b.first_ts is not None and b.last_ts is not None else 0
    return {
        "id": int(test.pk),
        "status": test.status,
        "exact": source.exact,
        "first_ts": b.first_ts,
        "last_ts": b.last_ts,
        "cases": b.cases,
        "sources": sources,
        "monitoring_hosts": q_monitoring.hosts(int(test.pk)),
        "compress_ratio": auto_compress_ratio(duration) if duration else 1,
        "charts": list(CHART_NAMES),
    }


# ── summary (contract.md) ───────────────────────────────────────────────────────────────────────────────


def _str_keys(counts: dict[int, int]) -> dict[str, int]:
    return {str(code): int(n) for code, n in sorted(counts.items()) if n}


def summary(test: Test, window: Window) -> dict[str, Any]:
    """contract.md's summary. Counts, codes and RPS come from the source's per-second rows, which are exact for
    both sources (an upload's rows are derived from all its samples); quantiles are order statistics of the raw
    samples when there are some (one scan of `samples`), else estimates from the merged histograms."""
    source = source_of(test)
    sel = _selection(test, window, source)
    levels = window.levels_pct
    totals = q_series.case_totals(sel, all_cases=False)
    count = sum(t.resps for t in totals)
    http = merge_counts(*(t.http_codes for t in totals))
    net = merge_counts(*(t.net_codes for t in totals))
    # Several selected cases: their rows of one second add up (rps_figures sums them per second).
    rps = rps_figures([s for t in totals for s in t.seconds], [n for t in totals for n in t.resps_per_second])
    if source.exact:
        values_us, counted = q_summary.exact_quantiles_us(sel, levels)
        quantiles = as_ms_dict(levels, values_us if counted else [float("nan")] * len(levels))
    else:
        hist = dense_histogram([b for t in totals for b in t.hist_bins], [c for t in totals for c in t.hist_counts])
        quantiles = as_ms_dict(levels, histogram_quantiles_us(hist, levels))
    b = bounds(test, source) if window.from_ts is None or window.to_ts is None else None
    return {
        "test": int(test.pk),
        "from": window.from_ts if window.from_ts is not None else (b.first_ts if b else None),
        "to": window.to_ts if window.to_ts is not None else (b.last_ts + 1 if b and b.last_ts is not None else None),
        "cases": list(window.cases),
        "exact": source.exact,
        "count": count,
        "quantiles_ms": quantiles,
        "http_codes": _str_keys(http),
        "net_codes": _str_keys(net),
        "rps": {"mean": rps.mean, "max": rps.max},
        "outcomes": outcomes(http, net).as_dict(),
    }


# ── charts ──────────────────────────────────────────────────────────────────────────────────────────────


def _hist_matrix(hists: Sequence[tuple[Sequence[int], Sequence[int]]]) -> npt.NDArray[np.int64]:
    matrix = np.zeros((len(hists), BIN_COUNT), dtype=np.int64)
    for row, (bins, counts) in enumerate(hists):
        if len(bins):
            np.add.at(matrix[row], np.asarray(bins, dtype=np.int64), np.asarray(counts, dtype=np.int64))
    return matrix


def _per_second(values: Sequence[float], starts: Sequence[int], res: Resolution) -> npt.NDArray[np.float64]:
    # A bucket cut by the window's end holds fewer seconds: divide by what it really covers.
    lengths = np.minimum(res.ratio, res.end - np.asarray(starts, dtype=np.int64)).clip(min=1)
    out: npt.NDArray[np.float64] = np.asarray(values, dtype=np.float64) / lengths
    return out


def _code_series(
    per_bucket: Sequence[tuple[Sequence[int], Sequence[int]]], starts: Sequence[int], res: Resolution
) -> dict[int, npt.NDArray[np.float64]]:
    codes = sorted({int(c) for keys, _ in per_bucket for c in keys})
    out: dict[int, npt.NDArray[np.float64]] = {}
    for code in codes:
        values = [float(dict(zip(keys, counts, strict=True)).get(code, 0)) for keys, counts in per_bucket]
        out[code] = _per_second(values, starts, res)
    return out


def _with_time_range(figure: dict[str, Any], res: Resolution) -> dict[str, Any]:
    # Every time chart of a view shares one axis range, so the tabs line up (monitoring too).
    if "xaxis" in figure["layout"]:
        figure["layout"]["xaxis"].update(figures.time_axis_ticks(res.origin, res.end))
        figure["layout"]["xaxis"]["range"] = [res.origin * 1000, res.end * 1000]
    return figure


def _empty(name: str, reason: str = "No responses in this window.") -> dict[str, Any]:
    return figures.empty_figure(name, reason)


def chart(test: Test, name: str, window: Window) -> dict[str, Any]:
    if name not in CHART_NAMES:
        raise UnknownChart(f"unknown chart {name!r}; charts: {', '.join(CHART_NAMES)}")
    source = source_of(test)
    b = bounds(test, source)
    res = _resolution(window, b)
    if res is None:
        return {"figure": _empty(name), "compress_ratio": window.compress_ratio or 1}
    sel = _selection(test, window, source)
    builders: dict[str, Callable[[Selection, Resolution, Window], dict[str, Any]]] = {
        "quantiles": partial(_quantiles_chart, schedule=schedule_of(test, b)),
        "http_codes": _http_codes_chart,
        "net_codes": _net_codes_chart,
        "times": _times_chart,
        "sizes": _sizes_chart,
        "quantiles_by_load": _quantiles_by_load_chart,
        "instances_rps": partial(_instances_rps_chart, schedule=schedule_of(test, b)),
        "distribution": _distribution_chart,
    }
    figure = builders[name](sel, res, window)
    return {"figure": figure, "compress_ratio": res.ratio}


@dataclass(frozen=True)
class Schedule:
    """The test's load scheme (`--schedule` of an upload, the tank's loadscheme) and the first second it starts at."""

    scheme: LoadScheme
    first_ts: int


def schedule_of(test: Test, b: q_series.Span) -> Schedule | None:
    if not test.loadscheme or b.first_ts is None:
        return None
    try:
        scheme = parse_load_scheme(test.loadscheme)
    except LoadSchemeError:
        return None
    return Schedule(scheme, b.first_ts) if scheme.segments else None


def _generator_load(sel: Selection, res: Resolution, schedule: Schedule | None) -> q_series.Load:
    """Responses per bucket of the selection's source, with planned RPS and instances. phout carries neither of
    the latter: for an upload attached to a streamed test they come from the tank's stream (source 0). Without a
    plan from the generator, the test's schedule is the plan, laid out as the diagnosis lays it out (its
    `plan_of_scheme`, unless instances drive the load)."""
    load = q_series.load(sel, res.origin, res.ratio)
    if sel.source_id != 0 and not any(load.planned_rps) and not any(load.instances):
        stream = q_series.load(replace(sel, source_id=0), res.origin, res.ratio)
        by_start = {s: i for i, s in enumerate(stream.start)}
        load = q_series.Load(
            start=load.start,
            planned_rps=[stream.planned_rps[by_start[s]] if s in by_start else 0.0 for s in load.start],
            instances=[stream.instances[by_start[s]] if s in by_start else 0.0 for s in load.start],
            resps=load.resps,
            seconds=load.seconds,
        )
    if schedule is None or any(load.planned_rps) or closed_model(load.planned_rps, load.instances) or not load.start:
        return load
    # The plan is laid out only over the seconds both the window and the scheme cover (NaN elsewhere, which the
    # mean skips): a window reaching far past the data (`?to=` in 2072) costs what the scheme does, not its span.
    first = max(res.origin, schedule.first_ts)
    end = min(res.end, schedule.first_ts + schedule.scheme.duration_s)
    per_second = plan_of_scheme(schedule.scheme, schedule.first_ts, np.arange(first, max(first, end)))
    with np.errstate(all="ignore"):
        buckets = [float(np.nanmean(per_second[max(0, s - first) : max(0, s - first + res.ratio)])) for s in load.start]
    return replace(load, planned_rps=[0.0 if not np.isfinite(v) else v for v in buckets])


def _quantiles_chart(sel: Selection, res: Resolution, window: Window, schedule: Schedule | None) -> dict[str, Any]:
    b = q_series.buckets(sel, res.origin, res.ratio)
    load = _generator_load(sel, res, schedule)
    q_ms = histogram_quantiles_us(_hist_matrix(b.hist), window.levels_pct) / 1000.0 if b.start else np.zeros((0, 0))
    by_start = {s: i for i, s in enumerate(load.start)}
    planned = [load.planned_rps[by_start[s]] if s in by_start else float("nan") for s in b.start]
    instances = [load.instances[by_start[s]] if s in by_start else float("nan") for s in b.start]
    fig = figures.quantiles_figure(
        b.start, window.levels_pct, q_ms, _per_second(b.resps, b.start, res), planned, instances
    )
    return _with_time_range(fig, res)


def _http_codes_chart(sel: Selection, res: Resolution, window: Window) -> dict[str, Any]:
    b = q_series.buckets(sel, res.origin, res.ratio, with_hist=False)
    fig = figures.codes_figure("HTTP codes", b.start, _code_series(b.http_codes, b.start, res), "responses/s")
    return _with_time_range(fig, res)


def _net_codes_chart(sel: Selection, res: Resolution, window: Window) -> dict[str, Any]:
    b = q_series.buckets(sel, res.origin, res.ratio, with_hist=False)
    fig = figures.codes_figure("Net codes", b.start, _code_series(b.net_codes, b.start, res), "responses/s")
    return _with_time_range(fig, res)


def _lines_or_empty(
    title: str, start: list[int], series: dict[str, Any], unit: str, res: Resolution, none_recorded: str
) -> dict[str, Any]:
    """Lines of `series` over the window; where the generator recorded none of them, an empty figure saying so
    (`none_recorded`) rather than a flat zero."""
    if not figures.has_values(series.values()):
        return _empty(title, f"{none_recorded}: nothing to draw, rather than a flat zero.")
    return _with_time_range(figures.lines_figure(title, start, series, unit), res)


def _times_chart(sel: Selection, res: Resolution, window: Window) -> dict[str, Any]:
    b = q_series.buckets(sel, res.origin, res.ratio, with_hist=False)
    resps = np.asarray(b.resps, dtype=np.float64)
    resps[resps == 0] = np.nan

    def mean(values: list[float]) -> npt.NDArray[np.float64]:
        return np.asarray(values, dtype=np.float64) / resps

    series = {
        "connect": mean(b.connect_ms_x_resps),
        "send": mean(b.send_ms_x_resps),
        "latency": mean(b.latency_ms_x_resps),
        "receive": mean(b.receive_ms_x_resps),
    }
    return _lines_or_empty(
        "Mean phase times",
        b.start,
        series,
        "ms",
        res,
        "The generator recorded no phase times for these requests (BFG, k6's and Gatling's files and Locust's "
        "history give the whole response time only)",
    )


def _sizes_chart(sel: Selection, res: Resolution, window: Window) -> dict[str, Any]:
    b = q_series.buckets(sel, res.origin, res.ratio, with_hist=False)
    series = {
        "bytes in/s": _per_second(b.input_bytes, b.start, res),
        "bytes out/s": _per_second(b.output_bytes, b.start, res),
    }
    return _lines_or_empty(
        "Bytes in and out",
        b.start,
        series,
        "bytes/s",
        res,
        "The generator recorded no sizes for these requests (BFG and Pandora write 0 unless told to, k6 and "
        "Gatling files carry none)",
    )


def _nice_step(value: float) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10000, 20000, 50000):
        if step >= value:
            return step
    return int(np.ceil(value / 100000.0)) * 100000


def _quantiles_by_load_chart(sel: Selection, res: Resolution, window: Window) -> dict[str, Any]:
    sh = q_series.second_hists(sel)
    load = np.asarray(sh.load_resps, dtype=np.int64)
    if load.size == 0:
        return _empty("quantiles by load")
    step = _nice_step(float(load.max()) / MAX_LOAD_LEVELS)
    level_of = load // step
    levels, group = np.unique(level_of, return_inverse=True)
    matrix = np.zeros((levels.size, BIN_COUNT), dtype=np.int64)
    for second, (bins, counts) in enumerate(sh.hist):
        if len(bins):
            np.add.at(matrix[group[second]], np.asarray(bins, dtype=np.int64), np.asarray(counts, dtype=np.int64))
    mean_rps = np.bincount(group, weights=load) / np.bincount(group)
    q_ms = histogram_quantiles_us(matrix, window.levels_pct) / 1000.0
    fig = figures.quantiles_by_load_figure(mean_rps, window.levels_pct, q_ms)
    fig["layout"]["xaxis"]["title"]["text"] = f"responses/s (seconds grouped by {step} rps)"
    return fig


def _instances_rps_chart(sel: Selection, res: Resolution, window: Window, schedule: Schedule | None) -> dict[str, Any]:
    load = _generator_load(sel, res, schedule)
    if not any(i > 0 for i in load.instances):
        return _empty(
            "Instances vs responses/s",
            "The generator reported no instances for this test (phout files and pandora do not carry them), "
            "so there is nothing to plot against.",
        )
    return figures.instances_rps_figure(load.start, load.instances, _per_second(load.resps, load.start, res))


def _distribution_chart(sel: Selection, res: Resolution, window: Window) -> dict[str, Any]:
    totals = q_series.case_totals(sel, all_cases=False)
    per_series: dict[str, tuple[Any, Any, Any]] = {}
    for t in totals:
        hist = dense_histogram(t.hist_bins, t.hist_counts)
        nonzero = np.nonzero(hist)[0]
        if nonzero.size == 0:
            continue
        lows = LOWER_EDGES_US[nonzero] / 1000.0
        widths = (BIN_EDGES_US[nonzero] - LOWER_EDGES_US[nonzero]) / 1000.0
        per_series[t.case or OVERALL] = (lows, widths, hist[nonzero])
    return figures.distribution_figure(per_series, log=window.log)


# ── tables ──────────────────────────────────────────────────────────────────────────────────────────────


def tables(test: Test, window: Window) -> dict[str, Any]:
    """Cumulative tables for the window, never downsampled: quantiles (overall and per case), codes, cases."""
    source = source_of(test)
    sel = _selection(test, window, source)
    everything = q_series.case_totals(replace(sel, cases=()), all_cases=True)
    by_case = {t.case: t for t in everything}
    wanted = list(window.cases) if window.cases else sorted(c for c in by_case if c)
    levels = window.levels_pct

    columns = [OVERALL, *wanted]
    values: dict[str, list[float | None]] = {}
    if source.exact:
        overall_us, counted = q_summary.exact_quantiles_us(replace(sel, cases=()), levels)
        values[OVERALL] = list(as_ms_dict(levels, overall_us if counted else [float("nan")] * len(levels)).values())
        tag_sel = replace(sel, cases=tuple(wanted)) if wanted else replace(sel, cases=())
        # Tag '' holds requests of no case: they count in the overall column only.
        per_tag = {s.tag: s for s in q_summary.exact_by_tag(tag_sel, levels) if s.tag}
        for case in wanted:
            stats = per_tag.get(case)
            vals = stats.quantiles_us if stats and stats.timed else [float("nan")] * len(levels)
            values[case] = list(as_ms_dict(levels, vals).values())
    else:
        for column, key in [(OVERALL, ""), *((c, c) for c in wanted)]:
            t = by_case.get(key)
            hist = dense_histogram(t.hist_bins, t.hist_counts) if t else np.zeros(BIN_COUNT, dtype=np.int64)
            values[column] = list(as_ms_dict(levels, histogram_quantiles_us(hist, levels)).values())
    quantile_rows = [
        {"level": level_key(level), "values": [values[c][i] for c in columns]} for i, level in enumerate(levels)
    ]

    overall = by_case.get("")
    if window.cases:
        picked = [by_case[c] for c in window.cases if c in by_case]
        http = merge_counts(*(t.http_codes for t in picked))
        net = merge_counts(*(t.net_codes for t in picked))
    else:
        http = dict(overall.http_codes) if overall else {}
        net = dict(overall.net_codes) if overall else {}

    case_rows = []
    for column, key in [(OVERALL, ""), *((c, c) for c in wanted)]:
        case_rows.append(_case_row(column, by_case.get(key)))
    return {
        "exact": source.exact,
        "quantiles": {"columns": columns, "rows": quantile_rows},
        "http_codes": [r.as_dict() for r in code_rows("http", http)],
        "net_codes": [r.as_dict() for r in code_rows("net", net)],
        "cases": case_rows,
        "intervals": [asdict(r) for r in interval_table(_window_hist(by_case, window))],
    }


def _window_hist(by_case: dict[str, q_series.CaseTotals], window: Window) -> npt.NDArray[np.int64]:
    """The histogram of the window's selection: the chosen cases', else every response's."""
    picked = (
        [by_case[c] for c in window.cases if c in by_case] if window.cases else [by_case[""]] if "" in by_case else []
    )
    return dense_histogram([b for t in picked for b in t.hist_bins], [c for t in picked for c in t.hist_counts])


def _case_row(name: str, t: q_series.CaseTotals | None) -> dict[str, Any]:
    if t is None:
        t = q_series.CaseTotals(name, 0, [], [], 0.0, {}, {}, [], [])
    return case_summary(
        name,
        count=t.resps,
        seconds=t.seconds,
        resps_per_second=t.resps_per_second,
        expect_ms_x_resps=t.expect_ms_x_resps,
        net_codes=t.net_codes,
        http_codes=t.http_codes,
    ).as_dict()


# ── monitoring ──────────────────────────────────────────────────────────────────────────────────────────


def monitoring(test: Test, window: Window) -> dict[str, Any]:
    source = source_of(test)
    b = bounds(test, source)
    res = _resolution(window, b)
    hosts = q_monitoring.hosts(int(test.pk))
    if res is None or not hosts:
        return {"compress_ratio": window.compress_ratio or 1, "hosts": [{"host": h, "groups": []} for h in hosts]}
    points = q_monitoring.series(int(test.pk), res.origin, res.end, res.origin, res.ratio)
    grouped: dict[str, dict[str, dict[str, tuple[list[int], list[float]]]]] = {}
    for p in points:
        metrics = grouped.setdefault(p.host, {}).setdefault(metric_group(p.metric), {})
        xs, ys = metrics.setdefault(p.metric, ([], []))
        xs.append(p.bucket)
        ys.append(p.value)
    out_hosts = []
    for host in hosts:
        groups = []
        for group in MONITORING_GROUPS:
            in_group = grouped.get(host, {}).get(group)
            if not in_group:
                continue
            fig = _with_time_range(figures_monitoring.monitoring_figure(host, group, in_group), res)
            groups.append({"group": group, "metrics": sorted(in_group), "figure": fig})
        out_hosts.append({"host": host, "groups": groups})
    return {"compress_ratio": res.ratio, "hosts": out_hosts}


def config(test: Test) -> dict[str, Any]:
    return {
        "configinitial": test.config_initial,
        "configinfo": test.config_info,
        "monitoringconfig": test.config_monitoring,
    }
