"""Quotas: a site (and, with projects, a project) that has used its bytes on disk refuses new uploads and new tank
streams with 507 and a message naming the quota, instead of filling the disk.

What is used is measured as the storage page measures it (backend/loadtests/storage.py), and kept for
USAGE_CACHE_S in the cache: a check costs one cache read on the upload path, not a scan of `system.parts`.
A project's quota (Project.quota_bytes; null: the site default TANKODROM_QUOTA_BYTES, 0: none) counts the bytes of
that project's tests (the storage page's per-test estimate, summed); the site's quota (`quota_for(None)`, shown on
the storage page) counts everything.

It lives in the base app, beside the measure it uses (storage.py), because the ingest apps (tankapi, uploads)
consult it before they take data and retention, which frees the bytes, sits above them.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from backend.clickhouse.client import ClickHouseUnavailable
from backend.clickhouse.queries import storage as ch
from backend.loadtests import storage
from backend.projects.models import Project

USAGE_CACHE_S = 60
_CACHE_KEY = "retention:quota:site-bytes"
_PROJECT_KEY = "retention:quota:project-bytes:{}"


@dataclass(frozen=True)
class Quota:
    name: str  # what the message calls it: "the site's storage quota" or "project X's storage quota"
    setting: str  # where it is set
    limit_bytes: int | None  # None: no quota
    project: Project | None = None  # None: the whole site's bytes count


def _limit(value: int | None) -> int | None:
    return int(value) if value and value > 0 else None


def quota_for(project: Project | None) -> Quota:
    """The quota that new data of `project`'s tests counts against (None: the whole site's)."""
    site = _limit(settings.TANKODROM_QUOTA_BYTES)
    if project is None:
        return Quota("the site's storage quota", "TANKODROM_QUOTA_BYTES", site)
    name = f"project {project.slug}'s storage quota"
    if project.quota_bytes is None:
        return Quota(name, "the site default TANKODROM_QUOTA_BYTES", site, project)
    return Quota(name, f"quota_bytes of project {project.slug}", _limit(project.quota_bytes), project)


def used_bytes(quota: Quota) -> int:
    key = _CACHE_KEY if quota.project is None else _PROJECT_KEY.format(quota.project.pk)
    cached = cache.get(key)
    if cached is not None:
        return int(cached)
    if quota.project is None:
        used = sum(u.bytes_on_disk for u in ch.table_usage().values())
    else:
        test_ids = [int(t) for t in quota.project.tests.values_list("pk", flat=True)]
        used = sum(u.bytes_on_disk for u in storage.per_test(test_ids).values()) if test_ids else 0
    cache.set(key, used, USAGE_CACHE_S)
    return used


def forget_usage() -> None:
    """Drop the cached usage (after retention freed bytes, or in tests)."""
    cache.delete_many([_CACHE_KEY, *(_PROJECT_KEY.format(pk) for pk in Project.objects.values_list("pk", flat=True))])


def refusal(project: Project) -> dict[str, object] | None:
    """The 507 answer's body when new data for a test of `project` would exceed its quota; None when there is room.

    A ClickHouse that does not answer refuses nothing here: the upload itself then fails with its own 503.
    """
    quota = quota_for(project)
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
        "quota": {"name": quota.name, "project": project.slug, "limit_bytes": quota.limit_bytes, "used_bytes": used},
    }
