"""Which project roles a person's groups give, by configuration (TANKODROM_SSO_GROUP_ROLES).

Syntax: entries separated by ";" or new lines, each `GROUP=PROJECT:ROLE`:

    perf-team=payments:maintainer; cn=qa,ou=groups,dc=example,dc=org=payments:viewer

GROUP is a value of the OpenID groups claim (a Keycloak group "/perf-team", an Entra ID group's object id) or an
LDAP group's DN. An entry is split at its LAST "=": the right side (a project slug and a role) never holds one,
so DNs need no quoting. ROLE is viewer, uploader, maintainer or admin. DNs are compared without case and without
spaces around their "," and "="; claim values exactly. A group may be named in several entries (several projects);
when several groups give roles in one project, the highest counts.

Pure: no Django, no database. Parsed once at start-up by backend/settings.py, so a wrong entry stops the server
with a message naming it instead of failing at someone's login.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

ROLE_ORDER = ("viewer", "uploader", "maintainer", "admin")  # lowest first; names of projects.models.Role
_SLUG = re.compile(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?")


@dataclass(frozen=True)
class GroupRole:
    group: str  # as configured
    project: str  # slug
    role: str  # one of ROLE_ORDER


def normalize_group(group: str) -> str:
    """A DN in one spelling (lower case, no spaces around "," and "="); anything else as it is."""
    if "=" not in group:
        return group.strip()
    return ",".join("=".join(part.strip() for part in rdn.split("=", 1)) for rdn in group.strip().split(",")).lower()


def parse(text: str) -> tuple[GroupRole, ...]:
    rules = []
    for raw in re.split(r"[;\n]", text):
        entry = raw.strip()
        if not entry:
            continue
        group, sep, target = entry.rpartition("=")
        project, colon, role = target.strip().partition(":")
        if not sep or not group.strip() or not colon:
            raise ValueError(f"TANKODROM_SSO_GROUP_ROLES entry {entry!r}: expected GROUP=PROJECT:ROLE")
        if not _SLUG.fullmatch(project.strip()):
            raise ValueError(f"TANKODROM_SSO_GROUP_ROLES entry {entry!r}: {project!r} is not a project slug")
        if role.strip() not in ROLE_ORDER:
            raise ValueError(
                f"TANKODROM_SSO_GROUP_ROLES entry {entry!r}: the role must be one of {', '.join(ROLE_ORDER)}"
            )
        rules.append(GroupRole(group=group.strip(), project=project.strip(), role=role.strip()))
    return tuple(rules)


def roles_for(rules: Iterable[GroupRole], groups: Iterable[str]) -> dict[str, GroupRole]:
    """project slug -> the rule that gives the highest role there, among the rules naming one of `groups`."""
    have = {normalize_group(group) for group in groups}
    best: dict[str, GroupRole] = {}
    for rule in rules:
        if normalize_group(rule.group) not in have:
            continue
        current = best.get(rule.project)
        if current is None or ROLE_ORDER.index(rule.role) > ROLE_ORDER.index(current.role):
            best[rule.project] = rule
    return best
