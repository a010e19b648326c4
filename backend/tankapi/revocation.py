"""Revoked API tokens, noted in Redis as they are revoked, so that the push path refuses them at once.

Why: a push authenticates its api_token from a per-process cache (push.py: no PostgreSQL query per push), so a
revocation would go unseen for the cache's lifetime. Instead the hash of every token that stops being valid (revoked,
deleted, its user deactivated) goes into a Redis set that the push's append script checks in the round trip it makes
anyway (buffer.REVOKED_TOKENS_KEY): refused at the next push, in every process, for the cost of one SISMEMBER in
Redis. If Redis cannot be told (down at that moment), the cache's expiry (push._TOKEN_TTL_S) still bounds it.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from django.contrib.auth.models import User
from django.db.models.signals import post_delete, post_save

from backend.loadtests.models import ApiToken
from backend.tankapi import buffer

log = logging.getLogger(__name__)


def _tell_redis(change: Any, token_hashes: list[str]) -> None:
    try:
        change(token_hashes)
    except redis.RedisError as exc:
        log.error(
            "could not note %d revoked API token(s) in Redis (cached ones expire anyway): %s", len(token_hashes), exc
        )


def _token_saved(instance: ApiToken, **_kwargs: Any) -> None:
    if instance.revoked_at is not None:
        _tell_redis(buffer.mark_revoked, [instance.key_hash])


def _token_deleted(instance: ApiToken, **_kwargs: Any) -> None:
    _tell_redis(buffer.mark_revoked, [instance.key_hash])


def _user_saved(instance: User, update_fields: Any = None, **_kwargs: Any) -> None:
    if update_fields is not None and "is_active" not in update_fields:
        return  # a login (last_login), a password change: nothing about the tokens
    live = list(ApiToken.objects.filter(user=instance, revoked_at__isnull=True).values_list("key_hash", flat=True))
    _tell_redis(buffer.unmark_revoked if instance.is_active else buffer.mark_revoked, live)


def connect() -> None:
    post_save.connect(_token_saved, sender=ApiToken, dispatch_uid="tankapi.revocation.token_saved")
    post_delete.connect(_token_deleted, sender=ApiToken, dispatch_uid="tankapi.revocation.token_deleted")
    post_save.connect(_user_saved, sender=User, dispatch_uid="tankapi.revocation.user_saved")
