"""Who may read and write a test. Every view asks these two functions; nothing else decides access.

Reading: anyone with the link (as on Overload's public beta), unless the instance is private
(TANKODROM_PRIVATE_INSTANCE) or the owner marked the test private; then the owner and staff only.
Writing (stream, upload, edit, delete, star): the owner (token or session) or staff.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from backend.loadtests.models import Test


def _is_authenticated(user: Any) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False))


def can_read(user: Any, test: Test) -> bool:
    if _is_authenticated(user) and (user.is_staff or test.owner_id == user.pk):
        return True
    if test.is_private:
        return False
    if getattr(settings, "TANKODROM_PRIVATE_INSTANCE", False):
        return _is_authenticated(user)
    return True


def can_write(user: Any, test: Test) -> bool:
    return _is_authenticated(user) and (bool(user.is_staff) or test.owner_id == user.pk)


def can_create(user: Any) -> bool:
    return _is_authenticated(user)


def can_manage_component(user: Any, component: str) -> bool:
    """Baseline, KPIs, thresholds and subscriptions of a component: staff, or an owner of one of its tests."""
    if not _is_authenticated(user) or not component:
        return False
    return bool(user.is_staff) or Test.objects.filter(component=component, owner_id=user.pk).exists()
