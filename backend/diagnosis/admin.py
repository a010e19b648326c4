"""Admin view of stored analyses: to see why a test was flagged, and to spot failed or stale diagnoses."""

from __future__ import annotations

from django.contrib import admin

from backend.core.admin_types import ModelAdmin
from backend.diagnosis.models import TestAnalysis


@admin.register(TestAnalysis)
class TestAnalysisAdmin(ModelAdmin[TestAnalysis]):
    list_display = ("test", "status", "engine_version", "imbalance_rps", "q99_steady_ms", "error_share", "computed_at")
    list_filter = ("status", "engine_version")
    search_fields = ("test__name", "test__component")
    readonly_fields = ("test", "computed_at", "requested_at")
