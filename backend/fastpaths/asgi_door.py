"""The server adapter gunicorn serves (deploy/gunicorn.conf.py: uvicorn's worker on backend.asgi): the tank's pushes
answered on the event loop through the protocol core (push.py), every other request handed to Django's WSGI
application in a thread pool (a2wsgi). Why ASGI, and why the pushes on the loop: bench/tank_push/README.md.

A push needs no thread: its work is CPU (validation) plus one Redis round trip, awaited on the loop's pipelined
connection (buffer_async.py). It never waits on PostgreSQL on the loop (Django forbids ORM queries there, and one
would stall every connection of the process): the core answers push.Missing and the read is done in a small thread
pool, the first pushes of many new tests in one query (TestLoader), a token once for all the pushes waiting for it
(TokenLoader); then the push is checked again on the loop.

What of Django's request cycle a push keeps is decided by Django's own code where it matters:
  * the Host check (ALLOWED_HOSTS, through HttpRequest.get_host), the HTTPS redirect (SECURE_SSL_REDIRECT) and the
    security headers (SecurityMiddleware, XFrameOptionsMiddleware, the CSP middleware), computed once per distinct
    (Host, scheme) profile and cached;
  * the body size limit (backend.core.body_limit.body_limit_for);
  * request_started / request_finished around the push path's PostgreSQL reads (the loaders), so database
    connections are checked and recycled as in a Django request; a push whose test and token are cached touches no
    database and sends none.
Whatever the door does not fully understand goes to Django, whose views (views.py) answer it through the same core:
other methods (405), no Content-Length, a body over the limit (413), a disallowed Host (400), an HTTP request to be
redirected to HTTPS, a malformed query string, DISALLOWED_USER_AGENTS or PREPEND_WWW set. A chunked body is refused
(411) before routing, whichever way it would go.

A big phout upload's body is read from the socket by Django's thread instead of through the loop (socket_body.py).
The online pages' Server-Sent Events are checked by Django, then streamed on the loop (backend/live/sse.py).
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, TypeVar, cast

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest
from django.core.signals import request_finished, request_started, setting_changed
from django.http import HttpResponse, QueryDict
from django.middleware.clickjacking import XFrameOptionsMiddleware
from django.middleware.security import SecurityMiddleware
from django.urls import Resolver404, resolve
from django.utils.log import log_response

from backend.core.body_limit import body_limit_for
from backend.core.cache_scope import CacheScopeMiddleware
from backend.core.middleware import ContentSecurityPolicyMiddleware
from backend.fastpaths import socket_body
from backend.fastpaths.buffer_async import AsyncAppender
from backend.live import publish as live
from backend.live.sse import LiveDoor, is_live
from backend.tankapi import buffer, push, static_door

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
Handler = Callable[[re.Match[str], QueryDict, bytes, bool], push.Outcome]
Headers = tuple[tuple[str, str], ...]
T = TypeVar("T")

# Threads that read PostgreSQL for the pushes the loop cannot check yet (a new test or token, the 10 s cache
# refresh), rare and short; and that append over TLS, which only redis-py speaks here.
PUSH_THREADS = 4


def _django_form_to_path(pattern: str) -> re.Pattern[str]:
    # Django resolves "api/..." (no leading slash); the scope's path is "/api/...".
    assert pattern.startswith("^")
    return re.compile("^/" + pattern[1:])


ROUTES: tuple[tuple[re.Pattern[str], Handler], ...] = (
    (_django_form_to_path(push.PUSH_DATA_PATH), lambda m, q, b, db: push.push_data(int(m["job"]), q, b, db)),
    (_django_form_to_path(push.PUSH_MONITORING_PATH), lambda _m, q, b, db: push.push_monitoring(q, b, db)),
    (_django_form_to_path(push.WRITER_PATH), lambda _m, q, b, db: push.writer_push(q, b, db)),
)


class Routed:
    """A push the door serves: its handler with the path's match and the query, and the headers Django adds."""

    __slots__ = ("handler", "headers", "match", "query")

    def __init__(self, handler: Handler, match: re.Match[str], query: QueryDict, headers: Headers) -> None:
        self.handler, self.match, self.query, self.headers = handler, match, query, headers

    def outcome(self, body: bytes, may_query: bool) -> push.Outcome:
        return self.handler(self.match, self.query, body, may_query)


