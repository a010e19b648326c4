"""Who may read and write a test. Every view asks these functions; nothing else decides access.

Reading: anyone with the link (as on Overload's public beta), unless the instance is private
(TANKODROM_PRIVATE_INSTANCE) or the owner marked the test private; then the owner and staff only.
Writing (stream, upload, edit, delete, star): the owner (token or session) or staff.

A test that someone may not read is, to them, a missing test: same status, same body, on every path. Views find
tests through `readable_test` (plain Django views) or `test_or_404` (DRF views), never by a bare lookup, so that
no answer (403 instead of 404, a page's 200, a card's title) tells a stranger that the id exists.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.exceptions import NotAuthenticated, NotFound, PermissionDenied

from backend.loadtests.models import Test

# Test ids are PostgreSQL bigints: a longer number names no test (and must not reach the query, which would fail).
MAX_TEST_ID = 2**63 - 1


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


def readable_test(user: Any, test_id: int) -> Test | None:
    """The test `test_id` when it exists and `user` may read it; else None, whichever of the two it is."""
    if not 0 < test_id <= MAX_TEST_ID:
        return None
    test = Test.objects.select_related("owner").filter(pk=test_id).first()
    if test is None or not can_read(user, test):
        return None
    return test


def not_found_message(test_id: int) -> str:
    return f"test {test_id} not found"


def test_or_404(request: Any, test_id: int, *, write: bool = False) -> Test:
    """For DRF views: the test, or the DRF error. 401 comes before any lookup (writes need a user, and so does
    anything on a private instance), so that it says nothing about the id; a test the user may not read is a 404
    like a missing one; 403 only for writing a test the user can see but does not own."""
    user = request.user
    if not _is_authenticated(user) and (write or getattr(settings, "TANKODROM_PRIVATE_INSTANCE", False)):
        raise NotAuthenticated("log in or send an API token (Authorization: Token ...)")
    test = readable_test(user, test_id)
    if test is None:
        raise NotFound(not_found_message(test_id))
    if write and not can_write(user, test):
        raise PermissionDenied(f"you may not change test {test_id}")
    return test


def can_manage_component(user: Any, component: str) -> bool:
    """Baseline, KPIs, thresholds and subscriptions of a component: staff, or an owner of one of its tests."""
    if not _is_authenticated(user) or not component:
        return False
    return bool(user.is_staff) or Test.objects.filter(component=component, owner_id=user.pk).exists()
