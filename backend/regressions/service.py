"""A component's regression dashboard and the CI check of a test against its baseline and thresholds.

Views call one function here each. Access: only tests `can_read` allows are shown or used; a baseline the user
may not read counts as none.
"""

from __future__ import annotations

import hashlib
import struct
from typing import Any

from django.conf import settings
from django.core.cache import cache

from analytics.definitions import format_ms, format_signed_percent
from analytics.diagnosis.changepoint import e_divisive
from analytics.figures_regressions import kpi_figure
from analytics.regressions import KpiConfig, KpiPoint, format_value, is_past, limit_of, reason, series
from backend.compare import service as compare
from backend.diagnosis import service as diagnosis
from backend.loadtests.models import Test, TestStatus
from backend.loadtests.permissions import can_read
from backend.regressions import baselines, kpis

DASHBOARD_MAX_TESTS = 200


class CheckError(Exception):
    """A check that cannot be answered; `status` is the HTTP status the view answers with."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def report_url(test_id: int) -> str:
    return f"{settings.PUBLIC_URL}/{test_id}"


def _ts(test: Test) -> int:
    return int(test.first_ts) if test.first_ts else int(test.created_at.timestamp())


def _readable_tests(project_id: int, component: str, user: Any) -> list[Test]:
    """The component's finished tests the user may read, the newest DASHBOARD_MAX_TESTS, oldest first."""
    out: list[Test] = []
    query = Test.objects.filter(project_id=project_id, component=component, status=TestStatus.READY).order_by(
        "-first_ts", "-id"
    )
    for test in query.select_related("owner").iterator(chunk_size=500):
        if can_read(user, test):
            out.append(test)
            if len(out) >= DASHBOARD_MAX_TESTS:
                break
    out.sort(key=lambda t: (_ts(t), t.pk))
    return out


def _test_json(test: Test) -> dict[str, Any]:
    return {
        "id": int(test.pk),
        "name": test.name,
        "version": test.version,
        "ts": _ts(test),
        "status": test.status,
        "url": f"/{test.pk}",
    }


def baseline_json(project_id: int, component: str, user: Any) -> dict[str, Any] | None:
    test = baselines.readable_baseline(project_id, component, user)
    if test is None:
        return None
    mark = baselines.current_mark(project_id, component)
    return {
        **_test_json(test),
        "set_by": mark.set_by.get_username() if mark is not None and mark.set_by else None,
        "set_at": mark.set_at.isoformat() if mark is not None else None,
    }


def settings_json(project_id: int, component: str) -> dict[str, Any]:
    configs, stored = kpis.configs_of(project_id, component)
    return {"component": component, "kpis": [c.as_dict() for c in configs], "stored": stored}


CHANGE_POINTS_TTL_S = 30 * 24 * 3600


def cached_change_points(values: list[float]) -> list[int]:
    """E-Divisive's change points of a KPI's values, kept by the values themselves: it is deterministic (seeded) and
    costs a permutation test per change (seconds for a component of 500 tests), while a dashboard is read far more
    often than a component gets a new test."""
    digest = hashlib.blake2b(struct.pack(f"<{len(values)}d", *values), digest_size=16).hexdigest()
    key = f"regressions:change_points:v1:{len(values)}:{digest}"
    found = cache.get(key)
    if isinstance(found, list):
        return [int(i) for i in found]
    points = e_divisive(values)
    cache.set(key, points, CHANGE_POINTS_TTL_S)
    return points


def dashboard(project_id: int, component: str, user: Any) -> dict[str, Any]:
    """Every KPI of the component across its tests, with thresholds, points past them and change points."""
    configs, stored = kpis.configs_of(project_id, component)
    tests = _readable_tests(project_id, component, user)
    baseline = baselines.readable_baseline(project_id, component, user)
    values = kpis.values_of_many(tests, configs)
    if baseline is not None and baseline.pk not in values:
        values[baseline.pk] = kpis.values_of(baseline, configs)
    out = []
    for config in configs:
        key = config.spec.key
        base_value = values[baseline.pk][key] if baseline is not None else None
        base = (int(baseline.pk), base_value) if baseline is not None and base_value is not None else None
        points = [KpiPoint(int(t.pk), _ts(t), values[t.pk][key]) for t in tests]
        kpi = series(config, points, base, change_points=cached_change_points)
        out.append({**kpi.as_dict(), "figure": kpi_figure(kpi, int(baseline.pk) if baseline else None)})
    return {
        "component": component,
        "baseline": baseline_json(project_id, component, user),
        "kpis_stored": stored,
        "kpis": out,
        "tests": [_test_json(t) for t in tests],
    }


def _comparison(baseline: Test, test: Test) -> dict[str, Any]:
    """The compare API's answer for (baseline, test), from its cache when it has it."""
    params = compare.CompareParams((int(baseline.pk), int(test.pk)))
    key = compare.cache_key(params, [baseline, test])
    found = cache.get(key)
    if isinstance(found, dict) and "__error__" not in found:
        return found
    result = compare.build(params, [baseline, test])
    cache.set(key, result, compare.RESULT_TTL_S)
    return result


