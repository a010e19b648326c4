"""Diagnosis on synthetic per-second series with known break points (and on a healthy test, with none).

The series come from a small queueing model: the service answers at most `capacity_rps`; what it cannot answer
waits in a backlog (adding backlog / capacity to the response time) and times out after `timeout_ms`. So the
true imbalance second is known: the first second whose planned RPS exceeds the capacity.
"""

from __future__ import annotations

import numpy as np
import pytest

from analytics.diagnosis import DiagnosisInput, MonitoringSeries, TestSeries, diagnose
from analytics.diagnosis.loadscheme import parse_load_scheme

T0 = 1_795_316_000  # an arbitrary UTC second


def simulate(
    planned: np.ndarray,
    capacity_rps: float,
    *,
    base_ms: float = 20.0,
    timeout_ms: float = 1000.0,
    seed: int = 1,
    send_planned: bool = True,
    instances: np.ndarray | None = None,
) -> TestSeries:
    rng = np.random.default_rng(seed)
    n = planned.size
    backlog = 0.0
    cols: dict[str, list[float]] = {k: [] for k in ("resps", "timeouts", "mean_ms", "q50_ms", "q95_ms", "q99_ms")}
    for i in range(n):
        arrivals = float(rng.poisson(planned[i])) if planned[i] > 0 else 0.0
        backlog += arrivals
        served = min(backlog, capacity_rps)
        backlog -= served
        limit = capacity_rps * timeout_ms / 1000.0
        timed_out = max(0.0, backlog - limit)
        backlog -= timed_out
        wait_ms = backlog / capacity_rps * 1000.0
        noise = float(rng.lognormal(0.0, 0.08))
        cols["resps"].append(served + timed_out)
        cols["timeouts"].append(timed_out)
        cols["mean_ms"].append(base_ms * noise + wait_ms / 2)
        cols["q50_ms"].append(base_ms * noise + wait_ms / 2)
        cols["q95_ms"].append(min(timeout_ms, base_ms * 1.8 * noise + wait_ms))
        cols["q99_ms"].append(min(timeout_ms, base_ms * 2.5 * noise + wait_ms))
    ts = T0 + np.arange(n)
    return TestSeries.from_columns(
        ts=ts,
        planned_rps=planned if send_planned else None,
        instances=instances,
        errors=cols["timeouts"],
        **cols,
    )


def kinds(result) -> list[str]:
    return [f.kind for f in result.findings]


def only(result, kind: str):
    matches = [f for f in result.findings if f.kind == kind]
    assert len(matches) == 1, kinds(result)
    return matches[0]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_healthy_constant_load_has_no_finding(seed: int) -> None:
    scheme = ["const(500, 10m)"]
    planned = parse_load_scheme(scheme).planned_rps()
    result = diagnose(DiagnosisInput(simulate(planned, capacity_rps=2000.0, seed=seed), load_scheme=scheme))
    assert result.findings == []
    assert result.imbalance_rps is None
    assert result.q99_steady_ms is not None and 45 < result.q99_steady_ms < 55
    assert result.steady_span == (T0, T0 + 600)


def test_line_ramp_imbalance_within_a_few_seconds() -> None:
    scheme = ["line(10, 1000, 300s)"]
    planned = parse_load_scheme(scheme).planned_rps()
    truth = int(np.argmax(planned > 600.0))
    result = diagnose(DiagnosisInput(simulate(planned, capacity_rps=600.0), load_scheme=scheme))
    finding = only(result, "imbalance")
    assert abs(finding.evidence["ts"] - (T0 + truth)) <= 5, (finding.evidence, truth)
    assert result.imbalance_rps is not None and 580 <= result.imbalance_rps <= 640
    assert finding.annotations[0].ts == finding.evidence["ts"]
    assert "RPS" in finding.annotations[0].label
    assert "generator_limited" not in kinds(result)
    assert "timeouts" in kinds(result)


