"""Every change of membership goes through here, and every audited change calls `audit`."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from backend.projects.access import forget_roles
from backend.projects.models import AuditEvent, Membership, Project, Role


def audit(actor: Any, project: Project | None, action: str, target: str, /, **details: Any) -> AuditEvent:
    user = actor if actor is not None and getattr(actor, "is_authenticated", False) else None
    return AuditEvent.objects.create(actor=user, project=project, action=action, target=target, details=details)


def set_member(project: Project, user: Any, role: Role, actor: Any) -> Membership:
    """Add `user` to `project` with `role`, or change the role; audited as member.add or member.role."""
    with transaction.atomic():
        membership = Membership.objects.select_for_update().filter(project=project, user=user).first()
        if membership is None:
            membership = Membership.objects.create(project=project, user=user, role=role)
            audit(actor, project, "member.add", user.username, role=Role(role).label)
        elif membership.role != role:
            before = Role(membership.role).label
            membership.role = role
            membership.save(update_fields=["role"])
            audit(actor, project, "member.role", user.username, role=Role(role).label, before=before)
    forget_roles(user)
    return membership


def remove_member(project: Project, user: Any, actor: Any) -> bool:
    """Remove `user` from `project`; False when the user was no member."""
    with transaction.atomic():
        deleted, _ = Membership.objects.filter(project=project, user=user).delete()
        if deleted:
            audit(actor, project, "member.remove", user.username)
    forget_roles(user)
    return bool(deleted)


def set_tank_notify(project: Project, user: Any, allowed: bool) -> Membership:
    """Let (or stop) a tank's `notify:` reach the member's targets for this project's tests; audited as
    member.tank_notify when it changes. Membership.DoesNotExist when the user is no member."""
    with transaction.atomic():
        membership = Membership.objects.select_for_update().get(project=project, user=user)
        if membership.tank_notify != allowed:
            membership.tank_notify = allowed
            membership.save(update_fields=["tank_notify"])
            audit(user, project, "member.tank_notify", user.username, allowed=allowed)
    return membership
