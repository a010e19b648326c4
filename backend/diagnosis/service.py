"""Diagnosis logic between the stores and the pure engine: run it for a test, read it back, trends and CI checks.

Views call one function here each (the analysis view also queues a diagnosis, backend/diagnosis/enqueue.py); the
Celery task calls `run`. Access is decided by
`backend.loadtests.permissions.can_read` for every test a trend shows.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import numpy as np
from django.utils import timezone

from analytics.definitions import MAX_TEST_SPAN_S
from analytics.diagnosis import DiagnosisInput, MonitoringSeries, TestSeries, diagnose
from analytics.diagnosis.figures import trend_figure
from analytics.diagnosis.trend import FIGURES, FigureSpec, TrendAnalysis, TrendInput, analyse_trend, judge
from analytics.quantiles import sparse_histogram_quantiles_us
from backend.clickhouse.client import ClickHouseUnavailable
from backend.clickhouse.queries import diagnosis as queries
from backend.diagnosis.models import ENGINE_VERSION, AnalysisStatus, TestAnalysis
from backend.loadtests.models import Test, TestStatus
from backend.loadtests.permissions import can_read
from backend.reports.source import source_id_of, source_of
from backend.reports.whole import whole_summary

log = logging.getLogger(__name__)

# A pending analysis older than this is requested again (its worker may have died).
PENDING_RETRY = timedelta(minutes=10)
TREND_MAX_TESTS = 200
CLOSED = (TestStatus.READY, TestStatus.FAILED)
FIGURE_FIELDS = {"q99": "q99_steady_ms", "imbalance_rps": "imbalance_rps", "error_share": "error_share"}


def _generator_figures(test: Test, rows: queries.SecondRows) -> tuple[list[float], list[int]]:
    """Planned RPS and instances per second of `rows`.

    A phout has neither; when the tank also streamed the test, its stream has both (what the generator planned
    and how many instances it had busy), so they are taken from there, second by second.
    """
    if source_id_of(test) == 0 or not test.has_stream:
        return rows.planned_rps, rows.instances
    stream = queries.overall_seconds(int(test.pk), 0)
    planned = dict(zip(stream.ts, stream.planned_rps, strict=True))
    instances = dict(zip(stream.ts, stream.instances, strict=True))
    return [planned.get(ts, 0.0) for ts in rows.ts], [instances.get(ts, 0) for ts in rows.ts]


def load_input(test: Test) -> DiagnosisInput:
    rows = queries.overall_seconds(int(test.pk), source_id_of(test))
    planned_rps, instances = _generator_figures(test, rows)
    series = TestSeries.from_columns(
        ts=rows.ts,
        planned_rps=planned_rps,
        instances=instances,
        resps=rows.resps,
        # The detectors judge the service: of the failed requests, those it was sent (discarded ones are the
        # generator's, counted apart).
        errors=[failed - discarded for failed, discarded in zip(rows.failed, rows.discarded, strict=True)],
        timeouts=rows.timeouts,
        discarded=rows.discarded,
        mean_ms=rows.mean_ms,
        q50_ms=rows.q50_ms,
        q95_ms=rows.q95_ms,
        q99_ms=rows.q99_ms,
    )
    hosts = [
        MonitoringSeries(
            host=host,
            metrics={
                name: (np.asarray(ts, dtype=np.float64), np.asarray(values, dtype=np.float64))
                for name, (ts, values) in metrics.items()
            },
        )
        for host, metrics in queries.monitoring_points(int(test.pk)).items()
    ]
    starts = None
    upload_id = source_of(test).upload_id  # None also when retention expired the raw samples: no send times left
    if upload_id is not None:
        per_second = queries.starts_per_second(int(test.pk), upload_id)
        starts = np.array([per_second.get(ts, 0) for ts in rows.ts], dtype=np.float64)
    return DiagnosisInput(
        series=series,
        load_scheme=test.loadscheme or None,
        starts=starts,
        configured_instances=test.instances if test.instances and test.instances > 0 else None,
        monitoring=hosts,
    )


class SpanTooLong(ValueError):
    """The test's seconds are further apart than MAX_TEST_SPAN_S."""


