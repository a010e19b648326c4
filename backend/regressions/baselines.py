"""A component's baseline test: mark one (the history is kept), clear it, read it; what retention must keep.

Writes are named actions (`set_baseline`, `clear_baseline`); callers check access first
(`backend.loadtests.permissions.can_manage_component` and `can_read` of the test).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import QuerySet

from backend.loadtests.models import Test
from backend.loadtests.permissions import can_read
from backend.regressions.models import BaselineMark


class BaselineError(ValueError):
    """A baseline that cannot be set; the message names the problem."""


def current_mark(project_id: int, component: str) -> BaselineMark | None:
    query = BaselineMark.objects.filter(project_id=project_id, component=component)
    return query.select_related("test", "set_by").first()


def current_baseline(project_id: int, component: str) -> Test | None:
    mark = current_mark(project_id, component)
    return mark.test if mark is not None else None


def readable_baseline(project_id: int, component: str, user: Any) -> Test | None:
    """The baseline as `user` may see it: a baseline they may not read is no baseline to them."""
    test = current_baseline(project_id, component)
    return test if test is not None and can_read(user, test) else None


def set_baseline(project_id: int, component: str, test: Test, user: Any) -> BaselineMark:
    if test.component != component or test.project_id != project_id:
        raise BaselineError(f"test: test {test.pk} is not a test of this project's component {component!r}")
    with transaction.atomic():
        # Serialises concurrent marks of one component: the newest row is the baseline, whoever wins.
        current = current_mark(project_id, component)
        if current is not None and current.test_id == test.pk:
            return current
        return BaselineMark.objects.create(project_id=project_id, component=component, test=test, set_by=user)


def clear_baseline(project_id: int, component: str, user: Any) -> BaselineMark | None:
    current = current_mark(project_id, component)
    if current is None or current.test_id is None:
        return current
    return BaselineMark.objects.create(project_id=project_id, component=component, test=None, set_by=user)


def history(project_id: int, component: str, user: Any, limit: int = 50) -> list[dict[str, Any]]:
    """The marks `user` may see, newest first: a baseline they may not read leaves no entry at all (an entry without
    its test would still say that a private baseline was set, by whom and when)."""
    out = []
    marks = BaselineMark.objects.filter(project_id=project_id, component=component)
    for mark in marks.select_related("test", "set_by")[:limit]:
        if mark.test is not None and not can_read(user, mark.test):
            continue
        out.append(
            {
                "test_id": int(mark.test.pk) if mark.test is not None else None,
                "cleared": mark.test_id is None,
                "set_by": mark.set_by.get_username() if mark.set_by else None,
                "set_at": mark.set_at.isoformat(),
            }
        )
    return out


def protected_test_ids() -> set[int]:
    """Tests that are the current baseline of some component: retention must never remove them."""
    current: set[int] = set()
    seen: set[tuple[int, str]] = set()
    for project_id, component, test_id in BaselineMark.objects.order_by(
        "project_id", "component", "-set_at", "-id"
    ).values_list("project_id", "component", "test_id"):
        if (project_id, component) in seen:
            continue
        seen.add((project_id, component))
        if test_id is not None:
            current.add(int(test_id))
    return current


def ever_baseline_ids() -> QuerySet[BaselineMark, int]:
    """Tests that are or ever were a component's baseline (a subquery): retention never expires them, since the
    baseline history and the dashboards that point at past baselines must keep answering."""
    return BaselineMark.objects.filter(test__isnull=False).values_list("test_id", flat=True)
