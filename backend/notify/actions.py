"""Writes of the notifications API as named actions: create a target (address checked, secrets encrypted), subscribe."""

from __future__ import annotations

import secrets as std_secrets
from typing import Any

from django.db import IntegrityError

from backend.notify import channels
from backend.notify.models import Subscription, Target, TargetKind
from backend.notify.secrets import encrypt


def create_target(owner: Any, data: dict[str, Any]) -> tuple[Target, str | None]:
    """The new target and, for a webhook, its signing key (shown once). AddressError names a bad field."""
    kind = data["kind"]
    secret: str | None = None
    chat_id = ""
    if kind == TargetKind.TELEGRAM:
        token = str(data.get("token") or "")
        chat_id = str(data.get("chat_id") or "")
        hint = channels.check_telegram(token, chat_id)
        address = token
    else:
        address = str(data.get("url") or "")
        if not address:
            raise channels.AddressError("url: required for this kind of target")
        hint = channels.check_url(address)
        if kind == TargetKind.WEBHOOK:
            secret = str(data.get("secret") or "") or std_secrets.token_urlsafe(32)
    target = Target.objects.create(
        owner=owner,
        kind=kind,
        name=data["name"],
        address_encrypted=encrypt(address),
        address_hint=hint,
        secret_encrypted=encrypt(secret or ""),
        chat_id=chat_id,
        for_tank_notify=bool(data.get("for_tank_notify", True)),
    )
    return target, (secret if kind == TargetKind.WEBHOOK and not data.get("secret") else None)


class AlreadySubscribed(ValueError):
    pass


def subscribe(project_id: int, component: str, target: Target, events: list[str], user: Any) -> Subscription:
    try:
        sub, _ = Subscription.objects.update_or_create(
            target=target,
            project_id=project_id,
            component=component,
            defaults={"events": sorted(set(events)), "created_by": user},
        )
    except IntegrityError as exc:  # a concurrent subscribe of the same pair
        raise AlreadySubscribed(f"target {target.pk} is already subscribed to {component!r}") from exc
    return sub
