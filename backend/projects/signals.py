"""New accounts join the default project with the site's default role (TANKODROM_DEFAULT_PROJECT_ROLE), as a
company's shared install expects: anyone signed in can upload to the common project, and nothing else."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db.models.signals import post_save


def default_role() -> int | None:
    from backend.projects.models import Role

    name = str(settings.TANKODROM_DEFAULT_PROJECT_ROLE or "").strip().lower()
    if name in ("", "none"):
        return None
    roles = {str(role.label): int(role) for role in Role}
    if name not in roles:
        raise ImproperlyConfigured(f"TANKODROM_DEFAULT_PROJECT_ROLE: one of {', '.join(roles)} or none, not {name!r}")
    return roles[name]


def _join_default_project(sender: Any, instance: Any, created: bool, raw: bool = False, **_: Any) -> None:
    from backend.projects.models import Membership, default_project

    role = default_role()
    if created and not raw and role is not None:
        Membership.objects.get_or_create(project=default_project(), user=instance, defaults={"role": role})


def connect() -> None:
    default_role()  # a misspelt role stops the start, not the first sign-up
    post_save.connect(_join_default_project, sender=get_user_model(), dispatch_uid="projects.join_default")
