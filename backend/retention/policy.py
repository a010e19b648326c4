"""How long a test's rows are kept: the one place that answers it (`policy_for`, `policy_groups`).

A project's own days (Project.retention_raw_days / retention_aggregates_days) override the site's (settings
TANKODROM_RETENTION_*); null means the site's, 0 means keep. Every reader of a policy goes through these functions.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q

from backend.loadtests.models import Test
from backend.projects.models import Project


@dataclass(frozen=True)
class Policy:
    """Days after a test's creation its raw samples / per-second aggregates and monitoring are deleted; None: kept.

    Aggregates outliving nothing: when they go, the raw samples go too (`raw_after_days`)."""

    raw_days: int | None
    aggregates_days: int | None

    @property
    def raw_after_days(self) -> int | None:
        days = [d for d in (self.raw_days, self.aggregates_days) if d is not None]
        return min(days) if days else None

    def as_dict(self) -> dict[str, int | None]:
        return {"raw_days": self.raw_days, "aggregates_days": self.aggregates_days}


def _days(value: int) -> int | None:
    return int(value) if value and value > 0 else None


def site_policy() -> Policy:
    return Policy(
        raw_days=_days(settings.TANKODROM_RETENTION_RAW_DAYS),
        aggregates_days=_days(settings.TANKODROM_RETENTION_AGGREGATES_DAYS),
    )


def _override(own: int | None, site: int | None) -> int | None:
    return site if own is None else _days(own)


def project_policy(project: Project) -> Policy:
    """The policy of `project`'s tests: its own days where set, the site's elsewhere."""
    site = site_policy()
    return Policy(
        raw_days=_override(project.retention_raw_days, site.raw_days),
        aggregates_days=_override(project.retention_aggregates_days, site.aggregates_days),
    )


def policy_for(test: Test) -> Policy:
    """The policy that applies to `test`: its project's."""
    return project_policy(test.project)


def policy_groups() -> list[tuple[Q, Policy]]:
    """Every test falls in exactly one group: a filter of tests and the policy they share (the job's batches).

    One group per project with days of its own, and one for the tests of all other projects (the site's)."""
    own = list(Project.objects.filter(Q(retention_raw_days__isnull=False) | Q(retention_aggregates_days__isnull=False)))
    groups = [(Q(project_id=p.pk), project_policy(p)) for p in own]
    groups.append((~Q(project_id__in=[p.pk for p in own]), site_policy()))
    return groups
