"""Was the generator, not the service, the limit?

A generator with N instances (threads, goroutines, phantom's instances) cannot keep more than N requests in flight,
so by Little's law it cannot send more than RPS = 1000 / T(ms) × N when responses take T ms. Three signs, the
earliest sustained one wins:
- instances at their configured maximum while answered responses fall behind the plan;
- requests discarded by the generator (Pandora's net code 777) in more than 1 % of a second's rows;
- the planned RPS above the Little's-law ceiling for the observed mean time and the configured instances
  (only when the test says how many instances were configured).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from analytics.diagnosis.imbalance import SMOOTH_S, Criteria
from analytics.diagnosis.types import FloatArray, TestSeries, first_sustained, rolling_median

AT_MAX_SHARE = 0.95
DISCARDED_SHARE = 0.01
HEADROOM = 1.2  # recommended instances leave room for jitter in response times


@dataclass(frozen=True)
class GeneratorLimit:
    index: int
    reason: str  # instances_at_max | discarded | littles_law
    max_instances: int | None
    mean_ms: float
    planned_rps: float
    ceiling_rps: float | None
    recommended_instances: int | None


def max_instances(series: TestSeries, configured: int | None) -> int | None:
    if configured is not None and configured > 0:
        return configured
    observed = int(series.instances.max(initial=0.0))
    return observed if observed > 0 else None


def generator_limit(
    series: TestSeries, planned_rps: FloatArray, crit: Criteria, configured: int | None
) -> GeneratorLimit | None:
    n_max = max_instances(series, configured)
    onsets: list[tuple[int, str]] = []
    if n_max is not None and series.instances.max(initial=0.0) > 0:
        at_max = series.instances >= AT_MAX_SHARE * n_max
        index = first_sustained(at_max & crit.behind)
        if index >= 0:
            onsets.append((index, "instances_at_max"))
    discarded_share = np.divide(series.discarded, series.resps, out=np.zeros_like(series.resps), where=series.resps > 0)
    index = first_sustained(rolling_median(discarded_share, SMOOTH_S) > DISCARDED_SHARE)
    if index >= 0:
        onsets.append((index, "discarded"))
    mean_ms = rolling_median(series.mean_ms, SMOOTH_S)
    # Little's law needs the configured maximum: the largest active count seen is what the load needed, and
    # comparing the plan with it would flag every test whose response times wobble.
    if configured is not None and configured > 0 and n_max is not None:
        ceiling = np.where(mean_ms > 0, 1000.0 / np.maximum(mean_ms, 1e-6) * n_max, np.inf)
        planned = np.where(np.isfinite(planned_rps), planned_rps, 0.0)
        index = first_sustained((planned >= 1.0) & (planned > 1.05 * ceiling))
        if index >= 0:
            onsets.append((index, "littles_law"))
    if not onsets:
        return None
    index, reason = min(onsets)
    window = slice(max(0, index - SMOOTH_S), index + 1)
    t_ms = float(np.median(series.mean_ms[window]))
    finite_planned = planned_rps[np.isfinite(planned_rps)]
    peak_planned = float(finite_planned.max(initial=0.0))
    planned_here = float(planned_rps[index]) if np.isfinite(planned_rps[index]) else 0.0
    recommended = math.ceil(peak_planned * t_ms / 1000.0 * HEADROOM) if peak_planned > 0 and t_ms > 0 else None
    return GeneratorLimit(
        index=index,
        reason=reason,
        max_instances=n_max,
        mean_ms=t_ms,
        planned_rps=planned_here,
        ceiling_rps=(1000.0 / t_ms * n_max) if (n_max and t_ms > 0) else None,
        recommended_instances=recommended,
    )
