"""Production settings: the base settings hardened for an instance reachable from other machines.

`DJANGO_SETTINGS_MODULE=backend.settings_prod python manage.py check --deploy` is clean with the defaults below.
Every knob comes through backend.env and is documented in deploy/env.example. HTTPS is assumed (TLS terminated by
this server's proxy or load balancer, which sets X-Forwarded-Proto); an instance served over plain HTTP on a
trusted network sets TANKODROM_HTTPS=0 and accepts the warnings `check --deploy` then prints.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from backend import env
from backend.settings import *  # noqa: F403
from backend.settings import VAR_DIR


def _secret_key() -> str:
    """DJANGO_SECRET_KEY if set; otherwise a random key kept in a file, created with mode 0600 on first start.

    A self-hosted instance then has a key of its own without an operator step, and it survives restarts (sessions
    and CSRF tokens stay valid) because the file lives in the persistent var directory.
    """
    from_env = env.get_str("DJANGO_SECRET_KEY", "")
    if from_env:
        return from_env
    path = Path(env.get_str("TANKODROM_SECRET_KEY_FILE", str(VAR_DIR / "secret_key")))
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL: two workers starting together must not both write a key; the loser reads the winner's.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


DEBUG = False
SECRET_KEY = _secret_key()

_https = env.get_bool("TANKODROM_HTTPS", True)
# Behind a TLS-terminating proxy the request reaches us as HTTP; the proxy's header says what the client used.
if env.get_bool("TANKODROM_BEHIND_PROXY", True):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # Every request arrives from the proxy's address: rate limits per client read the address it forwards.
    TANKODROM_CLIENT_ADDRESS_HEADER = "HTTP_X_FORWARDED_FOR"
SECURE_SSL_REDIRECT = _https
SESSION_COOKIE_SECURE = _https
CSRF_COOKIE_SECURE = _https
SECURE_HSTS_SECONDS = env.get_int("DJANGO_HSTS_SECONDS", 31_536_000) if _https else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.get_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env.get_bool("DJANGO_HSTS_PRELOAD", True)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
# The SPA reads the CSRF cookie to send it back in a header, so it cannot be HttpOnly.
CSRF_COOKIE_HTTPONLY = False
SESSION_COOKIE_AGE = env.get_int("DJANGO_SESSION_COOKIE_AGE_S", 14 * 24 * 3600)
