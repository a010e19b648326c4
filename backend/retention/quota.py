"""Quotas: a site (and, with projects, a project) that has used its bytes on disk refuses new uploads and new tank
streams with 507 and a message naming the quota, instead of filling the disk.

What is used is measured as the storage page measures it (backend/retention/storage.py), and kept for
USAGE_CACHE_S in the cache: a check costs one cache read on the upload path, not a scan of `system.parts`.
`quota_for` / `used_bytes` are the two functions per-project quotas change.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from backend.clickhouse.client import ClickHouseUnavailable
from backend.clickhouse.queries import storage as ch
from backend.loadtests.models import Test

USAGE_CACHE_S = 60
_CACHE_KEY = "retention:quota:site-bytes"


@dataclass(frozen=True)
class Quota:
    name: str  # what the message calls it: "the site's quota" or "project X's quota"
    setting: str  # where it is set
    limit_bytes: int | None  # None: no quota


def quota_for(test: Test | None) -> Quota:
    """The quota that new data of `test` (None: a test about to be created) counts against."""
    del test  # one quota for the whole site until projects carry their own
    limit = int(settings.TANKODROM_QUOTA_BYTES)
    return Quota("the site's storage quota", "TANKODROM_QUOTA_BYTES", limit if limit > 0 else None)


def used_bytes(quota: Quota) -> int:
    del quota
    cached = cache.get(_CACHE_KEY)
    if cached is not None:
        return int(cached)
    used = sum(u.bytes_on_disk for u in ch.table_usage().values())
    cache.set(_CACHE_KEY, used, USAGE_CACHE_S)
    return used


def forget_usage() -> None:
    """Drop the cached usage (after retention freed bytes, or in tests)."""
    cache.delete(_CACHE_KEY)


def refusal(test: Test | None) -> dict[str, object] | None:
    """The 507 answer's body when new data for `test` would exceed its quota; None when there is room.

    A ClickHouse that does not answer refuses nothing here: the upload itself then fails with its own 503.
    """
    quota = quota_for(test)
    if quota.limit_bytes is None:
        return None
    try:
        used = used_bytes(quota)
    except ClickHouseUnavailable:
        return None
    if used < quota.limit_bytes:
        return None
    return {
        "error": f"{quota.name} is used up: {used:,} of {quota.limit_bytes:,} bytes on disk ({quota.setting}). "
        "Delete old tests or let retention expire their raw samples, or raise the quota.",
        "quota": {"name": quota.name, "limit_bytes": quota.limit_bytes, "used_bytes": used},
    }
