"""Per-component regression settings: the baseline test (with its history) and the KPIs with their thresholds.

A component is a name shared by a project's tests (`Test.component`), not a row of its own: these models key on
(project, name), so a test of another project named alike reaches nothing here.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from backend.loadtests.models import Test
from backend.projects.models import InDefaultProjectUnlessSet, Project, default_project


class BaselineMark(models.Model):
    """One change of a component's baseline; the newest row is in force. `test` None: the baseline was cleared.

    Rows are never updated, so the history says who chose which baseline when. A test marked here is never removed
    by retention, nor one that was a baseline before (`backend.regressions.baselines.ever_baseline_ids`).
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    component = models.CharField(max_length=256, db_index=True)
    test = models.ForeignKey(Test, null=True, blank=True, on_delete=models.CASCADE, related_name="baseline_marks")
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    set_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-set_at", "-id"]

    def __str__(self) -> str:
        return f"{self.component}: baseline {self.test_id or 'cleared'}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.project_id is None:
            self.project = self.test.project if self.test is not None else default_project()
        super().save(*args, **kwargs)


class ComponentKpis(InDefaultProjectUnlessSet):
    """The KPIs a component's dashboard plots and its check judges, with thresholds (analytics.regressions)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    component = models.CharField(max_length=256)
    kpis = models.JSONField(default=list, help_text='[{"kpi": "q99", "threshold": {"kind", "value"} | null}]')
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "component"], name="regressions_one_kpi_set")]

    def __str__(self) -> str:
        return f"KPIs of {self.component}"