# ── What Django's middleware would do with a push: decided once per request profile ──────────────────────────

_PROFILE_CACHE_MAX = 256  # Host is chosen by the client: bound what it can make us keep
_profiles: dict[tuple[Any, ...], Headers | None] = {}


def _forget_profiles(**_kwargs: object) -> None:
    # Tests override ALLOWED_HOSTS and the SECURE_* settings; a cached decision must not outlive them.
    _profiles.clear()


setting_changed.connect(_forget_profiles)


def _header_name(meta_key: str) -> bytes:
    return meta_key.removeprefix("HTTP_").replace("_", "-").lower().encode("latin-1")


def _profile_key(scope: Scope) -> tuple[Any, ...]:
    # The headers that decide how Django treats the request before any view (Host check, HTTPS detection).
    names = {b"host", b"x-forwarded-host", b"x-forwarded-port", b"x-forwarded-proto"}
    if settings.SECURE_PROXY_SSL_HEADER:
        names.add(_header_name(settings.SECURE_PROXY_SSL_HEADER[0]))
    return (scope.get("scheme"), *((name, value) for name, value in scope["headers"] if name in names))


def request_of(scope: Scope) -> ASGIRequest:
    """Django's request object for the scope, without its body (only its headers are looked at)."""
    return ASGIRequest(cast(dict[str, Any], scope), io.BytesIO())


def _compute_profile(scope: Scope) -> Headers | None:
    """The headers Django's middleware would add to a push answer, or None when Django must take the request."""
    if settings.DISALLOWED_USER_AGENTS or settings.PREPEND_WWW:
        return None
    request = request_of(scope)
    try:
        request.get_host()
    except DisallowedHost:
        return None
    if settings.SECURE_SSL_REDIRECT and not request.is_secure():
        return None
    response = HttpResponse(b"")
    del response.headers["Content-Type"]
    response["Cache-Control"] = push.CACHE_CONTROL  # as tankapi.views._answer sets it
    SecurityMiddleware(lambda _r: response).process_response(request, response)
    XFrameOptionsMiddleware(lambda _r: response).process_response(request, response)
    ContentSecurityPolicyMiddleware(lambda _r: response)(request)
    CacheScopeMiddleware(lambda _r: response)(request)
    return tuple(response.items())


def _profile(scope: Scope) -> Headers | None:
    if not any(name == b"host" for name, _value in scope["headers"]):
        return None  # HTTP/1.0 without Host: Django builds the host from the server's name and port
    key = _profile_key(scope)
    try:
        return _profiles[key]
    except KeyError:
        pass
    profile = _compute_profile(scope)
    if len(_profiles) >= _PROFILE_CACHE_MAX:
        _profiles.clear()
    _profiles[key] = profile
    return profile


def _content_length(scope: Scope) -> int | None:
    length = None
    for name, value in scope["headers"]:
        if name == b"content-length":
            if length is not None or not value.isdigit():
                return None
            length = int(value)
    return length


def route(scope: Scope) -> Routed | None:
    """What the door needs to serve this request as a push, or None to leave it to Django."""
    if scope["method"] != "POST":
        return None
    path: str = scope["path"]
    if not path.startswith("/api/"):
        return None
    for pattern, handler in ROUTES:  # noqa: B007  (the handler of the matching pattern is kept)
        match = pattern.match(path)
        if match is not None:
            break
    else:
        return None
    length = _content_length(scope)
    if length is None or length > body_limit_for(path)[0]:
        return None  # no or a bad header: Django's answer (empty body, or 400); over the limit: Django's 413
    profile = _profile(scope)
    if profile is None:
        return None
    try:
        query = QueryDict(scope.get("query_string", b""))
    except Exception:  # TooManyFieldsSent: Django's 400
        return None
    return Routed(handler, match, query, profile)


def _is_phout_upload(path: str) -> bool:
    try:
        return resolve(path).url_name in ("upload-phout", "upload-results")  # one view, two paths
    except Resolver404:
        return False


# ── Answers ──────────────────────────────────────────────────────────────────────────────────────────────────

# Django reads a body by its Content-Length (HttpRequest.body, LimitedStream): a chunked one would reach a view as no
# body at all, and be taken for an empty push or an empty test. Refused before routing.
LENGTH_REQUIRED = push.error("send the request body with a Content-Length header: chunked bodies are not read", 411)


