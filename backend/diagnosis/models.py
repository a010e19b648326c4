"""Stored diagnosis of a test: its findings and the figures its component's trend follows.

One row per test (OneToOne), overwritten by each run of `tasks.diagnose_test`, so running it twice changes
nothing. Kept in this app, not in `loadtests`, so that app's migrations stay linear.
"""

from __future__ import annotations

from django.db import models

from backend.loadtests.models import Test

# Bump when the engine changes what it finds: stored results of an older engine are recomputed on read.
ENGINE_VERSION = 6


class AnalysisStatus(models.TextChoices):
    PENDING = "pending"
    READY = "ready"
    FAILED = "failed"


class TestAnalysis(models.Model):
    __test__ = False  # not a pytest test class

    test = models.OneToOneField(Test, on_delete=models.CASCADE, primary_key=True, related_name="analysis")
    status = models.CharField(max_length=16, choices=AnalysisStatus.choices, default=AnalysisStatus.PENDING)
    engine_version = models.IntegerField(default=0, help_text="ENGINE_VERSION that computed it; 0 = none yet")
    # second_aggregates source the findings were computed from (0 = tank stream, else the upload id): a new
    # upload makes the stored analysis stale.
    source_id = models.BigIntegerField(default=0)
    seconds = models.IntegerField(default=0, help_text="per-second rows analysed")
    findings = models.JSONField(default=list, blank=True)
    figures = models.JSONField(default=dict, blank=True, help_text="Plotly JSON by name, e.g. usl")
    q99_steady_ms = models.FloatField(null=True, blank=True)
    steady_from_ts = models.BigIntegerField(null=True, blank=True, help_text="steady stage start, unix s")
    steady_to_ts = models.BigIntegerField(null=True, blank=True, help_text="steady stage end (exclusive), unix s")
    imbalance_rps = models.FloatField(null=True, blank=True)
    imbalance_ts = models.BigIntegerField(null=True, blank=True, help_text="unix s")
    error_share = models.FloatField(null=True, blank=True)
    generator_limited_ts = models.BigIntegerField(null=True, blank=True, help_text="unix s")
    error = models.TextField(blank=True, default="")
    requested_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"analysis of test {self.test_id} ({self.status})"
