"""Raw-sample reads (table `samples` of the active upload): exact quantiles, overall and per tag.

Used whenever a test has raw samples, for the summary and the cumulative tables (counts and codes come from the
upload's per-second rows, exact too and far cheaper to read than a second scan of the samples). Quantiles come from
quantilesExact, the exact rule of analytics.definitions (quantile_ranks: position floor(n × p), on the same doubles).
Pandora's discarded rows (net code 777) are counted in codes but kept out of response-time quantiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from analytics.definitions import DISCARDED_NET_CODE, level_fraction
from backend.clickhouse import client
from backend.clickhouse.queries.selection import Selection
from backend.clickhouse.tables import samples


def _levels_sql(levels_pct: Sequence[float]) -> tuple[str, dict[str, float]]:
    # Aggregate-function parameters must be literals: each level is a bound value rendered by the driver.
    names = {f"level_{i}": level_fraction(level) for i, level in enumerate(levels_pct)}
    return ", ".join(f"%({name})s" for name in names), names


def exact_quantiles_us(sel: Selection, levels_pct: Sequence[float]) -> tuple[list[float], int]:
    """Exact quantiles (µs) of the selection's response times and how many responses they cover."""
    placeholders, level_params = _levels_sql(levels_pct)
    rows = client.execute(
        f"""
        SELECT quantilesExact({placeholders})(interval_real_us), count()
        FROM {samples.NAME}
        WHERE {sel.samples_where()} AND net_code != {DISCARDED_NET_CODE}
        """,
        {**sel.params(), **level_params},
        tag="reports.samples.exact_quantiles",
    )
    values, count = rows[0]
    return [float(v) for v in values], int(count)


@dataclass(frozen=True)
class TagStats:
    tag: str
    count: int
    timed: int  # responses with a response time (discarded rows excluded): what the quantiles cover
    quantiles_us: list[float]
    mean_us: float | None


def exact_by_tag(sel: Selection, levels_pct: Sequence[float]) -> list[TagStats]:
    """Per tag in the window (the selection's tags when given): exact quantiles and error counts."""
    placeholders, level_params = _levels_sql(levels_pct)
    rows = client.execute(
        f"""
        SELECT
            tag,
            count(),
            countIf(net_code != {DISCARDED_NET_CODE}),
            quantilesExactIf({placeholders})(interval_real_us, net_code != {DISCARDED_NET_CODE}),
            avgIf(interval_real_us, net_code != {DISCARDED_NET_CODE})
        FROM {samples.NAME}
        WHERE {sel.samples_where()}
        GROUP BY tag
        ORDER BY tag
        """,
        {**sel.params(), **level_params},
        tag="reports.samples.exact_by_tag",
    )
    out = []
    for tag, count, timed, quantiles, mean in rows:
        mean_f = float(mean)
        out.append(
            TagStats(
                tag=str(tag),
                count=int(count),
                timed=int(timed),
                quantiles_us=[float(v) for v in quantiles],
                mean_us=mean_f if mean_f == mean_f else None,  # avgIf of nothing is NaN
            )
        )
    return out


def sample_span(test_id: int, upload_id: int) -> tuple[int | None, int | None, int]:
    """First and last response second of an upload's samples, and their number."""
    rows = client.execute(
        f"""
        SELECT min(receive_sec), max(receive_sec), count()
        FROM {samples.NAME}
        WHERE test_id = %(test_id)s AND upload_id = %(upload_id)s
        """,
        {"test_id": test_id, "upload_id": upload_id},
        tag="reports.samples.span",
    )
    first, last, count = rows[0]
    if int(count) == 0:
        return None, None, 0
    return int(first), int(last), int(count)
