"""A component's figures across its tests: change points, thresholds, and pass/fail of one test.

Each test of a component contributes one value of a figure (q99 of the steady stage, imbalance RPS, error share).
E-divisive means finds where the series changed regime. A test's baseline is the run of earlier tests since the
last change point before it (at most `BASELINE_TESTS`, at least `MIN_BASELINE` of them); its thresholds are the
baseline median ± max(3 × MAD-σ, a relative floor), only the bad side counting: higher is worse for q99 and errors,
lower is worse for imbalance RPS. A test breaks its trend when it is past its bad-side threshold, or a change
point starts at it in the bad direction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from analytics.definitions import format_in_unit
from analytics.diagnosis.changepoint import e_divisive

Direction = Literal["higher_is_worse", "lower_is_worse"]
BASELINE_TESTS = 10
MIN_BASELINE = 3


@dataclass(frozen=True)
class FigureSpec:
    name: str
    title: str
    unit: str
    direction: Direction
    relative_floor: float  # thresholds are at least this far from the median, as a share of it
    absolute_floor: float


FIGURES: dict[str, FigureSpec] = {
    "q99": FigureSpec("q99", "q99 of the steady stage", "ms", "higher_is_worse", 0.10, 1.0),
    "imbalance_rps": FigureSpec("imbalance_rps", "Imbalance RPS", "RPS", "lower_is_worse", 0.10, 1.0),
    "error_share": FigureSpec("error_share", "Error share", "", "higher_is_worse", 0.5, 0.005),
}


@dataclass(frozen=True)
class TrendInput:
    """One test's figure: `ts` is when the test ran (unix s: its first second, else when it was created)."""

    test_id: int
    ts: int
    value: float


@dataclass(frozen=True)
class TrendPoint(TrendInput):
    """One test's figure (as it came in) with the verdict on it."""

    label: str
    broke_trend: bool
    reasons: list[str]
    baseline: float | None
    thresholds: dict[str, float | None]


@dataclass(frozen=True)
class TrendAnalysis:
    spec: FigureSpec
    points: list[TrendPoint]
    change_points: list[int]  # indexes into points where a new regime starts

    def as_dict(self) -> dict[str, Any]:
        return {
            "tests": [
                {
                    "id": p.test_id,
                    "ts": p.ts,
                    "value": p.value,
                    "broke_trend": p.broke_trend,
                    "reasons": p.reasons,
                    "baseline": p.baseline,
                    "thresholds": p.thresholds,
                }
                for p in self.points
            ],
            "change_points": [
                {"index": i, "test_id": self.points[i].test_id, "ts": self.points[i].ts} for i in self.change_points
            ],
        }


def thresholds(spec: FigureSpec, baseline: Sequence[float]) -> tuple[float, float, float]:
    """(median, lower, upper) of a baseline."""
    values = np.asarray(baseline, dtype=np.float64)
    median = float(np.median(values))
    spread = 3.0 * 1.4826 * float(np.median(np.abs(values - median)))
    margin = max(spread, spec.relative_floor * abs(median), spec.absolute_floor)
    return median, median - margin, median + margin


def judge(
    spec: FigureSpec, value: float, baseline: Sequence[float]
) -> tuple[bool, list[str], float | None, dict[str, float | None]]:
    """Does `value` pass against `baseline`? (ok, reasons, baseline median, thresholds)."""
    if len(baseline) < MIN_BASELINE:
        return (
            True,
            [f"only {len(baseline)} earlier comparable tests; need {MIN_BASELINE} for a baseline"],
            None,
            {
                "lower": None,
                "upper": None,
            },
        )
    median, lower, upper = thresholds(spec, baseline)
    bounds: dict[str, float | None] = (
        {"lower": None, "upper": upper} if spec.direction == "higher_is_worse" else {"lower": lower, "upper": None}
    )

    def unit(figure: float) -> str:
        return format_in_unit(figure, spec.unit)

    if spec.direction == "higher_is_worse" and value > upper:
        return (
            False,
            [
                f"{spec.title} {unit(value)} is above the threshold {unit(upper)} "
                f"(baseline median {unit(median)} over {len(baseline)} tests)"
            ],
            median,
            bounds,
        )
    if spec.direction == "lower_is_worse" and value < lower:
        return (
            False,
            [
                f"{spec.title} {unit(value)} is below the threshold {unit(lower)} "
                f"(baseline median {unit(median)} over {len(baseline)} tests)"
            ],
            median,
            bounds,
        )
    return True, [], median, bounds


def analyse_trend(spec: FigureSpec, inputs: Sequence[TrendInput], labels: Sequence[str] | None = None) -> TrendAnalysis:
    """Change points and per-test verdicts over `inputs` (oldest first)."""
    values = [float(i.value) for i in inputs]
    change_points = e_divisive(values) if len(values) >= 6 else []
    points: list[TrendPoint] = []
    for index, item in enumerate(inputs):
        regime_start = max([cp for cp in change_points if cp <= index - 1] or [0])
        # The baseline is the regime in force before this test; a change point AT this test does not count as
        # its baseline (the test itself started the new regime).
        if regime_start == index:
            regime_start = max([cp for cp in change_points if cp < index] or [0])
        start = max(regime_start, index - BASELINE_TESTS)
        baseline = values[start:index]
        ok, reasons, median, bounds = judge(spec, item.value, baseline)
        if index in change_points and index > 0:
            before = float(np.median(values[max(0, index - BASELINE_TESTS) : index]))
            worse = item.value > before if spec.direction == "higher_is_worse" else item.value < before
            if worse:
                ok = False
                reasons = [
                    *reasons,
                    f"a change point (e-divisive) starts at this test: {spec.title} moved from a median of "
                    f"{format_in_unit(before, spec.unit)} to {format_in_unit(item.value, spec.unit)}",
                ]
        points.append(
            TrendPoint(
                test_id=item.test_id,
                ts=item.ts,
                value=item.value,
                label=labels[index] if labels is not None else f"#{item.test_id}",
                broke_trend=not ok,
                reasons=reasons,
                baseline=median,
                thresholds=bounds,
            )
        )
    return TrendAnalysis(spec=spec, points=points, change_points=change_points)
