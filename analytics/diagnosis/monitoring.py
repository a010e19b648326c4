"""Hints from the target's monitoring (telegraf metrics as the tank sends them).

Three patterns the talk points out by eye: one CPU core saturated while the others idle (a single-threaded
bottleneck: more cores will not help), the CPU at 100 % when the service broke (CPU-bound), and memory that grows
through the test (a leak or an unbounded cache). Metric names: telegraf's `custom:cpu-cpu<N>_usage_idle` /
`..._usage_user` / `..._usage_system` (per core), `custom:cpu-cpu-total_usage_*` or the old `CPU_idle`,
`CPU_user`, `CPU_system` (total), and `Memory_used` (bytes).
"""

from __future__ import annotations

import re

import numpy as np

from analytics.diagnosis.types import Annotation, Finding, FloatArray, MonitoringSeries, utc_clock

_CORE = re.compile(r"cpu-cpu(\d+)_usage_(idle|user|system)$")
_TOTAL = re.compile(r"(?:cpu-cpu-total_usage_|^CPU_)(idle|user|system)$")


def _busy(parts: dict[str, tuple[FloatArray, FloatArray]]) -> tuple[FloatArray, FloatArray] | None:
    """CPU busy % per second from idle (100 − idle) or, without idle, user + system."""
    if "idle" in parts:
        ts, idle = parts["idle"]
        return ts, np.clip(100.0 - idle, 0.0, 100.0)
    if "user" in parts:
        ts, user = parts["user"]
        busy = user.copy()
        if "system" in parts:
            sys_ts, system = parts["system"]
            busy = busy + np.interp(ts, sys_ts, system)
        return ts, np.clip(busy, 0.0, 100.0)
    return None


def _window(ts: FloatArray, values: FloatArray, first_ts: float, last_ts: float) -> tuple[FloatArray, FloatArray]:
    keep = (ts >= first_ts) & (ts <= last_ts) & np.isfinite(values)
    return ts[keep], values[keep]


def cpu_series(
    host: MonitoringSeries,
) -> tuple[dict[int, tuple[FloatArray, FloatArray]], tuple[FloatArray, FloatArray] | None]:
    """Busy % per core and in total for one host."""
    cores: dict[int, dict[str, tuple[FloatArray, FloatArray]]] = {}
    total: dict[str, tuple[FloatArray, FloatArray]] = {}
    for name, series in host.metrics.items():
        core = _CORE.search(name)
        if core:
            cores.setdefault(int(core.group(1)), {})[core.group(2)] = series
            continue
        tot = _TOTAL.search(name)
        if tot:
            total[tot.group(1)] = series
    busy_cores = {idx: b for idx, parts in cores.items() if (b := _busy(parts)) is not None}
    return busy_cores, _busy(total) if total else None


def single_core_hint(host: MonitoringSeries, first_ts: float, last_ts: float) -> Finding | None:
    cores, _ = cpu_series(host)
    if len(cores) < 2:
        return None
    grid = np.arange(int(first_ts), int(last_ts) + 1, dtype=np.float64)
    rows = []
    for idx in sorted(cores):
        ts, busy = _window(*cores[idx], first_ts, last_ts)
        if ts.size < 5:
            return None
        rows.append(np.interp(grid, ts, busy))
    matrix = np.vstack(rows)  # cores × seconds
    hottest = matrix.max(axis=0)
    hot_core = matrix.argmax(axis=0)
    # Median of the cores other than the hottest one: drop the largest value of each column.
    others = np.median(np.sort(matrix, axis=0)[:-1], axis=0)
    lopsided = (hottest >= 90.0) & (others <= 30.0)
    if lopsided.sum() < max(10, 0.2 * grid.size):
        return None
    first = int(np.argmax(lopsided))
    core_ids = sorted(cores)
    main_core = core_ids[int(np.bincount(hot_core[lopsided]).argmax())]
    return Finding(
        kind="single_core",
        severity="warning",
        title=f"{host.host}: one CPU core saturated while the others idle",
        text=(
            f"On {host.host}, core {main_core} was at 90 % or more while the median of the other "
            f"{len(cores) - 1} cores stayed at 30 % or less for {int(lopsided.sum())} s of the test "
            f"(from {utc_clock(grid[first])} UTC). The service is bound by one thread: more cores or instances "
            "of the generator will not raise throughput; look for a single-threaded stage (event loop, lock, GIL)."
        ),
        evidence={
            "host": host.host,
            "core": main_core,
            "cores": len(cores),
            "seconds_lopsided": int(lopsided.sum()),
            "first_ts": int(grid[first]),
            "hottest_core_busy_pct": round(float(np.median(hottest[lopsided])), 1),
            "other_cores_busy_pct": round(float(np.median(others[lopsided])), 1),
        },
        annotations=[Annotation(int(grid[first]), f"one core saturated ({host.host})")],
    )


