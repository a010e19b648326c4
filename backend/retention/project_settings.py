"""A project's retention and quota overrides: read and set by its admins (and site admins), every change audited.

null means the site's default (TANKODROM_RETENTION_* / TANKODROM_QUOTA_BYTES), 0 means keep forever / no quota."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from backend.loadtests import quota
from backend.projects.models import Project
from backend.projects.service import audit
from backend.retention.policy import project_policy

MAX_DAYS = 36_500  # a hundred years: more is a typo
MAX_QUOTA_BYTES = 2**60  # an exbibyte: more is a typo
FIELDS = {
    "retention_raw_days": MAX_DAYS,
    "retention_aggregates_days": MAX_DAYS,
    "quota_bytes": MAX_QUOTA_BYTES,
}


class SettingsError(ValueError):
    """A value refused; the message starts with the field's name."""


def describe(project: Project) -> dict[str, Any]:
    q = quota.quota_for(project)
    return {
        "project": project.slug,
        **{name: getattr(project, name) for name in FIELDS},
        "effective": {**project_policy(project).as_dict(), "quota_bytes": q.limit_bytes},
    }


def _value(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsError(f"{name}: a whole number or null (the site's default), not {value!r}")
    if value < 0:
        raise SettingsError(f"{name}: must not be negative (0 keeps forever / sets no quota, null is the default)")
    if value > FIELDS[name]:
        raise SettingsError(f"{name}: {value} is more than the largest allowed, {FIELDS[name]}")
    return value


def update(project: Project, data: Any, actor: Any) -> Project:
    """Set the fields present in `data` (a JSON object); audited as project.retention with old and new values."""
    if not isinstance(data, dict):
        raise SettingsError("body: a JSON object with retention_raw_days, retention_aggregates_days, quota_bytes")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise SettingsError(f"{unknown[0]}: not a field of a project's retention settings ({', '.join(FIELDS)})")
    values = {name: _value(name, data[name]) for name in FIELDS if name in data}
    with transaction.atomic():
        locked = Project.objects.select_for_update().get(pk=project.pk)
        old = {name: getattr(locked, name) for name in values}
        for name, value in values.items():
            setattr(locked, name, value)
        if values:
            locked.save(update_fields=list(values))
            audit(actor, locked, "project.retention", locked.slug, old=old, new=values)
    quota.forget_usage()
    return locked
