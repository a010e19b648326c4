"""Apply pending ClickHouse migrations (also run by `make run` and `make test`)."""

from typing import Any

from django.core.management.base import BaseCommand

from backend.clickhouse import migrate


class Command(BaseCommand):
    help = "Create the ClickHouse database if needed and apply pending migrations."

    def handle(self, *args: Any, **options: Any) -> None:
        applied = migrate.apply_all()
        if applied:
            self.stdout.write("ClickHouse migrations applied: " + ", ".join(applied))
        else:
            self.stdout.write("ClickHouse schema is up to date.")
