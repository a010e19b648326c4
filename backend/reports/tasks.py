"""Celery post-processing of a test: on close (tank) and on upload end, compute and cache the default view.

Idempotent: running it twice recomputes the same figures and overwrites the same cache entries. Then the test
is `ready` (a failed test stays failed) and the pipeline queues what follows (backend/core/pipeline.py).
"""

from __future__ import annotations

from typing import Any

from backend.core import pipeline, pipeline_steps
from backend.loadtests.models import Test, TestStatus
from backend.reports import cache, listing, service
from backend.reports.window import Window

DEFAULT_VIEWS: tuple[tuple[str, Window], ...] = (
    *((f"chart:{name}", Window()) for name in service.CHART_NAMES),
    ("chart:distribution", Window(log=True)),
)


def warm_default_views(test: Test) -> list[str]:
    """Compute every default figure of the test and store it in the cache; returns the entries written."""
    default = Window()
    computed: dict[str, Any] = {
        "report": service.report(test),
        "summary": service.summary(test, default),
        "tables": service.tables(test, default),
        "monitoring": service.monitoring(test, default),
    }
    for name, value in computed.items():
        cache.store(test, name, default, value)
    listing.store_figures(test, computed["summary"])
    written = list(computed)
    for name, window in DEFAULT_VIEWS:
        cache.store(test, name, window, service.chart(test, name.removeprefix("chart:"), window))
        written.append(f"{name}{':log' if window.log else ''}")
    return written


@pipeline_steps.step_task("backend.reports.tasks.postprocess_test", done=pipeline.POSTPROCESSED)
def postprocess_test(test: Test) -> dict[str, Any]:
    written = warm_default_views(test)
    # A test still online (a file uploaded into it while its tank or follow streams) becomes ready when it closes.
    settled = (TestStatus.FAILED, TestStatus.ONLINE)
    if test.status not in settled:
        Test.objects.filter(pk=test.pk).exclude(status__in=settled).update(status=TestStatus.READY)
    return {"test": test.pk, "cached": written}
