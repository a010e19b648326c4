"""Admin view of stored analyses: to see why a test was flagged, and to spot failed or stale diagnoses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import admin

from backend.diagnosis.models import TestAnalysis

# Generic only for the type checker; at run time Django's admin classes are not subscriptable.
if TYPE_CHECKING:
    TestAnalysisAdminBase = admin.ModelAdmin[TestAnalysis]
else:
    TestAnalysisAdminBase = admin.ModelAdmin


@admin.register(TestAnalysis)
class TestAnalysisAdmin(TestAnalysisAdminBase):
    list_display = ("test", "status", "engine_version", "imbalance_rps", "q99_steady_ms", "error_share", "computed_at")
    list_filter = ("status", "engine_version")
    search_fields = ("test__name", "test__component")
    readonly_fields = ("test", "computed_at", "requested_at")
