"""A component's KPIs across its tests, judged against user-set thresholds: pure definitions and verdicts.

A KPI is one number per test: a response-time quantile of the whole test (`q50`, `q99`, `q99.9`, ...), the max
RPS (`max_rps`, the most held for 5 s: analytics.definitions), the RPS at which a ramp stopped keeping up
(`imbalance_rps`), or the share of failed requests (`error_share`). Each may carry a threshold, either an absolute
limit (`q99` above 800 ms fails) or a limit relative to the component's baseline test (`q99` more than 10% above
the baseline's fails). Only the bad side counts: higher is worse for response times and errors, lower for RPS.

No Django, no database: the backend feeds values in and gets verdicts and sentences out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from analytics.definitions import format_in_unit
from analytics.diagnosis.changepoint import e_divisive

Direction = Literal["higher_is_worse", "lower_is_worse"]
ThresholdKind = Literal["absolute", "relative"]
THRESHOLD_KINDS: tuple[ThresholdKind, ...] = ("absolute", "relative")
MAX_KPIS = 12
QUANTILE_KEY = re.compile(r"^q(\d{1,2}(?:\.\d{1,3})?|100)$")
# Change points need a few tests on each side to mean anything.
MIN_TESTS_FOR_CHANGES = 6


@dataclass(frozen=True)
class KpiSpec:
    key: str
    title: str
    unit: str  # "ms", "RPS" or "" (a share, 0..1)
    direction: Direction
    level_pct: float | None = None  # for quantile KPIs


NAMED: dict[str, KpiSpec] = {
    "max_rps": KpiSpec("max_rps", "Max RPS", "RPS", "lower_is_worse"),
    "imbalance_rps": KpiSpec("imbalance_rps", "Imbalance RPS", "RPS", "lower_is_worse"),
    "error_share": KpiSpec("error_share", "Error share", "", "higher_is_worse"),
}
DEFAULT_KPIS: tuple[str, ...] = ("q50", "q99", "max_rps", "imbalance_rps", "error_share")


class KpiError(ValueError):
    """A KPI list or threshold that cannot be used; the message names the field."""


def kpi_spec(key: str) -> KpiSpec:
    """The spec of a KPI key; KpiError for an unknown one."""
    if key in NAMED:
        return NAMED[key]
    match = QUANTILE_KEY.match(key)
    if match:
        level = float(match.group(1))
        if 0 < level <= 100:
            return KpiSpec(f"q{level:g}", f"{level:g}% quantile", "ms", "higher_is_worse", level)
    raise KpiError(f"unknown KPI {key!r}: one of q<percent> (e.g. q99, q99.9), {', '.join(NAMED)}")


@dataclass(frozen=True)
class Threshold:
    kind: ThresholdKind
    value: float  # absolute: the limit in the KPI's unit; relative: percent beyond the baseline's value

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.value}


@dataclass(frozen=True)
class KpiConfig:
    spec: KpiSpec
    threshold: Threshold | None

    def as_dict(self) -> dict[str, Any]:
        return {"kpi": self.spec.key, "threshold": self.threshold.as_dict() if self.threshold else None}


def parse_kpis(raw: Any) -> list[KpiConfig]:
    """`[{"kpi": "q99", "threshold": {"kind": "relative", "value": 10}}, ...]` → configs; KpiError naming the item."""
    if not isinstance(raw, list):
        raise KpiError("kpis: a list of {kpi, threshold} objects is expected")
    if len(raw) > MAX_KPIS:
        raise KpiError(f"kpis: at most {MAX_KPIS}")
    out: list[KpiConfig] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        where = f"kpis[{index}]"
        if not isinstance(item, Mapping):
            raise KpiError(f"{where}: an object {{kpi, threshold}} is expected")
        key = item.get("kpi")
        if not isinstance(key, str):
            raise KpiError(f"{where}.kpi: a KPI name is expected, e.g. q99")
        try:
            spec = kpi_spec(key)
        except KpiError as exc:
            raise KpiError(f"{where}.kpi: {exc}") from None
        if spec.key in seen:
            raise KpiError(f"{where}.kpi: {spec.key} is listed twice")
        seen.add(spec.key)
        out.append(KpiConfig(spec, _parse_threshold(item.get("threshold"), f"{where}.threshold")))
    return out


def _parse_threshold(raw: Any, where: str) -> Threshold | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise KpiError(f"{where}: null or an object {{kind, value}} is expected")
    kind = raw.get("kind")
    if kind not in THRESHOLD_KINDS:
        raise KpiError(f"{where}.kind: one of {', '.join(THRESHOLD_KINDS)}")
    value = raw.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise KpiError(f"{where}.value: a finite number is expected")
    if value < 0:
        raise KpiError(f"{where}.value: must not be negative")
    if kind == "relative" and value > 10_000:
        raise KpiError(f"{where}.value: a percent of at most 10000")
    return Threshold(kind, float(value))


def default_configs() -> list[KpiConfig]:
    return [KpiConfig(kpi_spec(key), None) for key in DEFAULT_KPIS]


def quantile_levels(configs: Sequence[KpiConfig]) -> list[float]:
    return sorted({c.spec.level_pct for c in configs if c.spec.level_pct is not None})


def limit_of(config: KpiConfig, baseline_value: float | None) -> float | None:
    """The value past which a test fails this KPI; None without a threshold (or a relative one without baseline)."""
    threshold = config.threshold
    if threshold is None:
        return None
    if threshold.kind == "absolute":
        return threshold.value
    if baseline_value is None:
        return None
    share = threshold.value / 100.0
    if config.spec.direction == "higher_is_worse":
        return baseline_value * (1.0 + share)
    return baseline_value * (1.0 - share)


def is_past(spec: KpiSpec, value: float, limit: float) -> bool:
    return value > limit if spec.direction == "higher_is_worse" else value < limit


def format_value(spec: KpiSpec, value: float) -> str:
    """A KPI's value in its unit, as the component page writes it (frontend/src/pages/Component/kpis.ts)."""
    return format_in_unit(value, spec.unit)


