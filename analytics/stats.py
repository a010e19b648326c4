"""Per-case summary of a window (the Tables tab's last table): count, RPS mean/max, mean time, errors.

Inputs are the window's totals of one case as the per-second rows give them; the mean response time is the
response-weighted mean of the per-second means (sum of mean × responses over the responses).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from analytics.codes import is_http_error


@dataclass(frozen=True)
class CaseSummary:
    case: str
    count: int
    rps_mean: float
    rps_max: int
    mean_ms: float | None
    net_errors: int  # responses with a net code other than 0
    http_errors: int  # responses with HTTP code 0 (none) or >= 400


def case_summary(
    case: str,
    *,
    count: int,
    first_ts: int | None,
    last_ts: int | None,
    max_rps: int,
    expect_ms_x_resps: float,
    net_codes: Mapping[int, int],
    http_codes: Mapping[int, int],
) -> CaseSummary:
    if count <= 0 or first_ts is None or last_ts is None:
        return CaseSummary(case, 0, 0.0, 0, None, 0, 0)
    return CaseSummary(
        case=case,
        count=int(count),
        # Mean over the seconds from the case's first response to its last: quiet seconds inside count as 0.
        rps_mean=round(count / (last_ts - first_ts + 1), 3),
        rps_max=int(max_rps),
        mean_ms=round(expect_ms_x_resps / count, 3),
        net_errors=sum(int(n) for code, n in net_codes.items() if int(code) != 0),
        http_errors=sum(int(n) for code, n in http_codes.items() if is_http_error(int(code))),
    )
