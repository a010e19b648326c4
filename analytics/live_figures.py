"""The figures an online test shows while it runs (the list's online rows, the report's header): its newest stored
second, by the rules every other page uses (analytics.definitions, analytics.histogram), and how far it is.

- `rps`: responses in the newest second (its overall row);
- `q95_ms`: that second's 95 % quantile by the histogram rule (analytics.histogram.histogram_quantiles);
- `failed`, `error_share`: that second's failed requests and their share (analytics.definitions.outcomes);
- `elapsed_s`: seconds from the first response second to the newest, both counted; `planned_s`: the load
  scheme's length (None when the tank sent none that parses).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from analytics.definitions import outcomes
from analytics.diagnosis.loadscheme import LoadSchemeError, parse_load_scheme
from analytics.histogram import BIN_COUNT, histogram_quantiles
from analytics.schema.seconds import ROW_FIELDS

_AT = {name: i for i, name in enumerate(ROW_FIELDS)}
LIVE_QUANTILE_PCT = 95.0


@dataclass(frozen=True)
class LiveFigures:
    ts: int
    rps: int
    q95_ms: float | None
    failed: int
    error_share: float | None
    elapsed_s: int
    planned_s: int | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def planned_s(loadscheme: Any) -> int | None:
    """The load scheme's length in seconds, as the tank sent it; None when there is none or it does not parse."""
    try:
        duration = parse_load_scheme(loadscheme).duration_s
    except (LoadSchemeError, TypeError, ValueError):
        return None
    return duration or None


def live_figures(overall: Sequence[Any], first_ts: int, planned: int | None) -> LiveFigures:
    """The live figures of the overall row (values in ROW_FIELDS order) of the newest second."""
    ts = int(overall[_AT["ts"]])
    counts = np.zeros(BIN_COUNT, dtype=np.float64)
    bins = np.asarray(overall[_AT["hist_bins"]], dtype=np.int64)
    counts[bins] = np.asarray(overall[_AT["hist_counts"]], dtype=np.float64)
    q95_us = float(histogram_quantiles(counts, [LIVE_QUANTILE_PCT])[0])
    http = dict(zip(overall[_AT["http_codes"]], overall[_AT["http_counts"]], strict=True))
    net = dict(zip(overall[_AT["net_codes"]], overall[_AT["net_counts"]], strict=True))
    outcome = outcomes({int(k): int(v) for k, v in http.items()}, {int(k): int(v) for k, v in net.items()})
    return LiveFigures(
        ts=ts,
        rps=int(overall[_AT["resps"]]),
        q95_ms=None if math.isnan(q95_us) else q95_us / 1000.0,
        failed=outcome.failed,
        error_share=outcome.error_share,
        elapsed_s=max(0, ts - int(first_ts)) + 1,
        planned_s=planned,
    )