def test_step_ramp_from_scheme_only_as_for_a_phout_upload() -> None:
    # Uploads carry no planned RPS: it must come from the load scheme.
    scheme = [{"type": "step", "from": 100, "to": 1000, "step": 100, "duration": "30s"}]
    planned = parse_load_scheme(scheme).planned_rps()
    truth = 6 * 30  # the 700 RPS level is the first above a 650 RPS capacity
    series = simulate(planned, capacity_rps=650.0, send_planned=False)
    result = diagnose(DiagnosisInput(series, load_scheme=scheme))
    finding = only(result, "imbalance")
    assert abs(finding.evidence["ts"] - (T0 + truth)) <= 3, finding.evidence
    assert result.imbalance_rps == 700.0


def test_ramp_that_never_breaks_has_no_finding() -> None:
    scheme = ["line(10, 500, 120s)", "const(500, 60s)"]
    planned = parse_load_scheme(scheme).planned_rps()
    result = diagnose(DiagnosisInput(simulate(planned, capacity_rps=3000.0, seed=7), load_scheme=scheme))
    assert result.findings == []
    assert result.q99_steady_ms is not None and result.q99_steady_ms < 60
    assert result.steady_span == (T0 + 120, T0 + 180)  # the const stage


def test_generator_limited_by_instances_littles_law() -> None:
    # 50 instances, 100 ms per response: at most 1000 / 100 × 50 = 500 RPS, whatever the service could do.
    scheme = ["line(100, 1000, 120s)"]
    planned = parse_load_scheme(scheme).planned_rps()
    n = planned.size
    rng = np.random.default_rng(3)
    sent = np.minimum(planned, 500.0)
    resps_ok = rng.poisson(sent).astype(float)
    discarded = np.maximum(planned - 500.0, 0.0).round()
    instances = np.minimum(np.ceil(planned * 0.1), 50.0)
    series = TestSeries.from_columns(
        ts=T0 + np.arange(n),
        planned_rps=planned,
        instances=instances,
        resps=resps_ok + discarded,
        errors=np.zeros(n),
        discarded=discarded,
        mean_ms=np.full(n, 100.0),
        q50_ms=np.full(n, 100.0),
        q95_ms=100.0 * rng.lognormal(0, 0.05, n),
        q99_ms=np.full(n, 120.0),
    )
    result = diagnose(DiagnosisInput(series, load_scheme=scheme, configured_instances=50))
    finding = only(result, "generator_limited")
    truth = int(np.argmax(planned > 500.0))
    assert abs(finding.evidence["second_index"] - truth) <= 5, finding.evidence
    assert finding.evidence["before_imbalance"] is True
    assert finding.severity == "critical"
    # Peak 1000 RPS at 100 ms needs 100 instances; 20 % headroom → 120.
    assert finding.evidence["recommended_instances"] == 120
    assert "limited by the generator from" in finding.text
    assert "discarded" in kinds(result)


def test_constant_load_regime_change_of_quantiles() -> None:
    scheme = ["const(300, 6m)"]
    planned = parse_load_scheme(scheme).planned_rps()
    series = simulate(planned, capacity_rps=5000.0, seed=11)
    q95 = series.q95_ms.copy()
    q95[200:] *= 3.0
    shifted = TestSeries.from_columns(**{**series.__dict__, "q95_ms": q95})
    result = diagnose(DiagnosisInput(shifted, load_scheme=scheme))
    finding = only(result, "regime_change")
    assert abs(finding.evidence["ts"] - (T0 + 200)) <= 3
    assert finding.evidence["q95_ms_after"] > 2.5 * finding.evidence["q95_ms_before"]


