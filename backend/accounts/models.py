"""Accounts' own records: the link between a sign-on identity and a Tankodrom user (backend/accounts/sso/)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class SignOnIdentity(models.Model):
    """Who a user is at an identity provider: the OpenID issuer and its `sub`, or "ldap" and the entry's UUID.

    The stable link between an outside identity and a Tankodrom user. Never by e-mail or username: those change
    and can be chosen by someone else (a directory user named "admin" must not become the local admin).
    """

    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sign_on_identities")
    created_at = models.DateTimeField(auto_now_add=True)
    last_sign_on_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["issuer", "subject"], name="sign_on_identity_unique")]

    def __str__(self) -> str:
        return f"{self.issuer} {self.subject} -> user {self.user_id}"


class SignOnGrant(models.Model):
    """A project membership that sign-on gave, with the role it gave and the group it came from.

    The source marker of group mapping (backend/accounts/sso/roles.py): the next sign-on changes or removes only
    memberships that have one, so memberships an admin granted by hand are never touched by it.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    role = models.IntegerField()
    group = models.CharField(max_length=512)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "project"], name="sign_on_grant_unique")]

    def __str__(self) -> str:
        return f"user {self.user_id} in project {self.project_id}: role {self.role} from {self.group}"