def run(test: Test) -> TestAnalysis:
    """Diagnose a test from its current data and store the result (overwriting any earlier one)."""
    data = load_input(test)
    if len(data.series) and int(data.series.ts[-1] - data.series.ts[0]) > MAX_TEST_SPAN_S:
        # The engine lays its series out per second: a stream whose times are years apart (a tank with a wrong
        # clock, or a hostile one) would take gigabytes. Stored as the analysis' failure, as any other.
        raise SpanTooLong(
            f"the test's seconds span more than a test may last ({MAX_TEST_SPAN_S // 86400} days): not diagnosed"
        )
    result = diagnose(data)
    findings = [f.as_dict() for f in result.findings]
    if result.scheme_error:
        findings.append(
            {
                "kind": "load_scheme",
                "severity": "info",
                "title": "The load scheme could not be read",
                "text": f"The planned load is unknown where the generator did not report it: {result.scheme_error}.",
                "evidence": {"load_scheme": test.loadscheme, "error": result.scheme_error},
                "annotations": [],
            }
        )
    q99_steady_ms = result.q99_steady_ms
    if result.steady_span is not None:
        bins, counts = queries.steady_histogram(int(test.pk), source_id_of(test), *result.steady_span)
        if sum(counts) > 0:
            # The q99 of the whole stage, not the median of per-second q99s: what "q99 of the steady stage" means.
            q99_steady_ms = float(sparse_histogram_quantiles_us(bins, counts, [99.0])[0]) / 1000.0
    analysis, _ = TestAnalysis.objects.update_or_create(
        test=test,
        defaults={
            "status": AnalysisStatus.READY,
            "engine_version": ENGINE_VERSION,
            "source_id": source_id_of(test),
            "seconds": len(data.series),
            "findings": findings,
            "figures": result.figures,
            "q99_steady_ms": q99_steady_ms,
            "steady_from_ts": result.steady_span[0] if result.steady_span else None,
            "steady_to_ts": result.steady_span[1] if result.steady_span else None,
            "imbalance_rps": result.imbalance_rps,
            "imbalance_ts": result.imbalance_ts,
            # The trend's error share is the report's (the summary's outcomes), not a sum over the detectors' seconds.
            "error_share": whole_summary(test)["outcomes"]["failed_share"],
            "generator_limited_ts": result.generator_limited_ts,
            "error": "",
            "computed_at": timezone.now(),
        },
    )
    return analysis


def run_or_mark_failed(test: Test) -> TestAnalysis | None:
    """`run`, or None when the diagnosis fails on the test's data: the failure is stored as the analysis (the
    report says so, and neither reads nor checks run it again until the data or the engine changes). ClickHouse
    being unreachable is raised: that is not the data's fault, and the caller retries or answers 503."""
    try:
        return run(test)
    except ClickHouseUnavailable:
        raise
    except Exception as exc:
        log.exception("the diagnosis of test %s failed", test.pk)
        mark_failed(test, f"{type(exc).__name__}: {exc}")
        return None


def analysis_for_check(test: Test) -> TestAnalysis | None:
    """What a CI check judges with: the current analysis, or one computed now (the job waits for its answer);
    None when the diagnosis failed on the test's present data."""
    analysis = stored_analysis(test)
    if is_current(analysis, test):
        return analysis
    if failed_on_present_data(analysis, test):
        return None
    return run_or_mark_failed(test)


def diagnosis_failure(test: Test) -> str:
    """Why a test has no analysis to judge with, for a CI check's reasons or notes."""
    analysis = stored_analysis(test)
    error = analysis.error if analysis is not None and analysis.status == AnalysisStatus.FAILED else "no result"
    return f"the diagnosis of test {test.pk} failed ({error})"


def mark_failed(test: Test, message: str) -> None:
    """The diagnosis of this data by this engine failed: the answer until either changes (`failed_on_present_data`)."""
    TestAnalysis.objects.update_or_create(
        test=test,
        defaults={
            "status": AnalysisStatus.FAILED,
            "engine_version": ENGINE_VERSION,
            "source_id": source_id_of(test),
            "error": message[:2000],
            "computed_at": timezone.now(),
        },
    )


