"""Monitoring charts: one per host and group, with readable metric names and a unit on the value axis.

The tank sends telegraf's names (`custom:cpu-cpu-total_usage_user`, `Memory_used`): legends say "user" (in the
CPU chart, "all CPUs" or "cpu0" when there are several), memory and byte counters are scaled to MiB or GiB.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from analytics.figures import Figure, lines_figure

MIB = 1024.0**2
GIB = 1024.0**3

# The tank's legacy names (tank-protocol.md §4.5) and what they count.
LEGACY_LABELS: dict[str, str] = {
    "memory_used": "used",
    "memory_free": "free",
    "memory_cached": "cached",
    "memory_buff": "buffers",
    "system_la1": "load, 1 min",
    "system_la5": "load, 5 min",
    "system_la15": "load, 15 min",
    "system_csw": "context switches",
    "system_int": "interrupts",
    "system_forks": "forks",
    "net_retransmit": "TCP retransmits",
    "net_rx": "received",
    "net_tx": "sent",
    "net_estab": "established connections",
}
GROUP_TITLES: dict[str, str] = {
    "cpu": "CPU",
    "memory": "Memory",
    "load": "Load average",
    "network": "Network",
    "disk": "Disk",
    "custom": "Other metrics",
}
_CPU = re.compile(r"^cpu-cpu-?(?P<cpu>total|\d+)_(?:usage_)?(?P<field>.+)$")


def metric_label(metric: str) -> str:
    """A reader's name for a telegraf metric, within its group's chart."""
    name = metric.lower()
    if name in LEGACY_LABELS:
        return LEGACY_LABELS[name]
    bare = metric.removeprefix("custom:")
    cpu = _CPU.match(bare.lower())
    if cpu:
        which = "all CPUs" if cpu["cpu"] == "total" else f"cpu{cpu['cpu']}"
        return f"{cpu['field'].replace('_', ' ')} ({which})"
    for prefix in ("mem_", "mem-", "diskio-", "disk-", "net-", "net_", "system_"):
        if bare.lower().startswith(prefix):
            bare = bare[len(prefix) :]
            break
    return bare.replace("_", " ").replace("-", " ").strip() or metric


def _is_bytes(group: str, metrics: Sequence[str]) -> bool:
    if group == "memory":
        return True
    return bool(metrics) and all("bytes" in m.lower() for m in metrics)


def value_unit(group: str, metrics: Sequence[str], peak: float) -> tuple[str, float]:
    """The value axis' title and the divisor that brings the values to it."""
    if _is_bytes(group, metrics):
        return ("GiB", GIB) if peak >= 2 * GIB else ("MiB", MIB)
    if group == "cpu":
        return "%", 1.0
    if group == "load":
        return "processes waiting (load average)", 1.0
    return "value", 1.0


def monitoring_figure(host: str, group: str, series: Mapping[str, tuple[Sequence[int], Sequence[float]]]) -> Figure:
    """One host's group of metrics over time; `series` maps telegraf's metric name to (unix s, values)."""
    metrics = sorted(series)
    peak = max(
        (float(np.nanmax(np.asarray(ys, dtype=np.float64), initial=0.0)) for _, ys in series.values()), default=0.0
    )
    unit, divisor = value_unit(group, metrics, peak)
    data = []
    for metric in metrics:
        xs, ys = series[metric]
        scaled = {metric_label(metric): np.asarray(ys, dtype=np.float64) / divisor}
        trace = lines_figure("", xs, scaled, unit)["data"][0]
        trace["hovertemplate"] = "%{y} " + unit
        data.append(trace)
    layout = lines_figure(f"{host}: {GROUP_TITLES.get(group, group)}", [], {}, unit)["layout"]
    return {"data": data, "layout": layout}
