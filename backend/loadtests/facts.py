"""Facts about a test that ingestion writes and the read side shows: whether a stop was asked from the web, whether
an upload holds raw samples.

They live here, in the base app, so that the readers (reports, compare, diagnosis) ask them without importing the
ingest apps that write them (tankapi, uploads): the queries go through the reverse relations of `Test` and `Upload`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from backend.loadtests.models import Test, Upload


@dataclass(frozen=True)
class StopFacts:
    stopped_at: datetime | None  # when a stop was asked from the web
    ends_shooting: bool  # the tank sends the status call, so a stop ends its shooting (tankapi.StatusCall)


def stop_facts(test_ids: list[int]) -> dict[int, StopFacts]:
    """For each of these tests, what a stop from the web did or would do (one query)."""
    rows = Test.objects.filter(pk__in=test_ids).values_list("pk", "stop_request__requested_at", "status_call__test_id")
    return {pk: StopFacts(stopped_at, call is not None) for pk, stopped_at, call in rows}


def has_samples(upload_id: int) -> bool:
    """Whether an upload stored raw samples (False: per-second aggregates only, e.g. Locust: uploads.UploadFormat)."""
    return not Upload.objects.filter(pk=upload_id, result_format__samples=False).exists()
