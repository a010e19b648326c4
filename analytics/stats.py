"""Per-case summary of a window (the Tables tab's last table): count, RPS mean/max, mean time, outcomes.

Inputs are the window's totals of one case as the per-second rows give them; the mean response time is the
response-weighted mean of the per-second means (sum of mean × responses over the responses). RPS and outcomes
follow analytics.definitions, as every other page's figures do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analytics.definitions import Outcomes, outcomes, rps_figures


@dataclass(frozen=True)
class CaseSummary:
    case: str
    count: int
    rps_mean: float
    rps_max: float
    mean_ms: float | None
    outcomes: Outcomes

    def as_dict(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "count": self.count,
            "rps_mean": self.rps_mean,
            "rps_max": self.rps_max,
            "mean_ms": self.mean_ms,
            "outcomes": self.outcomes.as_dict(),
        }


def case_summary(
    case: str,
    *,
    count: int,
    seconds: Sequence[int],
    resps_per_second: Sequence[int],
    expect_ms_x_resps: float,
    net_codes: Mapping[int, int],
    http_codes: Mapping[int, int],
) -> CaseSummary:
    rps = rps_figures(seconds, resps_per_second)
    return CaseSummary(
        case=case,
        count=int(count),
        rps_mean=rps.mean,
        rps_max=rps.max,
        mean_ms=expect_ms_x_resps / count if count > 0 else None,
        outcomes=outcomes(http_codes, net_codes),
    )
