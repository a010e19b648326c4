"""Encryption at rest of targets' URLs, bot tokens and signing keys (Fernet: AES-128-CBC + HMAC-SHA256).

The key is derived from `TANKODROM_NOTIFY_KEY` when set, else from `DJANGO_SECRET_KEY`: a database dump alone does
not reveal where messages go. Changing the key makes stored targets unreadable (their deliveries fail saying so).
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


class SecretUnreadable(Exception):
    """The stored value was encrypted with another key."""


def _fernet() -> Fernet:
    material = str(settings.TANKODROM_NOTIFY_KEY or settings.SECRET_KEY)
    key = hashlib.sha256(b"tankodrom-notify-v1\x00" + material.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def encrypt(plain: str) -> str:
    return _fernet().encrypt(plain.encode()).decode() if plain else ""


def decrypt(token: str) -> str:
    if not token:
        return ""
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise SecretUnreadable("the stored secret was encrypted with another key; enter the target again") from exc