def cpu_at_imbalance_hint(host: MonitoringSeries, imbalance_ts: float) -> Finding | None:
    cores, total = cpu_series(host)
    if total is None and cores:
        # No total metric: the mean of the cores is the host's busy share.
        grid = np.unique(np.concatenate([c[0] for c in cores.values()]))
        total = grid, np.mean([np.interp(grid, ts, b) for ts, b in cores.values()], axis=0)
    if total is None:
        return None
    ts, busy = _window(*total, imbalance_ts - 5, imbalance_ts + 5)
    if ts.size < 3:
        return None
    level = float(np.median(busy))
    if level < 95.0:
        return None
    return Finding(
        kind="cpu_saturated",
        severity="warning",
        title=f"{host.host}: CPU at {level:.0f} % when the service broke",
        text=(
            f"Around the imbalance point ({utc_clock(imbalance_ts)} UTC) the CPU of {host.host} was {level:.0f} % "
            "busy: the service is CPU-bound at this load. Profile the hot path or add CPU before expecting more RPS."
        ),
        evidence={"host": host.host, "ts": int(imbalance_ts), "cpu_busy_pct": round(level, 1)},
        annotations=[Annotation(int(imbalance_ts), f"CPU {level:.0f} % ({host.host})")],
    )


def memory_growth_hint(host: MonitoringSeries, first_ts: float, last_ts: float) -> Finding | None:
    series = host.metrics.get("Memory_used")
    if series is None:
        return None
    ts, used = _window(*series, first_ts, last_ts)
    if ts.size < 30 or float(used[0]) <= 0:
        return None
    slope, intercept = np.polyfit(ts - ts[0], used, 1)
    fitted = slope * (ts - ts[0]) + intercept
    residual = float(((used - fitted) ** 2).sum())
    total = float(((used - used.mean()) ** 2).sum())
    r2 = 1.0 - residual / total if total > 0 else 0.0
    growth = float(fitted[-1] - fitted[0])
    start = float(fitted[0])
    if slope <= 0 or r2 < 0.8 or growth < 0.1 * start:
        return None
    mib = 1024.0 * 1024.0
    return Finding(
        kind="memory_growth",
        severity="warning",
        title=f"{host.host}: memory grew by {growth / mib:.0f} MiB through the test",
        text=(
            f"Used memory on {host.host} rose steadily from {start / mib:.0f} MiB to {fitted[-1] / mib:.0f} MiB "
            f"({slope * 60 / mib:.1f} MiB per minute, a straight line explains {r2:.0%} of it). A leak or an "
            "unbounded cache: a longer test at this load would run out of memory."
        ),
        evidence={
            "host": host.host,
            "start_mib": round(start / mib, 1),
            "end_mib": round(float(fitted[-1]) / mib, 1),
            "mib_per_min": round(slope * 60 / mib, 2),
            "r2": round(r2, 3),
        },
        annotations=[Annotation(int(ts[-1]), f"memory +{growth / mib:.0f} MiB ({host.host})")],
    )


def monitoring_hints(
    hosts: list[MonitoringSeries], first_ts: float, last_ts: float, imbalance_ts: float | None
) -> list[Finding]:
    findings: list[Finding] = []
    for host in hosts:
        for finding in (
            single_core_hint(host, first_ts, last_ts),
            cpu_at_imbalance_hint(host, imbalance_ts) if imbalance_ts is not None else None,
            memory_growth_hint(host, first_ts, last_ts),
        ):
            if finding is not None:
                findings.append(finding)
    return findings