def reason(config: KpiConfig, value: float, limit: float, baseline: tuple[int, float] | None) -> str:
    """One plain line saying why a test failed a KPI, as CI prints it."""
    spec = config.spec
    side = "above" if spec.direction == "higher_is_worse" else "below"
    text = f"{spec.key}: {format_value(spec, value)} is {side} its threshold {format_value(spec, limit)}"
    threshold = config.threshold
    if threshold is not None and threshold.kind == "relative" and baseline is not None:
        text += f" ({threshold.value:g}% from baseline #{baseline[0]}: {format_value(spec, baseline[1])})"
    return text


@dataclass(frozen=True)
class KpiPoint:
    test_id: int
    ts: int
    value: float | None


@dataclass(frozen=True)
class KpiSeries:
    config: KpiConfig
    points: list[KpiPoint]
    limit: float | None
    baseline_value: float | None
    past: list[bool]  # per point: beyond the limit
    change_points: list[int]  # test ids where a new regime starts

    def as_dict(self) -> dict[str, Any]:
        spec = self.config.spec
        return {
            "kpi": spec.key,
            "title": spec.title,
            "unit": spec.unit,
            "direction": spec.direction,
            "threshold": self.config.threshold.as_dict() if self.config.threshold else None,
            "limit": None if self.limit is None else round(self.limit, 6),
            "baseline_value": self.baseline_value,
            "points": [
                {"test_id": p.test_id, "ts": p.ts, "value": p.value, "past_threshold": past}
                for p, past in zip(self.points, self.past, strict=True)
            ],
            "change_points": self.change_points,
        }


def series(
    config: KpiConfig,
    points: Sequence[KpiPoint],
    baseline: tuple[int, float] | None,
    *,
    change_points: Callable[[list[float]], list[int]] = e_divisive,
) -> KpiSeries:
    """A KPI across tests (oldest first): its limit, which points are past it, and where the regime changed
    (`change_points`: indexes where a new regime starts; E-Divisive, or a cache of it)."""
    baseline_value = baseline[1] if baseline is not None else None
    limit = limit_of(config, baseline_value)
    past = [p.value is not None and limit is not None and is_past(config.spec, p.value, limit) for p in points]
    measured = [(p.test_id, p.value) for p in points if p.value is not None and math.isfinite(p.value)]
    changes: list[int] = []
    if len(measured) >= MIN_TESTS_FOR_CHANGES:
        changes = [measured[i][0] for i in change_points([value for _, value in measured])]
    return KpiSeries(config, list(points), limit, baseline_value, past, changes)
