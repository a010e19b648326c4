"""Monitoring charts: one per host and group, with readable metric names and a unit on every value axis.

The tank sends telegraf's names (`custom:cpu-cpu-total_usage_user`, `Memory_used`): legends say "user" (in the
CPU chart, "all CPUs" or "cpu0" when there are several). A group's metrics of different kinds never share an axis:
bytes, packets, retransmits and connections of the network each get their own panel, one above the other, with
its unit. Memory is a level (MiB or GiB); network and disk bytes are counted per second (KiB/s, MiB/s), as the
tank's telegraf sends them (the change since the last second). Metrics are listed in natural order (load 1, 5,
15 minutes; cpu2 before cpu10).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analytics.figures import RATE_TICKS, Figure, lines_figure
from analytics.numbers import is_digits

KIB = 1024.0
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


def natural_key(text: str) -> list[Any]:
    """Sort key reading digit runs as numbers: la1, la5, la15; cpu2, cpu10."""
    return [int(part) if is_digits(part) else part for part in re.split(r"([0-9]+)", text.lower())]


@dataclass(frozen=True)
class Family:
    """Metrics that share an axis: what they count, and whether it is a rate (per second) or a level."""

    key: str
    unit: str  # the axis title's unit when no scaling applies
    bytes: bool = False
    rate: bool = False


def family_of(group: str, metric: str) -> Family:
    name = metric.lower()
    if group == "cpu":
        return Family("cpu", "%")
    if group == "load":
        return Family("load", "processes waiting (load average)")
    if group == "memory":
        return Family("memory", "bytes", bytes=True)
    rate = group in ("network", "disk")
    if "bytes" in name or name in ("net_rx", "net_tx"):
        return Family("bytes", "bytes/s" if rate else "bytes", bytes=True, rate=rate)
    if "packets" in name:
        return Family("packets", "packets/s")
    if "retransmit" in name:
        return Family("retransmits", "retransmits/s")
    if "estab" in name or "conn" in name:
        return Family("connections", "connections")
    if "err" in name or "drop" in name:
        return Family("errors", "errors/s" if rate else "errors")
    if group == "disk" and ("reads" in name or "writes" in name):
        return Family("operations", "operations/s")
    if group == "disk" and name.endswith("_time"):
        return Family("time", "ms")
    return Family("value", "value")


def _scale(family: Family, peak: float) -> tuple[str, float]:
    """The axis title and the divisor that brings the values to it."""
    if not family.bytes:
        return family.unit, 1.0
    per = "/s" if family.rate else ""
    if peak >= 2 * GIB:
        return f"GiB{per}", GIB
    if peak >= 2 * MIB or not family.rate:
        return f"MiB{per}", MIB
    return f"KiB{per}", KIB


def value_unit(group: str, metrics: Sequence[str], peak: float) -> tuple[str, float]:
    """The value axis' title and divisor of metrics of one family (the first metric's)."""
    return _scale(family_of(group, metrics[0]) if metrics else Family("value", "value"), peak)


def monitoring_figure(host: str, group: str, series: Mapping[str, tuple[Sequence[int], Sequence[float]]]) -> Figure:
    """One host's group of metrics over time; `series` maps telegraf's metric name to (unix s, values). Metrics of
    different families are drawn in panels stacked one above the other, each on its own axis."""
    by_family: dict[str, list[str]] = {}
    for metric in sorted(series, key=natural_key):
        by_family.setdefault(family_of(group, metric).key, []).append(metric)
    panels = list(by_family.values())
    data: list[dict[str, Any]] = []
    axes: dict[str, dict[str, Any]] = {}
    gap = 0.06
    height = (1.0 - gap * (len(panels) - 1)) / len(panels)
    for i, metrics in enumerate(panels):
        peak = max(
            (float(np.nanmax(np.asarray(series[m][1], dtype=np.float64), initial=0.0)) for m in metrics), default=0.0
        )
        unit, divisor = value_unit(group, metrics, peak)
        axis = "y" if i == 0 else f"y{i + 1}"
        for metric in metrics:
            xs, ys = series[metric]
            trace = lines_figure("", xs, {metric_label(metric): np.asarray(ys, dtype=np.float64) / divisor}, unit)
            drawn = trace["data"][0]
            drawn["hovertemplate"] = "%{y} " + unit
            drawn["yaxis"] = axis
            data.append(drawn)
        # Panels from the top: the first family on top, the x axis under the last.
        top = 1.0 - i * (height + gap)
        axes["yaxis" if i == 0 else f"yaxis{i + 1}"] = {
            "title": {"text": unit},
            "rangemode": "tozero",
            "tickformat": RATE_TICKS,
            "domain": [max(0.0, top - height), top],
            **({} if i == 0 else {"anchor": "x"}),
        }
    layout = lines_figure(f"{host}: {GROUP_TITLES.get(group, group)}", [], {}, "value")["layout"]
    layout.update(axes)
    if len(panels) > 1:
        layout["xaxis"]["anchor"] = f"y{len(panels)}"
    return {"data": data, "layout": layout}