def _of_present_data(analysis: TestAnalysis | None, test: Test, status: AnalysisStatus) -> bool:
    return (
        analysis is not None
        and analysis.status == status
        and analysis.engine_version == ENGINE_VERSION
        and analysis.source_id == source_id_of(test)
    )


def is_current(analysis: TestAnalysis | None, test: Test) -> bool:
    """A ready result of this engine on the test's present data."""
    return _of_present_data(analysis, test, AnalysisStatus.READY)


def failed_on_present_data(analysis: TestAnalysis | None, test: Test) -> bool:
    """This engine failed on the test's present data: it would fail again, so it is not retried on every read of
    the report, only after a new upload or a new engine."""
    return _of_present_data(analysis, test, AnalysisStatus.FAILED)


def stored_analysis(test: Test) -> TestAnalysis | None:
    return TestAnalysis.objects.filter(test=test).first()


def needs_diagnosis(test: Test, analysis: TestAnalysis | None) -> bool:
    """A closed test whose stored analysis is neither current nor a failure on its present data, and none was
    requested recently (its worker may have died). A test running or still being processed (an upload mid-way) is
    not: the post-processing queues the diagnosis when the data is complete; diagnosing now would store an analysis
    of half the data."""
    if is_current(analysis, test) or failed_on_present_data(analysis, test) or test.status not in CLOSED:
        return False
    waiting = (
        analysis is not None
        and analysis.status == AnalysisStatus.PENDING
        and analysis.requested_at is not None
        and timezone.now() - analysis.requested_at < PENDING_RETRY
    )
    return not waiting


def mark_pending(test: Test) -> None:
    """The row turns pending before a diagnosis is queued, so polling clients do not queue it again."""
    TestAnalysis.objects.update_or_create(
        test=test, defaults={"status": AnalysisStatus.PENDING, "requested_at": timezone.now()}
    )


def analysis_payload(test: Test, analysis: TestAnalysis | None, user: Any) -> dict[str, Any]:
    """What `GET /tests/<id>/analysis` answers from the stored analysis."""
    if analysis is not None and analysis.status == AnalysisStatus.FAILED:
        return {"status": "failed", "error": analysis.error, "findings": [], "figures": {}}
    if analysis is None or not is_current(analysis, test):
        return {"status": "pending", "findings": [], "figures": {}}
    return {
        "status": "ready",
        "findings": analysis.findings,
        "figures": analysis.figures,
        "steady_stage": {"from_ts": analysis.steady_from_ts, "to_ts": analysis.steady_to_ts},
        "trend_figures": {
            "q99": analysis.q99_steady_ms,
            "imbalance_rps": analysis.imbalance_rps,
            "error_share": analysis.error_share,
        },
        "computed_at": analysis.computed_at.isoformat() if analysis.computed_at else None,
        "trend": _trend_badge(test, analysis, user),
    }


def _trend_badge(test: Test, analysis: TestAnalysis, user: Any) -> dict[str, Any] | None:
    """Did this test break its component's trend? (the badge on the report); None without a component."""
    if not test.component:
        return None
    passed, reasons, _, _ = _verdict(test.component, test, analysis, user)
    return {"component": test.component, "broke_trend": not passed, "reasons": reasons}


class UnknownFigure(ValueError):
    pass


def figure_spec(name: str) -> FigureSpec:
    spec = FIGURES.get(name)
    if spec is None:
        raise UnknownFigure(f"unknown figure {name!r}; one of {', '.join(FIGURES)}")
    return spec


def _test_ts(test: Test) -> int:
    return int(test.first_ts) if test.first_ts else int(test.created_at.timestamp())


def _component_history(
    project_id: int, component: str, user: Any, field: str, *, before: Test | None = None
) -> list[tuple[Test, float]]:
    """Readable tests of a component with a stored value of `field`, oldest first (at most TREND_MAX_TESTS)."""
    analyses = (
        TestAnalysis.objects.select_related("test", "test__owner")
        .filter(
            test__project_id=project_id,
            test__component=component,
            status=AnalysisStatus.READY,
            **{f"{field}__isnull": False},
        )
        .order_by("-test__first_ts", "-test_id")
    )
    out: list[tuple[Test, float]] = []
    for analysis in analyses:
        test = analysis.test
        if before is not None and (_test_ts(test), test.pk) >= (_test_ts(before), before.pk):
            continue
        if can_read(user, test):
            out.append((test, float(getattr(analysis, field))))
        if len(out) >= TREND_MAX_TESTS:
            break
    out.sort(key=lambda item: (_test_ts(item[0]), item[0].pk))
    return out