# A closed-model stream reports instances and no planned rate; its scheme (if any) describes instances.
@pytest.mark.parametrize("scheme", [[{"type": "unlimited", "duration": "600s"}], ["line(1, 60, 600s)"], []])
def test_closed_model_ramp_fits_usl(scheme: list[object]) -> None:
    sigma, kappa, lam = 0.05, 0.001, 100.0
    levels = np.repeat(np.arange(1, 61, dtype=float), 10)
    rng = np.random.default_rng(5)
    throughput = lam * levels / (1 + sigma * (levels - 1) + kappa * levels * (levels - 1))
    resps = rng.normal(throughput, 0.01 * throughput)
    n = levels.size
    series = TestSeries.from_columns(
        ts=T0 + np.arange(n),
        instances=levels,
        resps=resps,
        mean_ms=1000.0 * levels / throughput,
        q50_ms=1000.0 * levels / throughput,
        q95_ms=1500.0 * levels / throughput,
        q99_ms=2000.0 * levels / throughput,
    )
    result = diagnose(DiagnosisInput(series, load_scheme=scheme))
    assert kinds(result) == ["usl"]  # growing times are the physics of a closed model, not an imbalance
    finding = only(result, "usl")
    assert finding.evidence["sigma"] == pytest.approx(sigma, abs=0.01)
    assert finding.evidence["kappa"] == pytest.approx(kappa, rel=0.2)
    assert finding.evidence["peak_concurrency"] == pytest.approx(np.sqrt((1 - sigma) / kappa), rel=0.1)
    figure = result.figures["usl"]
    assert len(figure["data"][0]["x"]) == 60
    assert figure["layout"]["shapes"]  # the predicted peak is marked


def _host(n: int, *, hot_core: bool, leak: bool, total_busy: float) -> MonitoringSeries:
    ts = (T0 + np.arange(n)).astype(float)
    rng = np.random.default_rng(2)
    metrics: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for core in range(4):
        busy = 98.0 if (hot_core and core == 0) else 12.0
        metrics[f"custom:cpu-cpu{core}_usage_idle"] = (ts, 100.0 - busy + rng.normal(0, 1, n))
    metrics["custom:cpu-cpu-total_usage_idle"] = (ts, 100.0 - total_busy + rng.normal(0, 0.5, n))
    growth = np.linspace(0, 800e6, n) if leak else np.zeros(n)
    metrics["Memory_used"] = (ts, 2e9 + growth + rng.normal(0, 5e6, n))
    return MonitoringSeries(host="target", metrics=metrics)


def test_monitoring_hints() -> None:
    scheme = ["line(10, 1000, 300s)"]
    planned = parse_load_scheme(scheme).planned_rps()
    series = simulate(planned, capacity_rps=600.0)
    host = _host(planned.size, hot_core=True, leak=True, total_busy=99.0)
    result = diagnose(DiagnosisInput(series, load_scheme=scheme, monitoring=[host]))
    single = only(result, "single_core")
    assert single.evidence["core"] == 0
    cpu = only(result, "cpu_saturated")
    assert cpu.evidence["ts"] == only(result, "imbalance").evidence["ts"]
    memory = only(result, "memory_growth")
    assert memory.evidence["end_mib"] - memory.evidence["start_mib"] == pytest.approx(800e6 / 2**20, rel=0.05)


def test_quiet_monitoring_gives_no_hint() -> None:
    scheme = ["const(500, 5m)"]
    planned = parse_load_scheme(scheme).planned_rps()
    host = _host(planned.size, hot_core=False, leak=False, total_busy=40.0)
    result = diagnose(DiagnosisInput(simulate(planned, 2000.0), load_scheme=scheme, monitoring=[host]))
    assert result.findings == []


def test_findings_serialise_to_the_api_shape() -> None:
    scheme = ["line(10, 1000, 300s)"]
    planned = parse_load_scheme(scheme).planned_rps()
    result = diagnose(DiagnosisInput(simulate(planned, capacity_rps=600.0), load_scheme=scheme))
    for finding in result.findings:
        data = finding.as_dict()
        assert set(data) == {"kind", "severity", "title", "text", "evidence", "facts", "annotations"}
        assert None not in data["evidence"].values()  # an unknown figure is left out, not null
        assert all(isinstance(f["label"], str) and f["value"] for f in data["facts"])
        assert data["severity"] in {"critical", "warning", "info"}
        for note in data["annotations"]:
            assert set(note) == {"ts", "label"} and isinstance(note["ts"], int)


