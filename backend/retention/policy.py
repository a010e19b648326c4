"""How long a test's rows are kept: the one place that answers it (`policy_for`, `policy_groups`).

Today the policy is the site's (settings TANKODROM_RETENTION_*). Per-project policies (a project's own days, null
meaning the site's) change these two functions only: every reader of a policy goes through them.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Q

from backend.loadtests.models import Test


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


def policy_for(test: Test) -> Policy:
    """The policy that applies to `test`."""
    del test  # one policy for the whole site until projects carry their own
    return site_policy()


def policy_groups() -> list[tuple[Q, Policy]]:
    """Every test falls in exactly one group: a filter of tests and the policy they share (the job's batches)."""
    return [(Q(), site_policy())]
