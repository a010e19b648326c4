"""The diagnosis of one test: every detector run over its series, each conclusion turned into a `Finding`.

Findings (see docs/diagnosis.md for the plain-words version):
- `imbalance` (ramp) / `overload` (steady load, to the end or for a while): the service stopped keeping up;
  the second and the RPS;
- `generator_limited`: from this second on the figures describe the generator, not the service;
- `regime_change`: quantiles jumped to a new level in a test that otherwise kept up;
- `error_regime_change`: the error share rose to a new level below the overload threshold;
- `usl`: closed-model ramp, throughput vs concurrency fitted by the Universal Scalability Law;
- `timeouts` / `discarded`: how many requests timed out (net 110) or were never sent (net 777);
- monitoring hints: `single_core`, `cpu_saturated`, `memory_growth`.
Besides the findings it computes the figures a component's trend follows: q99 of the steady stage and the imbalance
RPS (the error share is the report's: analytics.definitions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from analytics.definitions import SUSTAINED_S, format_count, format_percent, sustained_max_rps
from analytics.diagnosis.figures import usl_figure
from analytics.diagnosis.generator import GeneratorLimit, generator_limit
from analytics.diagnosis.imbalance import (
    BEHIND_RATIO,
    JUMP_WINDOW_S,
    LATENCY_JUMP_RATIO,
    SMOOTH_S,
    Criteria,
    ErrorRegimeChange,
    Onset,
    RegimeChange,
    around,
    criteria,
    error_regime_change,
    find_onset,
    regime_change,
)
from analytics.diagnosis.loadscheme import LoadScheme, LoadSchemeError, parse_load_scheme
from analytics.diagnosis.monitoring import monitoring_hints
from analytics.diagnosis.schedule_infer import InferredSchedule, infer_schedule
from analytics.diagnosis.types import (
    Annotation,
    Finding,
    FloatArray,
    MonitoringSeries,
    TestSeries,
    utc_clock,
)
from analytics.diagnosis.usl import UslFit, fit_usl

# Error and timeout shares below these are noise worth no finding.
TIMEOUT_SHARE_FINDING = 0.001
INFERRED_END_S = 10
DISCARDED_SHARE_FINDING = 0.001


@dataclass(frozen=True)
class DiagnosisInput:
    series: TestSeries
    load_scheme: Any = None  # as the tank sent it (list of str or dicts)
    configured_instances: int | None = None
    monitoring: list[MonitoringSeries] = field(default_factory=list)
    # Requests started in each second of `series.ts` (Pandora's discarded ones included): the load profile of a
    # test whose schedule nobody gave (a phout-only upload) is read off it.
    starts: FloatArray | None = None


@dataclass(frozen=True)
class DiagnosisResult:
    findings: list[Finding]
    figures: dict[str, dict[str, Any]]
    q99_steady_ms: float | None
    imbalance_rps: float | None
    imbalance_ts: int | None
    generator_limited_ts: int | None
    scheme_error: str | None = None
    # [from, to) unix s of the steady stage q99 was taken over (its longest unbroken stretch), for exact re-reads.
    steady_span: tuple[int, int] | None = None
    # The schedule read off the request start rate when none was given (Phantom's syntax), else None.
    inferred_schedule: str | None = None


def _scheme(raw: Any) -> tuple[LoadScheme, str | None]:
    try:
        return parse_load_scheme(raw), None
    except LoadSchemeError as exc:
        return LoadScheme(()), str(exc)


def is_closed_model(series: TestSeries) -> bool:
    """The generator reported instances but never a planned rate: instances drive the load (instances schedule).

    Then the load scheme, if any, describes instances, not RPS, and must not be read as a planned rate.
    """
    return closed_model(series.planned_rps, series.instances)


def closed_model(planned_rps: npt.ArrayLike, instances: npt.ArrayLike) -> bool:
    """`is_closed_model` of a planned-RPS and an instances series (per second or per chart point)."""
    planned, active = np.asarray(planned_rps, dtype=np.float64), np.asarray(instances, dtype=np.float64)
    return float(np.nanmax(planned, initial=0.0)) <= 0 and float(np.nanmax(active, initial=0.0)) > 0


def plan_of_scheme(scheme: LoadScheme, first_ts: int, ts: npt.ArrayLike) -> FloatArray:
    """The scheme's planned RPS at each second of `ts`, laid out from the test's first second (NaN outside it)."""
    seconds = np.asarray(ts, dtype=np.int64)
    from_scheme = scheme.planned_rps()
    planned = np.full(seconds.size, np.nan)
    offsets = seconds - int(first_ts)
    inside = (offsets >= 0) & (offsets < from_scheme.size)
    planned[inside] = from_scheme[offsets[inside]]
    return planned


def planned_series(series: TestSeries, scheme: LoadScheme) -> FloatArray:
    """Planned RPS per second: the generator's own figure when it sent one, else the scheme from the first second."""
    if float(series.planned_rps.max(initial=0.0)) > 0:
        return series.planned_rps.astype(np.float64)
    if is_closed_model(series) or not len(series):
        return np.full(len(series), np.nan)
    return plan_of_scheme(scheme, int(series.ts[0]), series.ts)


