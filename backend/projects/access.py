"""What role a user holds in a project. The role of a request acting through an API token is capped by the token:
a token scoped to a project acts in that project only, with at most the token's role.

Site admins (is_staff or is_superuser) hold the admin role in every project.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework.exceptions import NotFound, PermissionDenied

from backend.projects.models import Membership, Project, Role

_TOKEN_ATTR = "_tankodrom_api_token"
_ROLES_ATTR = "_tankodrom_roles"


def bind_token(user: Any, token: Any) -> None:
    """Note on the user object of a request that it acts through `token` (backend.loadtests.tokens.resolve_token)."""
    setattr(user, _TOKEN_ATTR, token)


def acting_token(user: Any) -> Any | None:
    return getattr(user, _TOKEN_ATTR, None)


def is_authenticated(user: Any) -> bool:
    return bool(user is not None and getattr(user, "is_authenticated", False))


def is_site_admin(user: Any) -> bool:
    return is_authenticated(user) and bool(user.is_staff or user.is_superuser)


def role_of(user: Any, project: Project | int) -> Role | None:
    """The user's role in `project`, or None when the user is not a member (or acts through another project's
    token)."""
    if not is_authenticated(user):
        return None
    project_id = project if isinstance(project, int) else project.pk
    token = acting_token(user)
    if token is not None and token.project_id is not None and token.project_id != project_id:
        return None
    role = Role.ADMIN if is_site_admin(user) else _memberships(user).get(project_id)
    if role is None:
        return None
    if token is not None and token.role is not None:
        role = min(role, token.role)
    return Role(role)


def _memberships(user: Any) -> dict[int, int]:
    """project id -> role, read once per user object (a request's): a list asks for every test it shows."""
    roles: dict[int, int] | None = getattr(user, _ROLES_ATTR, None)
    if roles is None:
        roles = dict(Membership.objects.filter(user_id=user.pk).values_list("project_id", "role"))
        setattr(user, _ROLES_ATTR, roles)
    return roles


def forget_roles(user: Any) -> None:
    """After a change of the user's memberships: the next `role_of` reads them again."""
    if hasattr(user, _ROLES_ATTR):
        delattr(user, _ROLES_ATTR)


def may(user: Any, project: Project | int, need: Role) -> bool:
    role = role_of(user, project)
    return role is not None and role >= need


def refusal(user: Any, project: Project, need: Role) -> str:
    role = role_of(user, project)
    held = f"you are {role.label}" if role is not None else "you are not a member"
    return f"this needs the {need.label} role in project {project.slug!r}; {held}"


def require(user: Any, project: Project, need: Role) -> None:
    """PermissionDenied naming the role needed and the one held, unless the user holds `need` in `project`."""
    if not may(user, project, need):
        raise PermissionDenied(refusal(user, project, need))


def readable_projects(user: Any) -> QuerySet[Project]:
    """The projects the user holds a role in (all, for site admins), within the acting token's project if any."""
    if not is_authenticated(user):
        return Project.objects.none()
    projects = Project.objects.all() if is_site_admin(user) else Project.objects.filter(memberships__user=user)
    token = acting_token(user)
    if token is not None and token.project_id is not None:
        projects = projects.filter(pk=token.project_id)
    return projects


def token_scope(user: Any, slug: str | None, role_name: str | None) -> tuple[Project | None, Role | None]:
    """The project and role cap of a new API token `user` asks for (None, None: unscoped). Never more than the user
    holds there, nor than the token the request acts through: a scoped token makes tokens within its own scope
    only. NotFound (404) for a project the user is no member of (as if it did not exist, which it may not),
    PermissionDenied (403) for a role above the one held; both name the field."""
    acting = acting_token(user)
    role = next(r for r in Role if r.label == role_name) if role_name else None
    project: Project | None = None
    if slug:
        project = readable_projects(user).filter(slug=slug).first()
        if project is None:
            raise NotFound(f"project: no project {slug[:64]!r} that you are a member of")
    elif acting is not None and acting.project_id is not None:
        project = acting.project
    if role is None and acting is not None and acting.role is not None:
        role = Role(acting.role)
    if role is not None and project is not None and not may(user, project, role):
        raise PermissionDenied(f"role: a token cannot hold more than you do; {refusal(user, project, role)}")
    if role is not None and acting is not None and acting.role is not None and role > acting.role:
        label = Role(acting.role).label
        raise PermissionDenied(f"role: a token cannot hold more than the token you act through ({label})")
    return project, role
