"""Project roles from sign-on groups, applied at every sign-on (OpenID Connect and LDAP alike).

TANKODROM_SSO_GROUP_ROLES (group_roles.py) says which groups give which role in which project. At each sign-on the
person's memberships are brought in line with their groups of that moment: memberships are added, their role
raised or lowered, and removed when no group gives them any more. Only what sign-on gave is changed: each such
membership has a SignOnGrant beside it (the source marker). A membership an admin granted by hand has none and is
left alone; one whose role an admin changed by hand since is handed over to them (its marker dropped).

Every change is audited by backend.projects.service (member.add, member.role, member.remove; no actor: the
server did it), with a "member.sign_on" event beside it naming the group and the way the person signed on.
With no mapping configured, sign-on leaves memberships alone.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from backend.accounts.models import SignOnGrant
from backend.accounts.sso.group_roles import GroupRole, roles_for
from backend.projects.models import Membership, Project, Role
from backend.projects.service import audit, remove_member, set_member

log = logging.getLogger(__name__)


def apply_group_roles(user: User, groups: Iterable[str], via: str) -> None:
    rules: tuple[GroupRole, ...] = settings.TANKODROM_SSO_GROUP_ROLES
    if not rules:
        return
    wanted = roles_for(rules, groups)
    projects = {project.slug: project for project in Project.objects.filter(slug__in=wanted)}
    for slug in sorted(set(wanted) - set(projects)):
        log.warning("TANKODROM_SSO_GROUP_ROLES names project %r, which does not exist: no role given there", slug)
    with transaction.atomic():
        grants = {grant.project_id: grant for grant in SignOnGrant.objects.select_for_update().filter(user=user)}
        members = {member.project_id: member for member in Membership.objects.filter(user=user)}
        for slug, rule in sorted(wanted.items()):
            project = projects.get(slug)
            if project is None:
                continue
            role = Role[rule.role.upper()]
            grant = grants.pop(project.pk, None)
            member = members.get(project.pk)
            if member is not None and grant is None:
                continue  # granted by hand: the admin's decision stands
            if member is not None and grant is not None and member.role != grant.role:
                grant.delete()  # its role was changed by hand since: no longer sign-on's to change
                continue
            if member is None or member.role != role:
                set_member(project, user, role, actor=None)
                audit(None, project, "member.sign_on", user.username, role=role.label, group=rule.group, via=via)
            SignOnGrant.objects.update_or_create(
                user=user, project=project, defaults={"role": int(role), "group": rule.group[:512]}
            )
        for grant in grants.values():  # no group gives a role there any more
            member = members.get(grant.project_id)
            if member is not None and member.role == grant.role:
                remove_member(grant.project, user, actor=None)
                audit(None, grant.project, "member.sign_on", user.username, role=None, group=grant.group, via=via)
            grant.delete()
