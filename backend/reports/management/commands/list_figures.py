"""`manage.py list_figures`: store the test list's figures (q99, max RPS, error share) of tests processed before
the list had them, or before their rules changed (reports migration 0002 drops the figures of the old rules).
Post-processing stores them for every test it closes; this fills in the older ones, once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from backend.loadtests.models import Test, TestStatus
from backend.reports import listing, service
from backend.reports.window import Window


class Command(BaseCommand):
    help = "Store the list's figures of finished tests that have none (or of the given ids)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, help="test ids (default: finished tests without figures)")

    def handle(self, *args: Any, **options: Any) -> None:
        tests = Test.objects.filter(status__in=[TestStatus.READY, TestStatus.FAILED]).order_by("id")
        tests = tests.filter(pk__in=options["ids"]) if options["ids"] else tests.filter(figures__isnull=True)
        done = 0
        for test in tests.iterator():
            listing.store_figures(test, service.summary(test, Window()))
            done += 1
        self.stdout.write(f"stored the list's figures of {done} tests")
