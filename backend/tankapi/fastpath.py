"""The WSGI fast path for the tank's pushes: push_data, the monitoring push and the writer endpoint, served in front
of Django's middleware and URL resolver; every other request goes to Django unchanged.

Why: at 500 tanks the server takes ~1000 pushes a second on two cores, and Django's request cycle (request object,
session, CSRF, auth and messages middleware, URL resolution, response object) cost as much CPU as a push's own work
(bench/tank_push). None of it applies to a push: the views are CSRF-exempt, authenticate by the query string's
tokens and touch no session. What does apply is kept, decided by Django's own code where it matters:
  * the Host check (ALLOWED_HOSTS, through HttpRequest.get_host), the HTTPS redirect (SECURE_SSL_REDIRECT) and the
    security headers (SecurityMiddleware, XFrameOptionsMiddleware), computed once per distinct (Host, scheme)
    profile and cached;
  * the body size limit (backend.accounts.middleware.body_limit_for);
  * request_started / request_finished, so database connections are checked and recycled as in a Django request;
    sent around the push path's PostgreSQL reads only (push._Database), since a push whose test and token are
    cached touches no database.
Whatever the fast path does not fully understand goes to Django, which answers it through the same push.py
functions: other methods (405), no Content-Length, a body over the limit (413), a disallowed Host (400),
an HTTP request to be redirected to HTTPS, a malformed query string, DISALLOWED_USER_AGENTS or PREPEND_WWW set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import setting_changed
from django.http import HttpResponse, QueryDict
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware
from django.utils.log import log_response

from backend.accounts.middleware import body_limit_for
from backend.core.middleware import ContentSecurityPolicyMiddleware
from backend.tankapi import push

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
Handler = Callable[[re.Match[str], QueryDict, bytes], push.Outcome]
# What route() found: the handler, its path match, the query, the body's length and the security headers to add.
Routed = tuple[Handler, re.Match[str], QueryDict, int, tuple[tuple[str, str], ...]]


def _django_form_to_wsgi(pattern: str) -> re.Pattern[str]:
    # Django resolves "api/..." (no leading slash); PATH_INFO is "/api/...".
    assert pattern.startswith("^")
    return re.compile("^/" + pattern[1:])


ROUTES: tuple[tuple[re.Pattern[str], Handler], ...] = (
    (_django_form_to_wsgi(push.PUSH_DATA_PATH), lambda m, q, b: push.push_data(int(m["job"]), q, b)),
    (_django_form_to_wsgi(push.PUSH_MONITORING_PATH), lambda _m, q, b: push.push_monitoring(q, b)),
    (_django_form_to_wsgi(push.WRITER_PATH), lambda _m, q, b: push.writer_push(q, b)),
)

# Headers that decide how Django would treat the request before any view (Host check, HTTPS detection).
_PROFILE_KEYS = ("HTTP_HOST", "HTTP_X_FORWARDED_HOST", "HTTP_X_FORWARDED_PORT", "HTTP_X_FORWARDED_PROTO")
_PROFILE_CACHE_MAX = 256  # Host is chosen by the client: bound what it can make us keep

_profiles: dict[tuple[Any, ...], tuple[tuple[str, str], ...] | None] = {}
_STATUS_LINES: dict[int, str] = {}


def _forget_profiles(**_kwargs: object) -> None:
    # Tests override ALLOWED_HOSTS and the SECURE_* settings; a cached decision must not outlive them.
    _profiles.clear()


setting_changed.connect(_forget_profiles)


def _profile_key(environ: dict[str, Any]) -> tuple[Any, ...]:
    proxy_ssl_header = settings.SECURE_PROXY_SSL_HEADER
    return (
        *(environ.get(key) for key in _PROFILE_KEYS),
        environ.get(proxy_ssl_header[0]) if proxy_ssl_header else None,
        environ.get("wsgi.url_scheme"),
    )


def _compute_profile(environ: dict[str, Any]) -> tuple[tuple[str, str], ...] | None:
    """The headers Django's middleware would add to a push answer, or None when Django must take the request."""
    if settings.DISALLOWED_USER_AGENTS or settings.PREPEND_WWW:
        return None
    request = WSGIRequest(environ)  # reads no body; only its headers are looked at
    try:
        request.get_host()
    except DisallowedHost:
        return None
    if settings.SECURE_SSL_REDIRECT and not request.is_secure():
        return None
    response = HttpResponse(b"")
    del response.headers["Content-Type"]
    SecurityMiddleware(lambda _r: response).process_response(request, response)
    XFrameOptionsMiddleware(lambda _r: response).process_response(request, response)
    ContentSecurityPolicyMiddleware(lambda _r: response)(request)
    return tuple(response.items())


def _profile(environ: dict[str, Any]) -> tuple[tuple[str, str], ...] | None:
    if "HTTP_HOST" not in environ:
        return None  # HTTP/1.0 without Host: Django builds the host from SERVER_NAME and the port
    key = _profile_key(environ)
    try:
        return _profiles[key]
    except KeyError:
        pass
    profile = _compute_profile(environ)
    if len(_profiles) >= _PROFILE_CACHE_MAX:
        _profiles.clear()
    _profiles[key] = profile
    return profile