def log_if_refused(scope: Scope, answer: push.Answer, exception: Exception | None) -> None:
    """The `django.request` record Django writes for a 4xx (warning) or 5xx (error) answer, with the traceback of an
    exception, so refused pushes show in the logs as Django's views' do. Only on errors: it builds a request."""
    if answer.status < 400:
        return
    request = request_of(scope)
    response = HttpResponse(status=answer.status)
    log_response(
        "%s: %s", response.reason_phrase, request.path, response=response, request=request, exception=exception
    )


def server_error(exc: Exception) -> tuple[push.Answer, Exception]:
    # What Django's handler does with an exception in a view: log it with its traceback (log_if_refused), answer 500
    # (the tank retries on 5xx).
    return push.error("internal server error", 500), exc


async def _send(send: Send, answer: push.Answer, headers: Iterable[tuple[str, str]]) -> None:
    encoded = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]
    await send({"type": "http.response.start", "status": answer.status, "headers": encoded})
    await send({"type": "http.response.body", "body": answer.body})


class ClientGone(Exception):
    """The client disconnected before sending its whole body: nothing to answer."""


async def read_body(receive: Receive) -> bytes:
    """The whole request body (as long as its Content-Length, which route() bounded and the HTTP parser enforces)."""
    chunks: list[bytes] = []
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientGone
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def lifespan(receive: Receive, send: Send) -> None:
    """Nothing to start or stop: Django opens its connections lazily, per thread."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


# ── PostgreSQL reads, off the loop ───────────────────────────────────────────────────────────────────────────


def in_request_cycle(read: Callable[..., T], *args: Any) -> T:
    """`read` wrapped in Django's request signals, which check and recycle this thread's database connection (and
    close it where CONN_MAX_AGE is 0), as around a Django request."""
    request_started.send(sender=TankPushASGI, environ={})
    try:
        return read(*args)
    finally:
        request_finished.send(sender=TankPushASGI)


class TokenLoader:
    """Reads an API token missing from the cache in a thread, once for all the pushes that wait for it (every tank
    of a CI user sends the same token: at its expiry, or at start, they would otherwise each take a thread)."""

    def __init__(self, threads: Executor) -> None:
        self.threads = threads
        self.reading: dict[str, asyncio.Future[None]] = {}

    async def load(self, raw: str) -> None:
        reading = self.reading.get(raw)
        if reading is None:
            loop = asyncio.get_running_loop()
            reading = loop.run_in_executor(self.threads, in_request_cycle, push.load_token, raw)
            self.reading[raw] = reading
            reading.add_done_callback(lambda _done: self.reading.pop(raw, None))
        await reading


class TestLoader:
    """Reads the tests that pushes on the event loop met for the first time, many per query, in a thread: hundreds
    of tanks started together each send a first push within the same second. Ids asked for while a query runs wait
    for the next one, which takes them all."""

    __test__ = False  # not a pytest test class

    def __init__(self, threads: Executor) -> None:
        self.threads = threads
        self.waiting: dict[int, list[asyncio.Future[None]]] = {}
        self.running = False

    async def load(self, test_id: int) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(test_id, []).append(future)
        if not self.running:
            self._start()
        await future

    def _start(self) -> None:
        batch, self.waiting = self.waiting, {}
        self.running = True
        loop = asyncio.get_running_loop()
        # push.load_tests is looked up at each query (tests count its calls).
        query = loop.run_in_executor(self.threads, in_request_cycle, push.load_tests, list(batch))

        def done(finished: asyncio.Future[None]) -> None:
            failure = finished.exception()
            for futures in batch.values():
                for future in futures:
                    if not future.done():
                        if failure is None:
                            future.set_result(None)
                        else:
                            future.set_exception(failure)
            self.running = False
            if self.waiting:
                self._start()

        query.add_done_callback(done)


# ── The door ─────────────────────────────────────────────────────────────────────────────────────────────────


class TankPushASGI:
    """ASGI application: push endpoints on the event loop, everything else to `django_app` (WSGI) in threads.
    `push_threads`: where the pushes' PostgreSQL reads (and TLS appends) run, a pool of PUSH_THREADS by default."""

    def __init__(self, django_app: WsgiApp, *, threads: int, push_threads: Executor | None = None) -> None:
        self.django = WSGIMiddleware(cast(Any, socket_body.with_socket_body(django_app)), workers=threads)
        self.threads = push_threads or ThreadPoolExecutor(PUSH_THREADS, thread_name_prefix="push")
        self.appender = AsyncAppender()
        self.tests = TestLoader(self.threads)
        self.tokens = TokenLoader(self.threads)
        self.live = LiveDoor()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            if any(name == b"transfer-encoding" for name, _value in scope["headers"]):
                log_if_refused(scope, LENGTH_REQUIRED, None)
                await _send(
                    send, LENGTH_REQUIRED, [("Content-Type", LENGTH_REQUIRED.content_type), ("Connection", "close")]
                )
                return
            static_file = static_door.lookup(scope)
            if static_file is not None:
                profile = _profile(scope)
                if profile is not None:  # else Django decides (Host, HTTPS redirect), WhiteNoise answering there
                    await static_door.serve(scope, send, static_file, profile)
                    return
            routed = route(scope)
            if routed is not None:
                try:
                    body = await read_body(receive)
                except ClientGone:
                    return
                await self.push(scope, routed, body, send)
                return
            if is_live(scope):  # the online pages' events: checked by Django, streamed on this loop
                await self.live.serve(scope, receive, send, self.django)  # type: ignore[arg-type]
                return
            if scope["method"] == "PUT" and _is_phout_upload(scope["path"]):
                taken_over = socket_body.take_over(scope, receive)
                if taken_over is not None:  # the body is read by Django's thread from the socket, not on this loop
                    try:
                        scope = {**scope, socket_body.SCOPE_KEY: taken_over}
                        await self.django(scope, socket_body.no_body, send)  # type: ignore[arg-type]
                    finally:
                        taken_over.close()
                    return
            await self.django(scope, receive, send)  # type: ignore[arg-type]
        elif kind == "lifespan":
            await lifespan(receive, send)
        else:  # websocket: none served
            await send({"type": "websocket.close", "code": 1000})

    async def checked(self, routed: Routed, body: bytes) -> push.Answer | push.Append:
        """The push's answer or pending append: checked on the loop, what it misses read in a thread first."""
        for reads in range(4):  # the refresh, a new test, a token: each read at most once here
            outcome = routed.outcome(body, may_query=False)
            if not isinstance(outcome, push.Missing):
                return outcome
            if reads == 3:
                break
            if outcome.test_id is not None:
                await self.tests.load(outcome.test_id)
            elif outcome.api_token is not None:
                await self.tokens.load(outcome.api_token)
            else:
                await self.run_in_thread(push.refresh_tests)
        # Still missing (the caches were cleared meanwhile): checked in a thread that may query.
        outcome = await self.run_in_thread(routed.outcome, body, True)
        assert not isinstance(outcome, push.Missing)
        return outcome

    async def run_in_thread(self, read: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.threads, in_request_cycle, read, *args)

    async def append(self, pending: push.Append) -> None:
        if buffer.speaks_plain_resp():
            await self.appender.append(pending.kind, pending.job, pending.rows, pending.token_hash)
        else:
            append = buffer.append
            await asyncio.get_running_loop().run_in_executor(
                self.threads, lambda: append(pending.kind, pending.job, pending.rows, token_hash=pending.token_hash)
            )

    async def answer(self, routed: Routed, body: bytes) -> tuple[push.Answer, Exception | None]:
        """The push's answer, and the exception behind a 500."""
        try:
            outcome = await self.checked(routed, body)
            if isinstance(outcome, push.Answer):
                return outcome, None
            try:
                await self.append(outcome)
            except push.APPEND_REFUSALS as exc:
                return push.refused(outcome.job, exc), None
            if outcome.kind == buffer.KIND_DATA_ROWS:
                # The online pages' event, off the loop and not awaited: the push is answered at once.
                asyncio.get_running_loop().run_in_executor(self.threads, live.second_pushed, outcome.job, outcome.rows)
            return outcome.ok, None
        except Exception as exc:  # PostgreSQL down, say: answered as Django would
            return server_error(exc)

    async def push(self, scope: Scope, routed: Routed, body: bytes, send: Send) -> None:
        answer, failure = await self.answer(routed, body)
        log_if_refused(scope, answer, failure)
        content = (("Content-Type", answer.content_type), ("Content-Length", str(len(answer.body))))
        await _send(send, answer, (*content, *routed.headers))
