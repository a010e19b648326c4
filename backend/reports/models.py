"""What people add to a test from the report (tags, notes on the timeline) and the figures the test list shows.

Kept in this app, not in `loadtests`, so that app's migrations stay linear (ARCHITECTURE.md, "Stores").
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from backend.loadtests.models import Test

TAG_MAX_LENGTH = 64
NOTE_MAX_LENGTH = 500


class TestTag(models.Model):
    """A label on a test ("release", "baseline"); the list filters by it."""

    __test__ = False  # not a pytest test class

    test = models.ForeignKey(Test, on_delete=models.CASCADE, related_name="tags")
    name = models.CharField(max_length=TAG_MAX_LENGTH, db_index=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["test", "name"], name="reports_tag_once_per_test")]

    def __str__(self) -> str:
        return f"{self.name} on test {self.test_id}"


class TestNote(models.Model):
    """A second of the test marked with a text; every time chart of the test shows it."""

    __test__ = False

    test = models.ForeignKey(Test, on_delete=models.CASCADE, related_name="notes")
    ts = models.BigIntegerField(help_text="the marked second, unix s")
    text = models.CharField(max_length=NOTE_MAX_LENGTH)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ts", "id"]

    def __str__(self) -> str:
        return f"note at {self.ts} on test {self.test_id}"


class TestFigures(models.Model):
    """The whole test's headline figures, stored by post-processing so the list can show and sort by them."""

    __test__ = False

    test = models.OneToOneField(Test, on_delete=models.CASCADE, primary_key=True, related_name="figures")
    responses = models.BigIntegerField(default=0)
    q99_ms = models.FloatField(null=True, blank=True)
    max_rps = models.FloatField(null=True, blank=True)
    failed = models.BigIntegerField(null=True, blank=True, help_text="failed requests (analytics.definitions)")
    computed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"figures of test {self.test_id}"
