"""Projects: who may do what with which tests. Every test, component setting and API token belongs to one project.

A component is a name within a project: its baseline, KPIs and subscriptions are keyed by (project, component), so
a test of another project named like it changes nothing of it. Roles are ordered: each includes those below it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

DEFAULT_SLUG = "default"
SLUG_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$"


class Role(models.IntegerChoices):
    VIEWER = 10, "viewer"
    UPLOADER = 20, "uploader"
    MAINTAINER = 30, "maintainer"
    ADMIN = 40, "admin"


class Visibility(models.TextChoices):
    PUBLIC = "public", "anyone who can reach the server"
    INTERNAL = "internal", "any signed-in user"
    PROJECT = "project", "the project's members"
    # What "private" meant before projects: the owner (while a member) and site admins. Upgrading keeps such tests
    # readable by exactly the same people, although every owner becomes an admin of the shared default project.
    OWNER = "owner", "its owner only"


class Project(models.Model):
    slug = models.CharField(
        max_length=64,
        unique=True,
        validators=[RegexValidator(SLUG_PATTERN, "lowercase letters, digits and inner hyphens, up to 64")],
    )
    name = models.CharField(max_length=256)
    created_at = models.DateTimeField(auto_now_add=True)
    # None: the site's default (backend.settings), used by retention and quotas.
    retention_raw_days = models.IntegerField(null=True, blank=True)
    retention_aggregates_days = models.IntegerField(null=True, blank=True)
    quota_bytes = models.BigIntegerField(null=True, blank=True)
    default_visibility = models.CharField(max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class Membership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.IntegerField(choices=Role.choices)
    # The member lets a tank's `notify:` naming him reach his targets for this project's tests (issue 29): off
    # until he turns it on himself (PATCH /api/v1/projects/<slug>/membership/), so no pusher can message anyone.
    tank_notify = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project_id", "-role", "user_id"]
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="projects_one_membership")]

    def __str__(self) -> str:
        return f"{self.user_id} is {Role(self.role).label} of {self.project_id}"


class AuditEvent(models.Model):
    """Who changed what: membership, roles, visibility, baselines, KPIs, subscriptions, tokens, test deletes and
    stops. Rows are only ever added (backend.projects.service.audit)."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    action = models.CharField(max_length=64, db_index=True, help_text='e.g. "member.add", "baseline.set"')
    target = models.CharField(max_length=512, blank=True, default="")
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.target}"


def default_project() -> Project:
    """The project every install has (created by migration; recreated if a test database was flushed)."""
    project, _ = Project.objects.get_or_create(slug=DEFAULT_SLUG, defaults={"name": "Default"})
    return project


class InDefaultProjectUnlessSet(models.Model):
    """A row saved without a project (the admin, callers from before projects) goes to the default one."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if getattr(self, "project_id", None) is None:
            self.project = default_project()
        super().save(*args, **kwargs)
