"""Django authentication backends for the local accounts and for sessions opened by a sign-on.

Password checks go through `django.contrib.auth.authenticate`, which asks each backend of AUTHENTICATION_BACKENDS in
turn: the login form, the admin site's login and anything else that checks a password. Turning local login off here
therefore refuses every local password check at once, not only the form's.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.http import HttpRequest


def local_login_enabled() -> bool:
    return bool(settings.TANKODROM_LOCAL_LOGIN)


class LocalPasswordBackend(ModelBackend):
    """Django's own password check, answered only while TANKODROM_LOCAL_LOGIN is on.

    Accounts made by a sign-on have no usable password, so this never lets anyone in as one of them.
    """

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        if not local_login_enabled():
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


class SignOnSessionBackend(ModelBackend):
    """The backend a session opened by OpenID Connect is recorded with: it loads the session's user (active users
    only, as ModelBackend does) and checks no password."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> User | None:
        return None


SIGN_ON_SESSION_BACKEND = f"{SignOnSessionBackend.__module__}.{SignOnSessionBackend.__qualname__}"