def _worse_than_baseline(baseline: Test, test: Test, levels: list[float]) -> tuple[list[str], dict[str, Any]]:
    """Reasons (one per quantile the compare judges `worse`) and the verdicts by level."""
    result = _comparison(baseline, test)
    reasons: list[str] = []
    verdicts: dict[str, Any] = {}
    wanted = {f"{x:g}" for x in levels}
    for level, pair in result.get("verdict", {}).items():
        verdict = pair[1] if len(pair) > 1 else None
        verdicts[level] = verdict
        if verdict != "worse" or (wanted and level not in wanted):
            continue
        before, after = result["quantiles_ms"][level]
        text = f"q{level}: worse than baseline #{baseline.pk}"
        if before is not None and after is not None:
            # The compare page's figures, as it writes them: the whole test's, then the judged change per stretch.
            diff_pct, change = result["diff_pct"][level][1], result["change_pct"][level][1]
            text += f": {format_ms(before)} → {format_ms(after)} ms ({format_signed_percent(diff_pct)} whole test"
            text += f", {format_signed_percent(change)} per stretch)"
        reasons.append(text)
    return reasons, verdicts


def _judge_kpis(
    configs: list[KpiConfig],
    values: dict[str, float | None],
    base_values: dict[str, float | None] | None,
    baseline: Test | None,
) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    reasons: list[str] = []
    notes: list[str] = []
    rows: list[dict[str, Any]] = []
    for config in configs:
        key = config.spec.key
        value = values.get(key)
        base_value = base_values.get(key) if base_values is not None else None
        limit = limit_of(config, base_value)
        row: dict[str, Any] = {
            "kpi": key,
            "value": value,
            "baseline_value": base_value,
            "limit": limit,
            "pass": True,
        }
        if config.threshold is not None and limit is None:
            notes.append(f"{key}: a threshold relative to the baseline, and the component has no baseline value")
        elif value is None and config.threshold is not None:
            notes.append(f"{key}: not measured in this test")
        elif value is not None and limit is not None and is_past(config.spec, value, limit):
            row["pass"] = False
            base = (int(baseline.pk), base_value) if baseline is not None and base_value is not None else None
            reasons.append(reason(config, value, limit, base))
        row["text"] = format_value(config.spec, value) if value is not None else None
        rows.append(row)
    return reasons, notes, rows


def check(component: str, test: Test, user: Any) -> dict[str, Any]:
    """CI verdict: fails when a KPI is past its threshold or a quantile is `worse` than the baseline's.

    A component with neither a baseline nor stored KPIs is judged by its trend, as before baselines existed.
    """
    if test.component != component:
        raise CheckError(f"test {test.pk} belongs to component {test.component!r}, not {component!r}", 400)
    if test.status not in diagnosis.CLOSED:
        raise CheckError(f"test {test.pk} is still {test.status}; check it once it is ready", 409)
    # The test's project is the component's: a test of another project named alike is judged by its own.
    project_id = int(test.project_id)
    configs, stored = kpis.configs_of(project_id, component)
    baseline = baselines.readable_baseline(project_id, component, user)
    if baseline is None and not stored:
        try:
            legacy = diagnosis.check_test(component, test, user)
        except diagnosis.CheckError as exc:
            raise CheckError(exc.message, exc.status) from exc
        return {**legacy, "mode": "trend", "baseline": None, "report_url": report_url(int(test.pk))}
    # A CI job waits for its answer: a ready test is diagnosed now rather than judged without imbalance and errors.
    ready = test.status == TestStatus.READY
    analysis = diagnosis.analysis_for_check(test) if ready else diagnosis.stored_analysis(test)
    values = kpis.values_of(test, configs, analysis)
    base_values = kpis.values_of(baseline, configs) if baseline is not None else None
    reasons, notes, rows = _judge_kpis(configs, values, base_values, baseline)
    if ready and analysis is None:
        notes.append(f"{diagnosis.diagnosis_failure(test)}: its KPIs (imbalance, error share) are not judged")
    verdicts: dict[str, Any] = {}
    if test.status == TestStatus.FAILED:
        reasons.insert(0, f"test {test.pk} failed: {test.error or 'no data'}")
    elif baseline is not None and baseline.pk != test.pk:
        levels = [c.spec.level_pct for c in configs if c.spec.level_pct is not None]
        worse, verdicts = _worse_than_baseline(baseline, test, levels)
        reasons.extend(worse)
    elif baseline is None:
        notes.append(f"component {component!r} has no baseline: only absolute thresholds were checked")
    return {
        "pass": not reasons,
        "reasons": reasons,
        "notes": notes,
        "mode": "baseline",
        "test_id": int(test.pk),
        "component": component,
        "baseline": baseline_json(project_id, component, user),
        "kpis": rows,
        "verdict": verdicts,
        "report_url": report_url(int(test.pk)),
    }
