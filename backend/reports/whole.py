"""The whole test's summary, the one every page's headline figures come from: the list (through post-processing),
the report's header, the chat preview, the KPIs and the diagnosis' error share. Cached as the report's default
view (post-processing writes it), so a reader costs one cache read."""

from __future__ import annotations

from typing import Any

from backend.loadtests.models import Test
from backend.reports import cache, service
from backend.reports.window import Window


def whole_summary(test: Test) -> dict[str, Any]:
    window = Window()
    return cache.cached(test, "summary", window, lambda: service.summary(test, window))
