"""Which data a test's figures are read from, the version of that data, and the cache key of an answer about it.

Reports, comparisons, diagnoses and KPIs all read a test the same way (ARCHITECTURE.md, "Which data a report
reads"): the active upload's derived per-second rows and raw samples when there is an upload, else the tank's
stream (source 0). A cached answer is keyed by what it was asked and by the data version of each test it is
about, so a new upload, a push or a re-close never serves a stale answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from backend.loadtests.facts import has_samples
from backend.loadtests.models import Test


@dataclass(frozen=True)
class Source:
    source_id: int  # the `second_aggregates` source: the active upload's id, 0 for the tank's stream
    upload_id: int | None  # the upload whose raw samples give exact quantiles; None: histograms only

    @property
    def exact(self) -> bool:
        return self.upload_id is not None


def source_id_of(test: Test) -> int:
    """The `second_aggregates` source a test's figures read: its active upload's rows, else the stream's (0)."""
    return int(test.active_upload_id) if test.active_upload_id else 0


def source_of(test: Test) -> Source:
    source_id = source_id_of(test)
    # An upload of per-second aggregates only (a Locust stats history) has rows but no samples: not exact. Nor is a
    # test whose raw samples retention expired: its upload's per-second histograms remain (backend/retention).
    exact = source_id != 0 and test.raw_expired_at is None and has_samples(source_id)
    return Source(source_id=source_id, upload_id=source_id if exact else None)


def data_version_from(
    pk: int,
    active_upload_id: int | None,
    has_stream: bool,
    first_ts: int | None,
    last_ts: int | None,
    last_push_at: datetime | None,
    finished_at: datetime | None,
    raw_expired_at: datetime | None,
    aggregates_expired_at: datetime | None,
) -> str:
    """What changes when a test's data changes: a new active upload, a push, a re-close, retention expiring rows."""
    pushed = last_push_at.isoformat() if last_push_at else ""
    finished = finished_at.isoformat() if finished_at else ""
    expired = f"{int(raw_expired_at is not None)}{int(aggregates_expired_at is not None)}"
    return (
        f"{pk}:{active_upload_id or 0}:{int(has_stream)}:{first_ts or 0}:{last_ts or 0}:{pushed}:{finished}:{expired}"
    )


def data_version(test: Test) -> str:
    return data_version_from(
        int(test.pk),
        test.active_upload_id,
        test.has_stream,
        test.first_ts,
        test.last_ts,
        test.last_push_at,
        test.finished_at,
        test.raw_expired_at,
        test.aggregates_expired_at,
    )


def cache_key(kind: str, tests: Sequence[Test], request: str) -> str:
    """The cache key of the answer of `kind` to `request` (its parameters, as a string) about `tests`."""
    blob = "|".join([request, *(data_version(t) for t in tests)])
    return f"{kind}:{hashlib.blake2b(blob.encode(), digest_size=16).hexdigest()}"
