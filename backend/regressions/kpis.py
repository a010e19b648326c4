"""A component's KPI settings and each test's KPI values.

Quantiles, max RPS and the error share come from the report's own summary (one definition of each: exact
quantiles from raw samples when there are some, analytics.definitions for the rest); imbalance RPS from the stored
diagnosis. Summaries are cached in
Redis under the test's data version, so a new upload or push never serves a stale value.
"""

from __future__ import annotations

import math
from typing import Any

from django.core.cache import cache

from analytics.quantiles import level_key
from analytics.regressions import KpiConfig, default_configs, parse_kpis, quantile_levels
from backend.diagnosis.models import TestAnalysis
from backend.diagnosis.service import is_current
from backend.loadtests.models import Test, TestStatus
from backend.regressions.models import ComponentKpis
from backend.reports import service as reports
from backend.reports.source import cache_key
from backend.reports.window import Window

SUMMARY_TTL_S = 30 * 24 * 3600


def configs_of(project_id: int, component: str) -> tuple[list[KpiConfig], bool]:
    """(the component's KPIs, whether they were set by someone); the defaults carry no thresholds."""
    stored = ComponentKpis.objects.filter(project_id=project_id, component=component).first()
    if stored is None:
        return default_configs(), False
    return parse_kpis(stored.kpis), True


def save_configs(project_id: int, component: str, raw: Any, user: Any) -> list[KpiConfig]:
    """Validate and store a component's KPI list (KpiError naming the bad item)."""
    configs = parse_kpis(raw)
    ComponentKpis.objects.update_or_create(
        project_id=project_id,
        component=component,
        defaults={"kpis": [c.as_dict() for c in configs], "updated_by": user},
    )
    return configs


def _summary_key(test: Test, levels: list[float]) -> str:
    return cache_key("regressions:summary:v3", [test], ",".join(f"{x:g}" for x in levels))


def _summary_figures(test: Test, levels: list[float], found: dict[str, Any] | None = None) -> dict[str, float | None]:
    """The figures of the test's summary the KPIs read; `found` is a cache hit read beforehand (values_of_many)."""
    key = _summary_key(test, levels)
    if found is None:
        found = cache.get(key)
    if found is not None:
        return dict(found)
    summary = reports.summary(test, Window(levels_pct=tuple(levels) or (99.0,)))
    out: dict[str, float | None] = {f"q{level_key(x)}": summary["quantiles_ms"].get(level_key(x)) for x in levels}
    max_rps = summary["rps"].get("max")
    out["max_rps"] = float(max_rps) if max_rps is not None and summary["count"] else None
    out["error_share"] = summary["outcomes"]["failed_share"]
    cache.set(key, out, SUMMARY_TTL_S)
    return out


def values_of(test: Test, configs: list[KpiConfig], analysis: TestAnalysis | None = None) -> dict[str, float | None]:
    """Every KPI of `configs` for one test; None where the test does not have it."""
    if analysis is None:
        analysis = TestAnalysis.objects.filter(test=test).first()
    return _values(test, configs, _summary_figures(test, quantile_levels(configs)), analysis)


def values_of_many(tests: list[Test], configs: list[KpiConfig]) -> dict[int, dict[str, float | None]]:
    """values_of for many tests (a component's dashboard): their analyses in one query, their cached summary
    figures in one Redis round trip; only the tests missing from the cache are computed."""
    levels = quantile_levels(configs)
    analyses = {a.test_id: a for a in TestAnalysis.objects.filter(test__in=[t.pk for t in tests])}
    keys = {int(t.pk): _summary_key(t, levels) for t in tests}
    found = cache.get_many(list(keys.values()))
    return {
        int(t.pk): _values(t, configs, _summary_figures(t, levels, found.get(keys[int(t.pk)])), analyses.get(t.pk))
        for t in tests
    }


def _values(
    test: Test, configs: list[KpiConfig], figures: dict[str, float | None], analysis: TestAnalysis | None
) -> dict[str, float | None]:
    values: dict[str, Any] = dict(figures)
    current = analysis if is_current(analysis, test) else None
    values["imbalance_rps"] = current.imbalance_rps if current else None
    out: dict[str, float | None] = {}
    for config in configs:
        value = values.get(config.spec.key)
        out[config.spec.key] = float(value) if value is not None and math.isfinite(value) else None
    return out


def warm(test_id: int) -> None:
    """Compute a finished test's KPI values into the cache, so its component's dashboard does not wait for them."""
    test = Test.objects.filter(pk=test_id).first()
    if test is None or not test.component or test.status != TestStatus.READY:
        return
    values_of(test, configs_of(test.project_id, test.component)[0])
