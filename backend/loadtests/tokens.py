"""Creating, hashing and resolving API tokens. Every token write goes through these functions."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth.models import User
from django.utils import timezone

from backend.loadtests.models import ApiToken
from backend.projects.access import bind_token
from backend.projects.models import Project, Role

TOKEN_PREFIX = "tdm_"


def hash_token(raw: str) -> str:
    # Tokens carry 240 bits of randomness, so a fast hash is enough: nothing to brute-force.
    return hashlib.sha256(raw.strip().encode()).hexdigest()


def create_token(
    user: User, name: str = "", *, project: Project | None = None, role: Role | None = None
) -> tuple[ApiToken, str]:
    """Create a token for `user` (scoped to `project` with at most `role`, when given); return the row and the raw
    token (the only time it exists in clear)."""
    raw = TOKEN_PREFIX + secrets.token_urlsafe(30)
    token = ApiToken.objects.create(
        user=user, name=name, key_prefix=raw[:10], key_hash=hash_token(raw), project=project, role=role
    )
    return token, raw


def resolve_token(raw: str | None) -> ApiToken | None:
    """The live token for `raw`, or None if unknown or revoked."""
    if not raw or not raw.strip():
        return None
    token = (
        ApiToken.objects.select_related("user", "project")
        .filter(key_hash=hash_token(raw), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is not None and (token.last_used_at is None or (timezone.now() - token.last_used_at).total_seconds() > 60):
        # Touch at most once a minute: a tank pushing every second must not write a row every second.
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    if token is not None:
        bind_token(token.user, token)  # the request acts with at most the token's project and role
    return token


def revoke_token(token: ApiToken) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])


def rename_token(token: ApiToken, name: str) -> None:
    token.name = name
    token.save(update_fields=["name"])