def _match_route(path: str) -> tuple[Handler, re.Match[str]] | None:
    for pattern, handler in ROUTES:
        match = pattern.match(path)
        if match is not None:
            return handler, match
    return None


def _status_line(status: int) -> str:
    line = _STATUS_LINES.get(status)
    if line is None:
        line = _STATUS_LINES[status] = f"{status} {HTTPStatus(status).phrase}"
    return line


def log_if_refused(environ: dict[str, Any], answer: push.Answer, exception: Exception | None) -> None:
    """The `django.request` record Django writes for a 4xx (warning) or 5xx (error) answer, with the traceback of an
    exception, so refused pushes show in the logs the same way whichever door they came through. Only on errors: it
    builds a request object."""
    if answer.status < 400:
        return
    request = WSGIRequest(environ)
    response = HttpResponse(status=answer.status)
    log_response(
        "%s: %s", response.reason_phrase, request.path, response=response, request=request, exception=exception
    )


# Django reads a body by its Content-Length (HttpRequest.body, LimitedStream): a chunked one would reach a view as no
# body at all, and be taken for an empty push or an empty test. Both doors refuse it before routing.
LENGTH_REQUIRED = push.error("send the request body with a Content-Length header: chunked bodies are not read", 411)


def is_chunked(environ: dict[str, Any]) -> bool:
    return "HTTP_TRANSFER_ENCODING" in environ


def server_error(exc: Exception) -> tuple[push.Answer, Exception]:
    # What Django's handler does with an exception in a view: log it with its traceback (log_if_refused), answer 500
    # (the tank retries on 5xx).
    return push.error("internal server error", 500), exc


class TankPushApp:
    """WSGI middleware: the push endpoints here, everything else (and anything unusual) to `django_app`."""

    def __init__(self, django_app: WsgiApp) -> None:
        self.django_app = django_app

    def route(self, environ: dict[str, Any]) -> Routed | None:
        """What the fast path needs to serve this request, or None to leave it to Django."""
        if environ.get("REQUEST_METHOD") != "POST":
            return None
        path = environ.get("PATH_INFO", "")
        if not path.startswith("/api/"):
            return None
        found = _match_route(path)
        if found is None:
            return None
        handler, match = found
        try:
            length = int(environ.get("CONTENT_LENGTH") or "")
        except ValueError:
            return None  # no or a bad header: Django's answer (empty body, or 400)
        if not 0 <= length <= body_limit_for(path)[0]:
            return None  # Django answers 413 naming the limit
        profile = _profile(environ)
        if profile is None:
            return None
        try:
            # As WSGIRequest.GET: the raw bytes of QUERY_STRING, decoded by QueryDict.
            query = QueryDict(environ.get("QUERY_STRING", "").encode("iso-8859-1"))
        except Exception:  # TooManyFieldsSent, or a QUERY_STRING that is not latin-1: Django's 400
            return None
        return handler, match, query, length, profile

    @staticmethod
    def prepare(routed: Routed, body: bytes) -> tuple[push.Outcome, Exception | None]:
        """The push's answer or its pending append, and the exception behind a 500. Raises push.NeedsDatabase
        (nothing done) where the calling thread may not query PostgreSQL (the ASGI door's event loop)."""
        handler, match, query, _length, _profile = routed
        push.request_cycle.outside_django = True
        try:
            return handler(match, query, body), None
        except push.NeedsDatabase:
            raise
        except Exception as exc:
            return server_error(exc)
        finally:
            push.request_cycle.outside_django = False

    @classmethod
    def answer(cls, routed: Routed, body: bytes) -> tuple[push.Answer, Exception | None]:
        """The push's answer, its append done on this thread (blocking)."""
        outcome, failure = cls.prepare(routed, body)
        try:
            return push.complete(outcome), failure
        except Exception as exc:
            return server_error(exc)

    @staticmethod
    def headers(answer: push.Answer, routed: Routed) -> list[tuple[str, str]]:
        return [("Content-Type", answer.content_type), ("Content-Length", str(len(answer.body))), *routed[4]]

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if is_chunked(environ):
            answer = LENGTH_REQUIRED
            log_if_refused(environ, answer, None)
            start_response(_status_line(answer.status), [("Content-Type", answer.content_type)])
            return [answer.body]
        routed = self.route(environ)
        if routed is None:
            return self.django_app(environ, start_response)
        length = routed[3]
        failure: Exception | None
        try:
            body = environ["wsgi.input"].read(length) if length else b""
        except Exception as exc:  # the client went away mid-body: logged as Django would, answered 500
            answer, failure = server_error(exc)
        else:
            answer, failure = self.answer(routed, body)
        log_if_refused(environ, answer, failure)
        start_response(_status_line(answer.status), self.headers(answer, routed))
        return [answer.body]