def _current_thresholds(trend: TrendAnalysis) -> dict[str, Any]:
    """The thresholds the next test will be judged against: the regime in force after the last change point."""
    values = [p.value for p in trend.points]
    start = max([0, *trend.change_points])
    _, _, median, bounds = judge(trend.spec, values[-1] if values else 0.0, values[start:][-10:])
    return {"baseline": median, **bounds, "direction": trend.spec.direction}


def component_trend(project_id: int, component: str, figure: str, user: Any) -> dict[str, Any]:
    spec = figure_spec(figure)
    history = _component_history(project_id, component, user, FIGURE_FIELDS[figure])
    inputs = [TrendInput(test_id=int(t.pk), ts=_test_ts(t), value=v) for t, v in history]
    trend = analyse_trend(spec, inputs)
    data = trend.as_dict()
    return {
        "component": component,
        "figure_name": figure,
        "unit": spec.unit,
        "figure": trend_figure(trend, f"{component}: {spec.title}", spec.unit),
        "tests": data["tests"],
        "change_points": data["change_points"],
        "thresholds": _current_thresholds(trend) if trend.points else {},
    }


class CheckError(Exception):
    """A check that cannot be answered; `status` is the HTTP status the view answers with."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def check_test(component: str, test: Test, user: Any) -> dict[str, Any]:
    """CI verdict of a test against the earlier tests of its component, figure by figure."""
    if test.component != component:
        raise CheckError(f"test {test.pk} belongs to component {test.component!r}, not {component!r}", 400)
    if test.status not in CLOSED:
        raise CheckError(f"test {test.pk} is still {test.status}; check it once it is ready", 409)
    analysis = analysis_for_check(test)
    if analysis is None:  # nothing to judge the trend with: the gate stays closed and says why
        return {
            "pass": False,
            "reasons": [f"{diagnosis_failure(test)}: it cannot be judged against its component's trend"],
            "notes": [],
            "test_id": int(test.pk),
            "component": component,
            "figures": {},
            "findings": [],
        }
    passed, reasons, notes, figures = _verdict(component, test, analysis, user)
    critical = [f for f in analysis.findings if f.get("severity") == "critical"]
    notes.extend(f"{f['title']}" for f in critical)
    return {
        "pass": passed,
        "reasons": reasons,
        "notes": notes,
        "test_id": int(test.pk),
        "component": component,
        "figures": figures,
        "findings": analysis.findings,
    }


def _verdict(
    component: str, test: Test, analysis: TestAnalysis, user: Any
) -> tuple[bool, list[str], list[str], dict[str, Any]]:
    """(pass, reasons, notes, per-figure details) of a test against the earlier tests of its component."""
    figures: dict[str, Any] = {}
    reasons: list[str] = []
    notes: list[str] = []
    passed = True
    for name, field in FIGURE_FIELDS.items():
        spec = FIGURES[name]
        value = getattr(analysis, field)
        if value is None:
            figures[name] = {"value": None, "pass": True, "note": "not measured in this test"}
            continue
        history = _component_history(test.project_id, component, user, field, before=test)
        inputs = [TrendInput(int(t.pk), _test_ts(t), v) for t, v in history]
        inputs.append(TrendInput(int(test.pk), _test_ts(test), float(value)))
        point = analyse_trend(spec, inputs).points[-1]
        figures[name] = {
            "value": value,
            "pass": not point.broke_trend,
            "baseline": point.baseline,
            "thresholds": point.thresholds,
            "baseline_tests": len(history),
            "reasons": point.reasons,
        }
        if point.broke_trend:
            passed = False
            reasons.extend(point.reasons)
        elif point.reasons:
            notes.extend(point.reasons)
    return passed, reasons, notes, figures
