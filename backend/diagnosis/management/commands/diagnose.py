"""`manage.py diagnose`: (re)run the automatic diagnosis of stored tests.

After an engine upgrade (ENGINE_VERSION) older analyses are recomputed only when someone opens them; a
component's trend mixes old and new figures until then. This brings them up to date at once: inline, or queued
on the `analysis` queue for the workers.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from backend.diagnosis import service
from backend.diagnosis.models import TestAnalysis
from backend.diagnosis.tasks import diagnose_test
from backend.loadtests.models import Test, TestStatus


class Command(BaseCommand):
    help = "Run the automatic diagnosis of closed tests (all, some ids, a component, or only the stale ones)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, help="test ids (default: every closed test)")
        parser.add_argument("--component", help="only the tests of this component")
        parser.add_argument("--stale", action="store_true", help="only tests without a current analysis")
        parser.add_argument("--queue", action="store_true", help="queue on the analysis queue instead of running here")

    def handle(self, *args: Any, **options: Any) -> None:
        tests = Test.objects.exclude(status=TestStatus.ONLINE).order_by("id")
        if options["ids"]:
            tests = tests.filter(pk__in=options["ids"])
        if options["component"]:
            tests = tests.filter(component=options["component"])
        done = 0
        for test in tests.iterator():
            if options["stale"] and service.is_current(TestAnalysis.objects.filter(test=test).first(), test):
                continue
            if options["queue"]:
                diagnose_test.delay(int(test.pk))
            else:
                outcome = diagnose_test(int(test.pk))
                self.stdout.write(f"test {test.pk}: {outcome.get('status')} {outcome.get('findings', '')}")
            done += 1
        self.stdout.write(f"{'queued' if options['queue'] else 'diagnosed'} {done} test(s)")
