"""Storage you can see: what the stored tests take on disk, per table, per test and in all, and where it is going.

Bytes come from ClickHouse's `system.parts` (backend/clickhouse/queries/storage.py); a test's share of a table is
estimated by its rows. The projection is linear: what tests created in the last RATE_WINDOW_DAYS took, per day,
carried forward (before retention deletes anything; the policy beside it says what it will delete).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.utils import timezone

from backend.clickhouse.queries import storage as ch
from backend.loadtests.models import Test

RATE_WINDOW_DAYS = 30
PROJECTION_DAYS = (30, 90, 365)
LARGEST = 20


@dataclass
class TestUsage:
    test_id: int
    rows: dict[str, int] = field(default_factory=dict)  # by kind: raw, aggregates, monitoring
    bytes_on_disk: int = 0


def per_test(test_ids: list[int] | None = None) -> dict[int, TestUsage]:
    """Rows and estimated bytes of each test that has rows (of these tests only when given)."""
    usage = ch.table_usage()
    out: dict[int, TestUsage] = {}
    for kind, table in ch.TABLES.items():
        per_row = usage[table].bytes_per_row
        for test_id, rows in ch.rows_per_test(table, test_ids).items():
            entry = out.setdefault(test_id, TestUsage(test_id))
            entry.rows[kind] = rows
            entry.bytes_on_disk += round(rows * per_row)
    for entry in out.values():
        for kind in ch.TABLES:
            entry.rows.setdefault(kind, 0)
    return out


def usage_of_test(test: Test) -> dict[str, Any]:
    entry = per_test([int(test.pk)]).get(int(test.pk), TestUsage(int(test.pk)))
    return {
        "test": int(test.pk),
        "rows": {kind: entry.rows.get(kind, 0) for kind in ch.TABLES},
        "bytes_on_disk": entry.bytes_on_disk,
        "raw_expired_at": test.raw_expired_at,
        "aggregates_expired_at": test.aggregates_expired_at,
    }


def overview(tests: list[Test] | None = None) -> dict[str, Any]:
    """The site's storage: tables, total, the largest tests, the rate and the projection."""
    tables = ch.table_usage()
    usage = per_test()
    known = {t.pk: t for t in (tests if tests is not None else Test.objects.filter(pk__in=list(usage)))}
    since = timezone.now() - timedelta(days=RATE_WINDOW_DAYS)
    recent = sum(usage[pk].bytes_on_disk for pk, t in known.items() if pk in usage and t.created_at >= since)
    per_day = recent / RATE_WINDOW_DAYS
    total = sum(u.bytes_on_disk for u in tables.values())
    largest = sorted((u for u in usage.values() if u.test_id in known), key=lambda u: -u.bytes_on_disk)[:LARGEST]
    return {
        "tables": [
            {"table": kind, "rows": tables[name].rows, "bytes_on_disk": tables[name].bytes_on_disk}
            for kind, name in ch.TABLES.items()
        ],
        "total_bytes": total,
        "tests_with_rows": len(usage),
        "largest": [
            {
                "test": u.test_id,
                "name": known[u.test_id].name,
                "component": known[u.test_id].component,
                "created_at": known[u.test_id].created_at,
                "rows": u.rows,
                "bytes_on_disk": u.bytes_on_disk,
            }
            for u in largest
        ],
        "rate": {"window_days": RATE_WINDOW_DAYS, "bytes_per_day": round(per_day)},
        "projected": [{"days": d, "bytes_on_disk": round(total + per_day * d)} for d in PROJECTION_DAYS],
    }
