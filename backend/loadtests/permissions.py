"""Who may read and write a test. Every view asks these functions; nothing else decides access.

Reading follows the test's visibility (backend.projects.models.Visibility): public, anyone who can reach the server
(signed-in users only on a private instance, TANKODROM_PRIVATE_INSTANCE); internal, any signed-in user; project,
the members of its project; owner, its owner while a member, and site admins.
Writing follows the caller's role in the test's project (backend.projects.access.role_of, capped by the API token
the request acts through): an uploader changes the tests he owns (stream, upload, edit, star, notes), a maintainer
any test of the project; site admins everything.

A test that someone may not read is, to them, a missing test: same status, same body, on every path. Views find
tests through `readable_test` (plain Django views) or `test_or_404` (DRF views), never by a bare lookup, so that
no answer (403 instead of 404, a page's 200, a card's title) tells a stranger that the id exists.

The tank stream (backend/tankapi) authorizes its pushes from cached rows, not users: `upload_token_matches` and
`may_push` are its rule, here beside the others.
"""

from __future__ import annotations

import hmac
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from rest_framework.exceptions import NotAuthenticated, NotFound, PermissionDenied

from backend.loadtests.models import Test, hash_upload_token
from backend.projects.access import acting_token, is_authenticated, is_site_admin, readable_projects, refusal, role_of
from backend.projects.models import Project, Role, Visibility, default_project

# Test ids are PostgreSQL bigints: a longer number names no test (and must not reach the query, which would fail).
MAX_TEST_ID = 2**63 - 1


def _private_instance() -> bool:
    return bool(settings.TANKODROM_PRIVATE_INSTANCE)


def may_browse(user: Any) -> bool:
    """Whether `user` may see anything at all: not an anonymous visitor of a private instance."""
    return is_authenticated(user) or not _private_instance()


def can_read(user: Any, test: Test) -> bool:
    visibility = test.visibility
    if visibility == Visibility.PUBLIC and not _private_instance():
        return True
    if not is_authenticated(user):
        return False
    if visibility in (Visibility.PUBLIC, Visibility.INTERNAL):
        return True
    role = role_of(user, test.project_id)
    if role is None:
        return False
    return visibility == Visibility.PROJECT or test.owner_id == user.pk or is_site_admin(user)


def readable_tests_filter(user: Any) -> Q:
    """The queryset form of `can_read`: a list never shows what a detail would refuse."""
    if not is_authenticated(user):
        return Q(visibility=Visibility.PUBLIC) if not _private_instance() else Q(pk__in=[])
    projects = readable_projects(user)
    mine = Q(visibility=Visibility.OWNER, project__in=projects)
    if not is_site_admin(user):
        mine &= Q(owner=user)
    return (
        Q(visibility__in=[Visibility.PUBLIC, Visibility.INTERNAL])
        | Q(visibility=Visibility.PROJECT, project__in=projects)
        | mine
    )


def readable_tests(user: Any) -> QuerySet[Test]:
    return Test.objects.filter(readable_tests_filter(user))


def can_write(user: Any, test: Test, need: Role = Role.UPLOADER) -> bool:
    """May `user` change `test` with role `need` (uploader: his own tests; maintainer: any test of the project)?"""
    if not can_read(user, test):
        return False
    role = role_of(user, test.project_id)
    if role is None or role < need:
        return False
    return role >= Role.MAINTAINER or test.owner_id == user.pk


def project_for_new_test(user: Any, slug: str | None = None) -> Project | None:
    """Where a test created by `user` goes: the acting token's project, else the project named, else the default
    one; None when there is no such project the user can see."""
    token = acting_token(user)
    if token is not None and token.project_id is not None:
        project = token.project
        return project if slug in (None, "", project.slug) else None
    if slug:
        return readable_projects(user).filter(slug=slug).first()
    return default_project()


def can_create(user: Any, project: Project | None = None) -> bool:
    if not is_authenticated(user):
        return False
    target = project if project is not None else project_for_new_test(user)
    role = role_of(user, target) if target is not None else None
    return role is not None and role >= Role.UPLOADER


def readable_test(user: Any, test_id: int) -> Test | None:
    """The test `test_id` when it exists and `user` may read it; else None, whichever of the two it is."""
    if not 0 < test_id <= MAX_TEST_ID:
        return None
    test = Test.objects.select_related("owner", "project").filter(pk=test_id).first()
    if test is None or not can_read(user, test):
        return None
    return test


def not_found_message(test_id: int) -> str:
    return f"test {test_id} not found"


def write_refusal(user: Any, test: Test, need: Role = Role.UPLOADER) -> str:
    """Why `user` may not change `test`: the role needed, the one held."""
    role = role_of(user, test.project_id)
    if role is not None and role >= need:  # an uploader, not the owner
        return f"only its owner or a maintainer of project {test.project.slug!r} may change test {test.pk}"
    return refusal(user, test.project, max(need, Role.UPLOADER))


def test_or_404(request: Any, test_id: int, *, write: bool = False, need: Role = Role.UPLOADER) -> Test:
    """For DRF views: the test, or the DRF error. 401 comes before any lookup (writes need a user, and so does
    anything on a private instance), so that it says nothing about the id; a test the user may not read is a 404
    like a missing one; 403, naming the role needed, only for changing a test the user can see."""
    user = request.user
    if not is_authenticated(user) and (write or _private_instance()):
        raise NotAuthenticated("log in or send an API token (Authorization: Token ...)")
    test = readable_test(user, test_id)
    if test is None:
        raise NotFound(not_found_message(test_id))
    if write and not can_write(user, test, need):
        raise PermissionDenied(write_refusal(user, test, need))
    return test


def can_manage_component(user: Any, component: str, project: Project | None = None) -> bool:
    """Baseline, KPIs, thresholds and subscriptions of a component (a name within a project): the project's
    maintainers and admins. Owning a test named like it gives nothing: anyone may name a test anything."""
    if not is_authenticated(user) or not component:
        return False
    role = role_of(user, project if project is not None else default_project())
    return role is not None and role >= Role.MAINTAINER


def upload_token_matches(sent: str, stored_hash: str) -> bool:
    """The tank stream's credential for a test: the upload_token it was created with (stored hashed). A wrong one
    is answered as a missing test, so that no one probes which job numbers are taken."""
    return bool(sent) and hmac.compare_digest(hash_upload_token(sent), stored_hash)


def may_push(user_id: int, is_staff: bool, owner_id: int) -> bool:
    """An api_token sent with a push (Lunapark mode sends none) must be the test owner's or a site admin's."""
    return is_staff or user_id == owner_id
