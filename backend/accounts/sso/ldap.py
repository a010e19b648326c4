"""LDAP / Active Directory sign-on: django-auth-ldap configured from TANKODROM_LDAP_* (backend/settings.py).

The login form's username is looked up with the user search (as the bind DN, or anonymously), the password checked
by binding as the entry found, the groups read with the group search of the configured type. Accounts are linked
to the entry by its entryUUID (OpenLDAP) or objectGUID (Active Directory), never by name: a directory user "admin"
gets an account of its own, not the local admin's.

Group types (TANKODROM_LDAP_GROUP_TYPE):
  groupOfNames         groups whose `member` holds the user's DN (OpenLDAP, 389-ds, FreeIPA)
  groupOfNames-nested  the same, and the groups those groups are members of (one query per level)
  ad                   Active Directory `group` objects whose `member` holds the user's DN
  ad-nested            the same through nested groups, resolved by the server in one query with
                       LDAP_MATCHING_RULE_IN_CHAIN (1.2.840.113556.1.4.1941); Active Directory only
  memberOf             the user entry's own `memberOf` values (AD; OpenLDAP with the memberof overlay), no search
"""

from __future__ import annotations

from typing import Any

import ldap
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import User
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest
from django_auth_ldap.backend import LDAPBackend
from django_auth_ldap.config import (
    ActiveDirectoryGroupType,
    GroupOfNamesType,
    LDAPGroupType,
    LDAPSearch,
    MemberDNGroupType,
    NestedGroupOfNamesType,
)

from backend.accounts.sso.identity import free_username, link, linked_user
from backend.accounts.sso.roles import apply_group_roles

ISSUER = "ldap"  # SignOnIdentity.issuer of directory entries; the subject is the entry's UUID
ENTRY_ID_ATTRS = ("entryUUID", "objectGUID")
# Operational attributes are only returned when named.
USER_ATTRLIST = ["*", *ENTRY_ID_ATTRS, "memberOf"]
LDAP_MATCHING_RULE_IN_CHAIN = "1.2.840.113556.1.4.1941"
TIMEOUT_S = 10


class MemberOfGroupType(LDAPGroupType):  # type: ignore[misc]  # django-auth-ldap is untyped
    """The groups named by the user entry's `memberOf` (under the group search's base, when one is set)."""

    def user_groups(self, ldap_user: Any, group_search: Any) -> list[tuple[str, dict[str, list[str]]]]:
        base = str(group_search.base_dn).lower() if group_search is not None else ""
        found = []
        for dn in (ldap_user.attrs or {}).get("memberOf", []):
            dn_text = dn.decode() if isinstance(dn, bytes) else str(dn)
            if base and not dn_text.lower().endswith(base):
                continue
            first_rdn = ldap.dn.str2dn(dn_text)[0][0]
            found.append((dn_text.lower(), {"cn": [first_rdn[1]]}))
        return found

    def is_member(self, ldap_user: Any, group_dn: str) -> bool:
        return group_dn.lower() in {dn for dn, _ in self.user_groups(ldap_user, None)}


GROUP_TYPES: dict[str, Any] = {
    "groupOfNames": GroupOfNamesType,
    "groupOfNames-nested": NestedGroupOfNamesType,
    "ad": ActiveDirectoryGroupType,
    "ad-nested": lambda: MemberDNGroupType(f"member:{LDAP_MATCHING_RULE_IN_CHAIN}:"),
    "memberOf": MemberOfGroupType,
}


def ldap_enabled() -> bool:
    return bool(settings.TANKODROM_LDAP["uri"])


def ldap_label() -> str:
    return str(settings.TANKODROM_LDAP["label"])


def _config() -> dict[str, Any]:
    cfg: dict[str, Any] = settings.TANKODROM_LDAP
    return cfg


def entry_subject(ldap_user: Any) -> str:
    """The entry's stable id: entryUUID, objectGUID (as hex), or else its DN."""
    attrs = ldap_user.attrs or {}
    for name in ENTRY_ID_ATTRS:
        values = attrs.get(name)
        if values:
            value = values[0]
            if name == "objectGUID":
                return (value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogateescape")).hex()
            return str(value).lower()
    return f"dn:{str(ldap_user.dn).lower()}"


def group_dns(ldap_user: Any) -> tuple[str, ...]:
    """The user's groups as lower-case DNs; none when no group search is configured."""
    cfg = _config()
    if not cfg["group_base"] and cfg["group_type"] != "memberOf":
        return ()
    return tuple(sorted(ldap_user.group_dns))


class DirectoryBackend(LDAPBackend):  # type: ignore[misc]  # django-auth-ldap is untyped
    @property
    def default_settings(self) -> dict[str, Any]:
        cfg = _config()
        group_type = GROUP_TYPES.get(cfg["group_type"])
        if group_type is None:
            raise ImproperlyConfigured(
                f"TANKODROM_LDAP_GROUP_TYPE={cfg['group_type']!r}: expected one of {sorted(GROUP_TYPES)}"
            )
        return {
            "SERVER_URI": cfg["uri"],
            "START_TLS": cfg["start_tls"],
            "BIND_DN": cfg["bind_dn"],
            "BIND_PASSWORD": cfg["bind_password"],
            "USER_SEARCH": LDAPSearch(cfg["user_base"], ldap.SCOPE_SUBTREE, cfg["user_filter"], attrlist=USER_ATTRLIST),
            "GROUP_SEARCH": LDAPSearch(cfg["group_base"] or cfg["user_base"], ldap.SCOPE_SUBTREE, cfg["group_filter"]),
            "GROUP_TYPE": group_type(),
            "USER_ATTR_MAP": {"first_name": "givenName", "last_name": "sn", "email": "mail"},
            "ALWAYS_UPDATE_USER": True,
            "CACHE_TIMEOUT": 0,  # a directory change (a removed user, a changed group) counts at the next login
            # Active Directory answers searches of a domain with referrals to the others: not followed (use the
            # global catalog, port 3268, for a forest).
            "CONNECTION_OPTIONS": {
                ldap.OPT_REFERRALS: 0,
                ldap.OPT_NETWORK_TIMEOUT: TIMEOUT_S,
                ldap.OPT_TIMEOUT: TIMEOUT_S,
            },
        }

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> AbstractBaseUser | None:
        if not ldap_enabled():
            return None
        user: AbstractBaseUser | None = super().authenticate(request, username=username, password=password, **kwargs)
        return user

    def get_or_build_user(self, username: str, ldap_user: Any) -> tuple[User, bool]:
        user = linked_user(ISSUER, entry_subject(ldap_user))
        if user is not None:
            return user, False
        return User(username=free_username(username)), True

    def authenticate_ldap_user(self, ldap_user: Any, password: str) -> User | None:
        user: User | None = super().authenticate_ldap_user(ldap_user, password)
        if user is None:
            return None
        link(user, ISSUER, entry_subject(ldap_user))
        if user.is_active:
            apply_group_roles(user, group_dns(ldap_user), via="ldap")
        return user

    def get_user(self, user_id: int) -> User | None:
        user: User | None = super().get_user(user_id)
        return user if user is not None and user.is_active else None
