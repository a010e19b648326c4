"""Plain reference versions of analytics.definitions' rules, for tests to hold the API to: written the slow, obvious
way (sorting, loops over windows), not by calling the code they check."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt


def order_statistic(values: npt.ArrayLike, level_pct: float) -> float:
    """The exact quantile: the value of 0-based rank floor(n × level / 100), at most n - 1, of the sorted values."""
    ordered = sorted(np.asarray(values).tolist())
    rank = min(math.floor(len(ordered) * (level_pct / 100.0)), len(ordered) - 1)
    return float(ordered[rank])


def max_rps(response_seconds: Iterable[int]) -> float:
    """Max RPS: the responses of every second from the first to the last (silent ones as 0), the median of each 5
    consecutive seconds, the largest of them (a test shorter than 5 s: the median of its seconds)."""
    counts = Counter(int(s) for s in response_seconds)
    if not counts:
        return 0.0
    dense = [counts.get(s, 0) for s in range(min(counts), max(counts) + 1)]
    if len(dense) < 5:
        return float(np.median(dense))
    return float(max(sorted(dense[i : i + 5])[2] for i in range(len(dense) - 4)))


def failed(net_codes: npt.ArrayLike, http_codes: npt.ArrayLike) -> int:
    """Failed requests counted request by request: a net code other than 0, or HTTP 0 or 400 and above."""
    net, http = np.asarray(net_codes), np.asarray(http_codes)
    return int(((net != 0) | (http == 0) | (http >= 400)).sum())