def test_load_shedding_service_breaks_by_errors() -> None:
    # A service that sheds load answers fast with 503 above its capacity: no deficit, no slow answers, only errors.
    scheme = ["line(10, 1000, 300s)"]
    planned = parse_load_scheme(scheme).planned_rps()
    rng = np.random.default_rng(9)
    n = planned.size
    resps = rng.poisson(planned).astype(float)
    errors = np.maximum(resps - 700.0, 0.0)
    q95 = 20.0 * rng.lognormal(0, 0.08, n)
    series = TestSeries.from_columns(
        ts=T0 + np.arange(n),
        planned_rps=planned,
        resps=resps,
        errors=errors,
        mean_ms=q95 / 2,
        q50_ms=q95 / 2,
        q95_ms=q95,
        q99_ms=q95 * 1.3,
    )
    result = diagnose(DiagnosisInput(series, load_scheme=scheme))
    finding = only(result, "imbalance")
    assert finding.evidence["criterion"] == "errors"
    # Errors pass 5 % of the answers at 700 / 0.95 ≈ 737 RPS.
    truth = int(np.argmax(planned > 700.0 / 0.95))
    assert abs(finding.evidence["second_index"] - truth) <= 4, finding.evidence


def test_steady_test_that_breaks_for_a_while_and_recovers() -> None:
    # 30 s in the middle of a steady test during which the service answers a third of the load, the rest times out.
    scheme = ["const(400, 10m)"]
    planned = parse_load_scheme(scheme).planned_rps()
    series = simulate(planned, capacity_rps=2000.0, seed=21)
    resps = series.resps.copy()
    timeouts = series.timeouts.copy()
    timeouts[200:230] = np.round(resps[200:230] * 2 / 3)
    outage = TestSeries.from_columns(**{**series.__dict__, "timeouts": timeouts, "errors": timeouts})
    result = diagnose(DiagnosisInput(outage, load_scheme=scheme))
    finding = only(result, "overload")
    assert abs(finding.evidence["ts"] - (T0 + 200)) <= 3, finding.evidence
    assert abs(finding.evidence["until_ts"] - (T0 + 230)) <= 3, finding.evidence
    assert [a.label for a in finding.annotations] == ["overload", "recovered"]
    # The steady q99 leaves the outage out: the longest clean stretch is the one after it.
    assert result.steady_span is not None and result.steady_span[0] >= finding.evidence["until_ts"]


def test_steady_load_above_capacity_is_an_overload_to_the_end() -> None:
    scheme = ["const(800, 5m)"]
    planned = parse_load_scheme(scheme).planned_rps()
    result = diagnose(DiagnosisInput(simulate(planned, capacity_rps=600.0), load_scheme=scheme))
    finding = only(result, "overload")
    assert "until_ts" not in finding.as_dict()["evidence"]  # to the end
    assert finding.evidence["ts"] - T0 <= 5  # it never kept up
    assert result.imbalance_rps is None  # not a ramp: no capacity figure for the trend


def test_steady_test_whose_errors_rise_below_overload() -> None:
    scheme = ["const(300, 6m)"]
    planned = parse_load_scheme(scheme).planned_rps()
    series = simulate(planned, capacity_rps=5000.0, seed=13)
    rng = np.random.default_rng(13)
    errors = np.zeros(len(series))
    errors[150:] = rng.binomial(series.resps[150:].astype(int), 0.02)  # 2 % of requests fail from 150 s on
    result = diagnose(
        DiagnosisInput(TestSeries.from_columns(**{**series.__dict__, "errors": errors}), load_scheme=scheme)
    )
    finding = only(result, "error_regime_change")
    assert abs(finding.evidence["ts"] - (T0 + 150)) <= 3
    assert finding.evidence["error_share_after"] == pytest.approx(0.02, abs=0.003)
    assert kinds(result) == ["error_regime_change"]


def test_sporadic_errors_are_no_finding() -> None:
    scheme = ["const(300, 6m)"]
    planned = parse_load_scheme(scheme).planned_rps()
    series = simulate(planned, capacity_rps=5000.0, seed=17)
    errors = np.random.default_rng(17).binomial(series.resps.astype(int), 0.002).astype(float)  # 0.2 % throughout
    result = diagnose(
        DiagnosisInput(TestSeries.from_columns(**{**series.__dict__, "errors": errors}), load_scheme=scheme)
    )
    assert result.findings == []