def inferred_plan(series: TestSeries, starts: FloatArray | None) -> InferredSchedule | None:
    """The schedule read off the requests started per second, when the generator sent no plan and none was given."""
    if float(series.planned_rps.max(initial=0.0)) > 0 or is_closed_model(series) or len(series) == 0:
        return None
    counts = starts if starts is not None and starts.size == len(series) else series.resps
    offsets = (series.ts - series.ts[0]).astype(np.int64)
    dense = np.zeros(int(offsets[-1]) + 1)
    dense[offsets] = counts
    inferred = infer_schedule(dense)
    return inferred if inferred.scheme.segments else None


def _is_ramp(planned: FloatArray, scheme: LoadScheme) -> bool:
    if scheme.is_ramp:
        return True
    finite = planned[np.isfinite(planned) & (planned > 0)]
    if finite.size < 10:
        return False
    head = float(np.median(finite[: max(3, finite.size // 10)]))
    tail = float(np.median(finite[-max(3, finite.size // 10) :]))
    return tail > 1.5 * max(head, 1.0)


def _steady_mask(series: TestSeries, planned: FloatArray, scheme: LoadScheme) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Seconds of the steady (const) stage: the scheme's const parts, else the most common planned rate."""
    n = len(series)
    mask = np.zeros(n, dtype=bool)
    if n == 0:
        return mask
    offsets = (series.ts - series.ts[0]).astype(np.int64)
    for start, end in scheme.const_spans():
        mask |= (offsets >= start) & (offsets < end)
    if mask.any():
        return mask
    finite = np.isfinite(planned) & (planned > 0)
    if finite.any():
        values, counts = np.unique(np.round(planned[finite]), return_counts=True)
        mode = values[int(np.argmax(counts))]
        if counts.max() >= 10:
            steady: np.ndarray[Any, np.dtype[np.bool_]] = finite & (np.round(planned) == mode)
            return steady
    return series.resps > 0


@dataclass(frozen=True)
class ImbalanceLoad:
    """The imbalance's headline figure, Overload's: the load at which the service stopped keeping up.

    With a plan (the tank's planned RPS, or the schedule given with the test) it is the planned RPS at the onset (a
    second in which a step changes holds both rates, and the break belongs to the higher one: the larger of this
    second's and the next's). A plan read off the start rate stops following the schedule once the service holds
    the generator's instances (the starts then follow the answers), so there the load is the most the service
    answered, held for 5 s (analytics.definitions.sustained_max_rps, the Max RPS rule): its capacity."""

    rps: float
    basis: str  # "planned": the plan at the onset; "most_answered": held for 5 s, at `peak_index`
    peak_index: int | None = None


def imbalance_load(planned: FloatArray, answered: FloatArray, index: int, inferred: bool) -> ImbalanceLoad:
    near = planned[index : index + 2]
    near = near[np.isfinite(near)]
    if near.size and not inferred and float(near.max()) > 0:
        return ImbalanceLoad(float(near.max()), "planned")
    if answered.size < SUSTAINED_S:
        return ImbalanceLoad(sustained_max_rps(answered), "most_answered", int(np.argmax(answered)))
    medians = np.median(np.lib.stride_tricks.sliding_window_view(answered, SUSTAINED_S), axis=1)
    start = int(np.argmax(medians))
    return ImbalanceLoad(float(medians[start]), "most_answered", start + SUSTAINED_S // 2)


def _criterion_sentence(series: TestSeries, crit: Criteria, criterion: str, i: int) -> tuple[str, tuple[str, str]]:
    """What fired at the onset, in words, with the figures the criterion compared (the sentence's threshold and the
    figure beside it are the same numbers), and the fact that shows them."""
    if criterion == "behind":
        answered, planned = float(crit.smooth_answered_rps[i]), float(crit.smooth_planned_rps[i])
        share = answered / planned if planned > 0 else 0.0
        figure = f"{format_count(answered)} of {format_count(planned)} planned responses/s ({format_percent(share, 1)})"
        return (
            f"answered responses fell below {BEHIND_RATIO * 100:g} % of the planned RPS: {figure}, medians over "
            f"{SMOOTH_S} s",
            ("Answered at the onset", f"{figure}, below {BEHIND_RATIO * 100:g} %"),
        )
    if criterion == "errors":
        value, threshold = float(crit.smooth_error_share[i]), crit.error_threshold
        return (
            f"the error share rose to {format_percent(value)} (median over {SMOOTH_S} s), above "
            f"{format_percent(threshold)} (5 % or 3× its early level)",
            ("Errors at the onset", f"{format_percent(value)}, above {format_percent(threshold)}"),
        )
    before, after = around(series.q95_ms, series.resps, i)
    return (
        f"response times jumped to a new level: q95 {format_count(after)} ms over the {JUMP_WINDOW_S} s from it, "
        f"{format_count(after / before) if before > 0 else '—'}× the {format_count(before)} ms of the "
        f"{JUMP_WINDOW_S} s before (a jump is {LATENCY_JUMP_RATIO:g}× or more)",
        ("q95 at the onset", f"{format_count(before)} ms before, {format_count(after)} ms after"),
    )


def _imbalance_finding(
    series: TestSeries, planned: FloatArray, crit: Criteria, onset: Onset, ramp: bool, inferred: bool
) -> Finding:
    why, criterion_fact = _criterion_sentence(series, crit, onset.criterion, onset.index)
    evidence = _onset_evidence(series, crit, onset)
    facts = [criterion_fact, *_onset_facts(evidence, onset.criterion)]
    if ramp:
        return _ramp_imbalance_finding(series, planned, crit, onset, inferred, why, evidence, facts)
    return _overload_finding(series, onset, why, evidence, facts)


def _onset_evidence(series: TestSeries, crit: Criteria, onset: Onset) -> dict[str, Any]:
    """The figures around an onset: answered responses, q95 and the error share in the windows before and after."""
    i = onset.index
    q95_before, q95_after = around(series.q95_ms, series.resps, i)
    answered_before, answered_after = around(crit.answered_rps, series.resps, i)
    return {
        "ts": int(series.ts[i]),
        "second_index": i,
        "criterion": onset.criterion,
        "answered_rps_before": _finite(answered_before),
        "answered_rps_after": _finite(answered_after),
        "q95_ms_before": _finite(q95_before),
        "q95_ms_after": _finite(q95_after),
        "error_share_before": float(np.mean(crit.error_share[max(0, i - JUMP_WINDOW_S) : i])) if i > 0 else None,
        "error_share_after": float(np.mean(crit.error_share[i : i + JUMP_WINDOW_S])),
        "baseline_q95_ms": crit.baseline_q95_ms,
    }


def _ramp_imbalance_finding(
    series: TestSeries,
    planned: FloatArray,
    crit: Criteria,
    onset: Onset,
    inferred: bool,
    why: str,
    evidence: dict[str, Any],
    facts: list[tuple[str, str]],
) -> Finding:
    """On a ramp the onset is the capacity: the load there, planned or (with an inferred plan) the most answered."""
    ts = int(series.ts[onset.index])
    load = imbalance_load(planned, crit.answered_rps, onset.index, inferred)
    rps_text = f"{format_count(load.rps)} RPS"
    if load.basis == "planned":
        where = f"at {rps_text}, the planned load at the onset"
        headline = ("Imbalance", f"{rps_text}: planned at the onset, {utc_clock(ts)} UTC")
        load_facts: list[tuple[str, str]] = []
    else:
        peak_ts = int(series.ts[load.peak_index or 0])
        where = (
            f"at {rps_text}: the most it answered, for {SUSTAINED_S} s in a row ({utc_clock(peak_ts)} UTC), as the "
            "load profile was read off the request start rate (which follows the answers once the service holds "
            "the generator's instances)"
        )
        headline = ("Imbalance", f"{rps_text}: the most answered for {SUSTAINED_S} s, at {utc_clock(peak_ts)} UTC")
        load_facts = [("Onset", f"{utc_clock(ts)} UTC")]
    return Finding(
        kind="imbalance",
        severity="critical",
        title=f"Imbalance at {rps_text} ({utc_clock(ts)} UTC)",
        text=(
            f"The service stopped keeping up {where}. At {utc_clock(ts)} UTC {why}. "
            "This is the capacity found by this ramp; plan production load below it."
        ),
        evidence={
            **evidence,
            "planned_rps": load.rps if load.basis == "planned" else None,
            "imbalance_rps": load.rps,
            "imbalance_basis": load.basis,
            "peak_ts": int(series.ts[load.peak_index]) if load.peak_index is not None else None,
            "planned_from": "inferred" if inferred else "plan",
        },
        annotations=[Annotation(ts, f"imbalance {rps_text}")],
        facts=[headline, *load_facts, *facts],
    )


def _overload_finding(
    series: TestSeries, onset: Onset, why: str, evidence: dict[str, Any], facts: list[tuple[str, str]]
) -> Finding:
    """At a steady load the onset is an overload: to the end of the test, or until the service recovered."""
    ts = int(series.ts[onset.index])
    if onset.end_index >= len(series):
        return Finding(
            kind="overload",
            severity="critical",
            title=f"Service overloaded from {utc_clock(ts)} UTC",
            text=(
                f"At a steady load the service stopped keeping up from {utc_clock(ts)} UTC to the end: {why}. "
                "The planned rate is above what the service sustains."
            ),
            evidence=evidence,
            annotations=[Annotation(ts, "overload")],
            facts=[("Overloaded from", f"{utc_clock(ts)} UTC to the end"), *facts],
        )
    end_ts = int(series.ts[onset.end_index])
    return Finding(
        kind="overload",
        severity="critical",
        title=f"Service failed to keep up for {end_ts - ts} s from {utc_clock(ts)} UTC",
        text=(
            f"At a steady load the service stopped keeping up from {utc_clock(ts)} to {utc_clock(end_ts)} UTC "
            f"({end_ts - ts} s): {why}; then it recovered. Look for what happened then: a pause (GC, a lock), a "
            "failover, a dependency that slowed down."
        ),
        evidence={**evidence, "until_ts": end_ts},
        annotations=[Annotation(ts, "overload"), Annotation(end_ts, "recovered")],
        facts=[("Failed to keep up", f"{utc_clock(ts)}–{utc_clock(end_ts)} UTC ({end_ts - ts} s)"), *facts],
    )


def _finite(value: float) -> float | None:
    return value if np.isfinite(value) else None


def _onset_facts(evidence: dict[str, Any], criterion: str) -> list[tuple[str, str]]:
    """The medians of the 10 s before and after the onset, beside the criterion's own figures: answered responses
    (unless the criterion is theirs), q95 (unless it is), the error share."""
    facts: list[tuple[str, str]] = []
    pairs = (
        ("Answered", "answered_rps_before", "answered_rps_after", " responses/s", "behind"),
        ("q95", "q95_ms_before", "q95_ms_after", " ms", "latency"),
    )
    for label, before, after, unit, own in pairs:
        if criterion == own or evidence.get(after) is None:
            continue
        if evidence.get(before) is not None:
            facts.append(
                (label, f"{format_count(evidence[before])}{unit} before, {format_count(evidence[after])}{unit} after")
            )
        else:
            facts.append((label, f"{format_count(evidence[after])}{unit} after"))
    if criterion != "errors" and evidence.get("error_share_after") is not None:
        before_share = evidence.get("error_share_before")
        facts.append(
            (
                "Errors",
                (f"{format_percent(before_share)} before, " if before_share is not None else "")
                + f"{format_percent(evidence['error_share_after'])} after",
            )
        )
    return facts


def _generator_finding(series: TestSeries, limit: GeneratorLimit, onset: Onset | None) -> Finding:
    ts = int(series.ts[limit.index])
    instances = f"all {limit.max_instances} instances" if limit.max_instances else "all its instances"
    reason = {
        "instances_at_max": f"{instances} were busy while responses fell behind the plan",
        "discarded": "the generator discarded requests it had no free instance for (net code 777)",
        "littles_law": (
            f"the planned {format_count(limit.planned_rps)} RPS is above what {limit.max_instances} instances can "
            f"send at {format_count(limit.mean_ms)} ms per response (Little's law: 1000 / "
            f"{format_count(limit.mean_ms)} × {limit.max_instances} = {format_count(limit.ceiling_rps or 0)} RPS)"
        ),
    }[limit.reason]
    first = onset is None or limit.index <= onset.index
    # Advice only with its figure: the instances needed follow from the planned peak, unknown without a plan.
    advice = (
        f" Give it more instances: at {format_count(limit.mean_ms)} ms per response the planned peak needs about "
        f"{limit.recommended_instances} (with 20 % headroom)."
        if limit.recommended_instances
        else ""
    )
    lead = (
        "The generator, not the service, was the limit: the figures after this second say nothing about the service."
        if first
        else "After the service broke, the generator also ran out of instances."
    )
    facts: list[tuple[str, str]] = [("From", f"{utc_clock(ts)} UTC")]
    if limit.max_instances:
        facts.append(("Instances", f"{limit.max_instances}"))
    facts.append(("Mean response time", f"{format_count(limit.mean_ms)} ms"))
    if limit.planned_rps > 0:
        facts.append(("Planned", f"{format_count(limit.planned_rps)} RPS"))
    if limit.ceiling_rps:
        facts.append(("Most the instances can send", f"{format_count(limit.ceiling_rps)} RPS"))
    if limit.recommended_instances:
        facts.append(("Instances needed", f"{limit.recommended_instances}"))
    return Finding(
        kind="generator_limited",
        severity="critical" if first else "warning",
        title=f"The result is limited by the generator from {utc_clock(ts)} UTC",
        text=f"The result is limited by the generator from {utc_clock(ts)} UTC: {reason}. {lead}{advice}",
        evidence={
            "ts": ts,
            "second_index": limit.index,
            "reason": limit.reason,
            "max_instances": limit.max_instances,
            "mean_ms": limit.mean_ms,
            "planned_rps": limit.planned_rps if limit.planned_rps > 0 else None,
            "ceiling_rps": limit.ceiling_rps or None,
            "recommended_instances": limit.recommended_instances,
            "before_imbalance": first,
        },
        annotations=[Annotation(ts, "generator limit")],
        facts=facts,
    )


def _code_findings(series: TestSeries) -> list[Finding]:
    findings: list[Finding] = []
    total = float(series.resps.sum())
    if total <= 0:
        return findings
    for kind, counts, share_min, what in (
        ("timeouts", series.timeouts, TIMEOUT_SHARE_FINDING, "timed out (net code 110, or phantom's 314)"),
        (
            "discarded",
            series.discarded,
            DISCARDED_SHARE_FINDING,
            "were discarded by the generator, never sent (net code 777)",
        ),
    ):
        count = float(counts.sum())
        if count / total < share_min:
            continue
        first = int(np.argmax(counts > 0))
        peak = int(np.argmax(counts))
        findings.append(
            Finding(
                kind=kind,
                severity="warning",
                title=f"{format_percent(count / total)} of requests {what.split(',')[0].split(' (')[0]}",
                text=(
                    f"{format_count(count)} of {format_count(total)} requests ({format_percent(count / total)}) "
                    f"{what}; the first at {utc_clock(series.ts[first])} UTC, most ({format_count(counts[peak])}) at "
                    f"{utc_clock(series.ts[peak])} UTC."
                ),
                evidence={
                    "count": int(count),
                    "share": count / total,
                    "first_ts": int(series.ts[first]),
                    "peak_ts": int(series.ts[peak]),
                    "peak_count": int(counts[peak]),
                },
                annotations=[Annotation(int(series.ts[first]), f"first {kind}")],
                facts=[
                    ("Requests", f"{format_count(count)} of {format_count(total)} ({format_percent(count / total)})"),
                    ("First", f"{utc_clock(series.ts[first])} UTC"),
                    ("Most in one second", f"{format_count(counts[peak])} at {utc_clock(series.ts[peak])} UTC"),
                ],
            )
        )
    return findings


def closed_model_points(series: TestSeries, planned: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """(concurrency, throughput) per instances level of a closed-model ramp, or None if this is not one.

    Closed model: no planned rate to follow, and the instances count rises through at least four
    levels. Throughput at a level is the median answered RPS over its seconds, the first second of each level
    dropped as warm-up.
    """
    if np.nanmax(np.where(np.isfinite(planned), planned, 0.0), initial=0.0) > 0:
        return None
    inst = series.instances
    active = inst > 0
    if active.sum() < 8:
        return None
    levels = np.unique(inst[active])
    if levels.size < 4:
        return None
    order = np.arange(inst.size)[active]
    if np.corrcoef(order, inst[active])[0, 1] < 0.7:
        return None
    answered = np.maximum(series.resps - series.timeouts - series.discarded, 0.0)
    change = np.concatenate([[True], inst[1:] != inst[:-1]])
    n_points: list[float] = []
    x_points: list[float] = []
    for level in levels:
        seconds = (inst == level) & ~change
        if seconds.sum() < 2:
            continue
        n_points.append(float(level))
        x_points.append(float(np.median(answered[seconds])))
    if len(n_points) < 4:
        return None
    return np.array(n_points), np.array(x_points)


def _usl_finding(fit: UslFit, points: tuple[FloatArray, FloatArray]) -> Finding:
    n, x = points
    if fit.peak_concurrency is not None and fit.peak_rps is not None:
        peak = (
            f"throughput peaks at about {format_count(fit.peak_concurrency)} concurrent instances "
            f"({format_count(fit.peak_rps)} RPS); "
            "more concurrency beyond that lowers throughput."
        )
        if fit.peak_concurrency > float(n.max()):
            peak = (
                f"the fit predicts a peak at about {format_count(fit.peak_concurrency)} instances "
                f"({format_count(fit.peak_rps)} RPS), "
                "beyond the tested range: extend the ramp to confirm it."
            )
    else:
        peak = "no coherency penalty: throughput levels off but does not fall in the tested range."
    return Finding(
        kind="usl",
        severity="info",
        title=f"Scalability: σ = {fit.sigma:.3f}, κ = {fit.kappa:.5f}",
        text=(
            f"Throughput against concurrency follows the Universal Scalability Law with contention σ = {fit.sigma:.3f} "
            f"and coherency κ = {fit.kappa:.5f} (one instance ≈ {fit.lambda_rps:.1f} RPS, R² = {fit.r2:.2f}): {peak}"
        ),
        evidence={
            "sigma": fit.sigma,
            "kappa": fit.kappa,
            "lambda_rps": fit.lambda_rps,
            "peak_concurrency": fit.peak_concurrency,
            "peak_rps": fit.peak_rps,
            "r2": fit.r2,
            "points": [{"concurrency": float(a), "rps": float(b)} for a, b in zip(n, x, strict=True)],
        },
    )


def _regime_finding(series: TestSeries, change: RegimeChange) -> Finding:
    ts = int(series.ts[change.index])
    direction = "rose" if change.after_ms > change.before_ms else "fell"
    return Finding(
        kind="regime_change",
        severity="warning" if change.after_ms > change.before_ms else "info",
        title=f"Response times {direction} to a new level at {utc_clock(ts)} UTC",
        text=(
            f"q95 {direction} from about {format_count(change.before_ms)} ms to {format_count(change.after_ms)} ms at "
            f"{utc_clock(ts)} UTC and stayed there, while the service kept up with the load. Look for "
            "what changed then: a background job, a cache flush, a neighbour on the host."
        ),
        evidence={
            "ts": ts,
            "q95_ms_before": change.before_ms,
            "q95_ms_after": change.after_ms,
            "statistic": change.statistic,
        },
        annotations=[Annotation(ts, f"q95 {direction}")],
        facts=[("q95", f"{format_count(change.before_ms)} ms before, {format_count(change.after_ms)} ms after")],
    )


def _error_regime_finding(series: TestSeries, change: ErrorRegimeChange) -> Finding:
    ts = int(series.ts[change.index])
    return Finding(
        kind="error_regime_change",
        severity="warning",
        title=f"Errors rose to {format_percent(change.after_share)} of requests at {utc_clock(ts)} UTC",
        text=(
            f"The error share rose from {format_percent(change.before_share)} to "
            f"{format_percent(change.after_share)} at {utc_clock(ts)} UTC "
            "and stayed there, below the level of an overload: something started failing part of the requests "
            "(a dependency, a node of a pool, a cache). The HTTP and net code charts show which codes."
        ),
        evidence={
            "ts": ts,
            "error_share_before": change.before_share,
            "error_share_after": change.after_share,
        },
        annotations=[Annotation(ts, "errors rose")],
        facts=[
            ("Error share", f"{format_percent(change.before_share)} before, {format_percent(change.after_share)} after")
        ],
    )


@dataclass(frozen=True)
class _Plan:
    """The load the test meant to give (its scheme, or one read off the start rate) and the criteria against it."""

    scheme: LoadScheme
    inferred: InferredSchedule | None
    planned: FloatArray
    closed: bool
    ramp: bool
    crit: Criteria


def _plan(series: TestSeries, scheme: LoadScheme, starts: FloatArray | None) -> _Plan:
    inferred = inferred_plan(series, starts) if not scheme.segments else None
    if inferred is not None:
        scheme = inferred.scheme
    planned = planned_series(series, scheme)
    closed = is_closed_model(series)
    # In a closed model response times grow with concurrency by design (the USL finding describes that), so
    # only errors mark a breakdown there.
    ramp = _is_ramp(planned, scheme) and not closed
    return _Plan(scheme, inferred, planned, closed, ramp, criteria(series, planned))


def _plan_onset(series: TestSeries, plan: _Plan) -> Onset | None:
    onset = find_onset(series, plan.crit, ramp=plan.ramp)
    if onset is not None and plan.inferred is not None and onset.index >= len(series) - INFERRED_END_S:
        # A plan read off the start rate ends as the generator winds down: there an end looks like a break.
        return None
    return onset


def _breakdown_findings(
    series: TestSeries, plan: _Plan, onset: Onset | None, limit: GeneratorLimit | None
) -> list[Finding]:
    """Where the service (or the generator) stopped keeping up; without an onset at a steady open load, where the
    response times or the errors moved to a new level."""
    findings: list[Finding] = []
    if onset is not None:
        findings.append(
            _imbalance_finding(series, plan.planned, plan.crit, onset, plan.ramp, plan.inferred is not None)
        )
    if limit is not None:
        findings.append(_generator_finding(series, limit, onset))
    if onset is None and not plan.ramp and not plan.closed:
        change = regime_change(series.q95_ms, series.resps)
        if change is not None:
            findings.append(_regime_finding(series, change))
        errors_change = error_regime_change(plan.crit.error_share, series.resps)
        if errors_change is not None:
            findings.append(_error_regime_finding(series, errors_change))
    return findings


def _inferred_profile_finding(inferred: InferredSchedule, ramp: bool) -> Finding:
    return Finding(
        kind="load_profile",
        severity="info",
        title="Load profile read off the request start rate",
        text=(
            f"No schedule was given, so it was read off the requests started in each second: {inferred.text}. "
            "Give the schedule (tankodrom upload --schedule, or the test's loadscheme) to check the service "
            "against what was planned."
        ),
        evidence={"schedule": inferred.text, "ramp": ramp},
        facts=[("Schedule (inferred)", inferred.text), ("Load", "a ramp" if ramp else "steady")],
    )


def _steady_seconds(
    series: TestSeries, plan: _Plan, onset: Onset | None, limit: GeneratorLimit | None
) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """The steady stage without its breakdown, so an overload does not pollute q99. A breakdown that lasted to the
    end (and any generator limit) cuts the stage; an outage the service recovered from is left out."""
    steady = _steady_mask(series, plan.planned, plan.scheme) & (series.resps > 0)
    if onset is not None and onset.end_index < len(series):
        steady[onset.index : onset.end_index] = False
    cut = min(
        i
        for i in (
            onset.index if onset is not None and onset.end_index >= len(series) else None,
            limit.index if limit else None,
            len(series),
        )
        if i is not None
    )
    steady[cut:] = False
    return steady


def diagnose(data: DiagnosisInput) -> DiagnosisResult:
    series = data.series
    scheme, scheme_error = _scheme(data.load_scheme)
    if len(series) == 0:
        return DiagnosisResult([], {}, None, None, None, None, scheme_error)
    plan = _plan(series, scheme, data.starts)
    inferred = plan.inferred
    onset = _plan_onset(series, plan)
    limit = generator_limit(series, plan.planned, plan.crit, data.configured_instances)
    findings = _breakdown_findings(series, plan, onset, limit)
    findings.extend(_code_findings(series))
    if inferred is not None and inferred.text:
        findings.append(_inferred_profile_finding(inferred, plan.ramp))

    figures: dict[str, dict[str, Any]] = {}
    points = closed_model_points(series, plan.planned)
    if points is not None:
        fit = fit_usl(*points)
        if fit is not None:
            findings.append(_usl_finding(fit, points))
            figures["usl"] = usl_figure(points[0], points[1], fit)

    imbalance_ts = int(series.ts[onset.index]) if onset is not None else None
    if data.monitoring:
        findings.extend(monitoring_hints(data.monitoring, float(series.ts[0]), float(series.ts[-1]), imbalance_ts))

    steady = _steady_seconds(series, plan, onset, limit)
    # The median of per-second q99 here; the backend replaces it with the q99 of the merged histograms over
    # `steady_span` when it has them.
    q99_steady = float(np.median(series.q99_ms[steady])) if steady.any() else None
    imbalance_rps = None
    if onset is not None and plan.ramp:
        imbalance_rps = next(f.evidence.get("imbalance_rps") for f in findings if f.kind == "imbalance")
    return DiagnosisResult(
        findings=findings,
        figures=figures,
        q99_steady_ms=q99_steady,
        imbalance_rps=imbalance_rps,
        imbalance_ts=imbalance_ts,
        generator_limited_ts=int(series.ts[limit.index]) if limit is not None else None,
        scheme_error=scheme_error,
        steady_span=_longest_run(series.ts, steady),
        inferred_schedule=inferred.text if inferred is not None else None,
    )


def _longest_run(ts: FloatArray, mask: np.ndarray[Any, np.dtype[np.bool_]]) -> tuple[int, int] | None:
    """[from, to) seconds of the longest stretch of consecutive True in `mask`."""
    best: tuple[int, int] | None = None
    start = -1
    for i, flag in enumerate([*mask.tolist(), False]):
        if flag and start < 0:
            start = i
        elif not flag and start >= 0:
            if best is None or i - start > best[1] - best[0]:
                best = (start, i)
            start = -1
    if best is None:
        return None
    return int(ts[best[0]]), int(ts[best[1] - 1]) + 1
