"""Per-second series arithmetic: response-weighted means of phase times, and monitoring metric groups (the RPS
figures are analytics.definitions').

Per-second rows come one per (second, case); when several cases are selected they are added per second, and
means (ms) are re-weighted by the responses they were averaged over, never averaged as plain numbers.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def weighted_mean(values: npt.ArrayLike, weights: npt.ArrayLike) -> float | None:
    """Mean of per-row means weighted by the rows' response counts; None when nothing was counted."""
    v = np.asarray(values, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    total = float(w.sum())
    if total <= 0:
        return None
    return float((v * w).sum() / total)


MONITORING_GROUPS: tuple[str, ...] = ("cpu", "memory", "load", "network", "disk", "custom")


def metric_group(metric: str) -> str:
    """Group of a monitoring metric by the tank's names (tank-protocol.md §4.5): legacy names such as
    `Memory_used`, `System_la1`, `Net_retransmit`, and `custom:<measurement>[-<tag>]_<field>` for the rest."""
    name = metric.lower()
    bare = name.removeprefix("custom:")
    if bare.startswith("cpu"):
        return "cpu"
    if name.startswith("memory_") or bare.startswith(("mem_", "mem-", "swap")):
        return "memory"
    if name.startswith("system_la") or bare.startswith("system_load"):
        return "load"
    if name.startswith("net_") or bare.startswith(("net-", "net_", "netstat")):
        return "network"
    if bare.startswith(("diskio", "disk")):
        return "disk"
    return "custom"
