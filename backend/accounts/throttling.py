"""Rate limits on writes, counted in the shared cache (Redis) so every web worker sees the same counts.

Writes are limited per authenticated user: anonymous writes are refused by the views anyway (401/403), and
counting them per address would let one noisy client behind a proxy lock out everyone behind it. Reads are not
limited, with one exception: an anonymous reader asking a report for a window, cases or levels of its own makes the
server read ClickHouse (the default view is served from the post-processing cache), so those reads are counted per
client address (`anonymous_heavy_read`): a burst of strangers cannot keep the storage busy. A chat unfurl, the
default view and anything a signed-in user asks are never limited. The login form has its own, much smaller rate
per client address and username, to slow down password guessing.
"""

from __future__ import annotations

import hashlib
import time
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

if TYPE_CHECKING:  # rest_framework.views imports the throttle classes named in settings: no cycle at run time
    from rest_framework.views import APIView

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Login attempts allowed from one address, across usernames, as a multiple of the per-username rate.
LOGIN_ADDRESS_FACTOR = 5


class WriteRateThrottle(SimpleRateThrottle):
    scope = "write"

    def get_rate(self) -> str | None:
        # DRF copies the rates into a class attribute at import; read them live so settings overrides apply.
        return str(_rates()[self.scope])

    def allow_request(self, request: Request, view: APIView) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: APIView) -> str | None:
        user = request.user
        if user is None or not user.is_authenticated:
            return None  # not throttled: the view refuses it
        return self.cache_format % {"scope": self.scope, "ident": user.pk}


def _parse_rate(rate: str) -> tuple[int, int]:
    """'10/min' -> (10, 60), as DRF reads its rates, so one notation serves both limits."""
    num, period = rate.split("/")
    return int(num), {"s": 1, "m": 60, "h": 3600, "d": 86400}[period[0]]


def _rates() -> dict[str, Any]:
    rates: dict[str, Any] = api_settings.DEFAULT_THROTTLE_RATES
    return rates


def _rate(scope: str) -> tuple[int, int]:
    return _parse_rate(str(_rates()[scope]))


def _count_in_window(key: str, window_s: int) -> int:
    """One more hit on a fixed-window counter; returns the count so far in this window."""
    # add() creates the counter with its expiry only if absent, so the window starts at the first hit.
    cache.add(key, 0, timeout=window_s)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=window_s)
        return 1


def client_address(request: HttpRequest) -> str:
    """The client's address; behind a trusted proxy (settings_prod) the last X-Forwarded-For entry, which that
    proxy appended: earlier entries come from the client and may be forged."""
    header = str(settings.TANKODROM_CLIENT_ADDRESS_HEADER)
    if header:
        forwarded = [part.strip() for part in str(request.META.get(header, "")).split(",") if part.strip()]
        if forwarded:
            return forwarded[-1]
    return str(request.META.get("REMOTE_ADDR", "") or "unknown")


def login_allowed(request: HttpRequest, username: str) -> bool:
    """Count one login attempt for this client address and username; False once over the login rate.

    A fixed window per (address, username): one INCR per attempt, and enough to make guessing impractical.
    """
    limit, window_s = _rate("login")
    address = client_address(request)
    # Hashed: a username may hold characters that are not valid in cache keys.
    who = hashlib.sha256(f"{address}|{username.strip().lower()}".encode()).hexdigest()[:32]
    where = hashlib.sha256(address.encode()).hexdigest()[:32]
    per_user = _count_in_window(f"throttle_login_{who}", window_s)
    # One address trying many usernames is guessing too; a shared office address still gets room to work.
    per_address = _count_in_window(f"throttle_login_addr_{where}", window_s)
    return per_user <= limit and per_address <= limit * LOGIN_ADDRESS_FACTOR


def page_write_allowed(user_pk: int) -> bool:
    """The write rate for form posts of the server-rendered pages (the JSON API uses WriteRateThrottle)."""
    limit, window_s = _rate("write")
    return _count_in_window(f"throttle_page_write_{user_pk}", window_s) <= limit


def anonymous_heavy_read(request: HttpRequest) -> None:
    """Count an anonymous read that ClickHouse must answer (a window of one's own) for the client's address; raise
    DRF's Throttled (429 with Retry-After: when the window turns) once over TANKODROM_ANON_READ_RATE. Fixed windows
    aligned to the clock, so the wait is known without asking Redis for the counter's expiry."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return
    limit, window_s = _rate("anon_read")
    now = time.time()
    window = int(now // window_s)
    where = hashlib.sha256(client_address(request).encode()).hexdigest()[:32]
    if _count_in_window(f"throttle_anon_read_{where}_{window}", window_s) > limit:
        wait_s = max(1, int(window_s - now % window_s) + 1)
        raise Throttled(
            wait=wait_s,
            detail=f"too many reports of your own windows from your address: log in, or retry in {wait_s} s",
        )
