"""The diagnosis on real runs (analytics/tests/fixtures/real_runs/README.md), from phout alone: the load profile is
read off the request start rate, a ramp that breaks gets an `imbalance` at the RPS where it broke, and runs that
kept up get no critical finding. bench/diagnosis/imbalance.py measures the same on resampled variants."""

from __future__ import annotations

import re

import numpy as np
import pytest

from analytics.diagnosis import TestSeries, diagnose
from analytics.diagnosis.engine import DiagnosisInput
from analytics.tests.real_series import diagnosis_input

# The target of the breaking runs: 4 workers, 20 ms lognormal (σ 0.3) service time: 4 / 20.9 ms.
TRUE_BREAK_RPS = 4 / (0.020 * float(np.exp(0.3**2 / 2)))


@pytest.mark.parametrize("name", ["step_break", "line_break"])
def test_a_ramp_that_breaks_gets_an_imbalance_within_ten_percent(name: str) -> None:
    result = diagnose(diagnosis_input(name))
    kinds = [f.kind for f in result.findings]
    assert "imbalance" in kinds, kinds
    assert "overload" not in kinds  # "at a steady load" is said only of a steady load
    assert result.imbalance_rps is not None
    assert abs(result.imbalance_rps - TRUE_BREAK_RPS) <= 0.1 * TRUE_BREAK_RPS, result.imbalance_rps
    assert result.inferred_schedule
    imbalance = next(f for f in result.findings if f.kind == "imbalance")
    assert all(v is not None for v in imbalance.as_dict()["evidence"].values())


@pytest.mark.parametrize(
    "name", [*(f"{kind}_{run}" for kind in ("const", "pause", "steady") for run in ("a", "b", "slow")), "ramp_keepup"]
)
def test_runs_that_kept_up_get_no_critical_finding(name: str) -> None:
    result = diagnose(diagnosis_input(name))
    assert not [f.title for f in result.findings if f.severity == "critical"]
    assert result.imbalance_rps is None


def test_a_ramp_that_kept_up_with_its_given_schedule_is_no_imbalance() -> None:
    result = diagnose(diagnosis_input("ramp_keepup", ["line(1, 300, 20s) const(300, 25s)"]))
    assert not [f.title for f in result.findings if f.severity == "critical"]


def test_a_small_q95_step_while_every_request_is_served_is_not_critical() -> None:
    """The issue's scripted test: 399 of 399 planned RPS answered all along, q95 107.2 -> 117.9 ms at 400 RPS."""
    rng = np.random.default_rng(4)
    planned = np.concatenate([np.linspace(1, 400, 20), np.full(40, 400.0)])
    q95 = np.where(np.arange(60) < 30, 107.2, 117.9) * rng.normal(1.0, 0.01, 60)
    q95[:20] = np.linspace(20.0, 107.2, 20)  # a ramp's latency grows with its load
    series = TestSeries.from_columns(
        ts=np.arange(60) + 1_700_000_000,
        planned_rps=planned,
        resps=np.round(planned),
        mean_ms=q95 / 2,
        q50_ms=q95 / 2,
        q95_ms=q95,
        q99_ms=q95 * 1.2,
    )
    result = diagnose(DiagnosisInput(series=series, load_scheme=["line(1,400,20s) const(400,40s)"]))
    assert not [f.title for f in result.findings if f.severity == "critical"]


def steady_latency_ms(n: int) -> dict[str, np.ndarray]:
    """The latency columns of `n` seconds that never move: mean 10 ms, q50 9, q95 20, q99 30."""
    return {
        name: np.full(n, value)
        for name, value in (("mean_ms", 10.0), ("q50_ms", 9.0), ("q95_ms", 20.0), ("q99_ms", 30.0))
    }


def test_generator_finding_has_no_unknown_plan_and_no_advice_without_its_figure() -> None:
    """Discarded requests in a phout-only test: no "planned rps: 0", no "recommended instances: null", and no
    "give it more instances" without how many."""
    n = 60
    resps = np.full(n, 300.0)
    discarded = np.where(np.arange(n) >= 30, 60.0, 0.0)
    series = TestSeries.from_columns(
        ts=np.arange(n) + 1_700_000_000,
        resps=resps,
        discarded=discarded,
        **steady_latency_ms(n),
    )
    result = diagnose(DiagnosisInput(series=series, starts=resps))
    finding = next(f.as_dict() for f in result.findings if f.kind == "generator_limited")
    assert finding["evidence"].get("planned_rps", 1) > 0
    assert None not in finding["evidence"].values()
    if "more instances" in finding["text"]:
        assert re.search(r"needs about \d+", finding["text"])
    assert all(fact["value"] for fact in finding["facts"])


def test_shares_are_rounded_alike_in_title_and_text() -> None:
    """A headline said 0.2% where its text said 0.16%."""
    n = 60
    resps = np.full(n, 1000.0)
    timeouts = np.zeros(n)
    timeouts[10:14] = 24.0  # 96 of 60 000: 0.16 %
    series = TestSeries.from_columns(
        ts=np.arange(n) + 1_700_000_000,
        planned_rps=np.full(n, 1000.0),
        resps=resps,
        errors=timeouts,
        timeouts=timeouts,
        **steady_latency_ms(n),
    )
    finding = next(f for f in diagnose(DiagnosisInput(series=series)).findings if f.kind == "timeouts")
    assert finding.title.startswith("0.16 %") and "(0.16 %)" in finding.text
