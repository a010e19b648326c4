"""The ASGI door gunicorn serves (through uvicorn's worker): the tank's pushes answered on the event loop,
every other request handed to Django's WSGI application in a thread pool.

Why ASGI: at 500 tanks the server takes ~1000 small pushes a second on two cores. gunicorn's threaded worker
spent 340-830 µs of CPU per request before any application code ran (its Python HTTP parser, and a thread
hand-off from its poller to its pool and back for every keep-alive request; bench/tank_push/README.md), as much as
a push's own work. uvicorn parses HTTP in C (httptools) on one event loop per process: ~100 µs per request for the
same bare app, measured side by side. A push needs no thread: its work is CPU (validation) plus one Redis round
trip, awaited on the loop's own pipelined connection (buffer_async.py). It never waits on PostgreSQL there: a cache
miss raises push.NeedsDatabase before any side effect and the push is answered from a small thread pool instead,
since Django forbids ORM queries on an event loop and one would stall every connection of the process.

Django itself stays WSGI: its views are synchronous, the phout upload streams a multi-GB body through
request.stream, and a2wsgi runs them in threads with the body streamed from the event loop (a big phout body is
read from the socket by that thread instead: socket_body.py). Which requests take
the fast path, and what of Django's request cycle it keeps, is decided by fastpath.TankPushApp.route (the same
decision the WSGI entry makes), on the environ a2wsgi would hand Django.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from a2wsgi import WSGIMiddleware
from a2wsgi.wsgi import build_environ
from django.urls import Resolver404, resolve

from backend.tankapi import buffer, push, socket_body
from backend.tankapi.buffer_async import AsyncAppender
from backend.tankapi.fastpath import LENGTH_REQUIRED, Routed, TankPushApp, WsgiApp, log_if_refused, server_error
from backend.tankapi.wsgi_body import with_socket_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

Prepared = tuple[push.Outcome, Exception | None]  # the push's answer or pending append, and the exception of a 500

# Threads that answer the pushes the loop cannot: those needing PostgreSQL (a new test or token, the 10 s cache
# refresh), rare and short.
PUSH_THREADS = 4


def _is_phout_upload(path: str) -> bool:
    try:
        return resolve(path).url_name in ("upload-phout", "upload-results")  # one view, two paths
    except Resolver404:
        return False


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


def _outside_django(read: Callable[[Any], None], key: Any) -> None:
    # Outside Django's request cycle, as the pushes: push._Database then sends the request signals around the
    # query, which check and recycle this thread's connection (and close it where CONN_MAX_AGE is 0).
    push.request_cycle.outside_django = True
    try:
        read(key)
    finally:
        push.request_cycle.outside_django = False


class TokenLoader:
    """Reads an API token missing from the cache in a thread, once for all the pushes that wait for it (every tank
    of a CI user sends the same token: at its expiry, or at start, they would otherwise each take a thread)."""

    def __init__(self, threads: ThreadPoolExecutor) -> None:
        self.threads = threads
        self.reading: dict[str, asyncio.Future[None]] = {}

    async def load(self, raw: str) -> None:
        reading = self.reading.get(raw)
        if reading is None:
            reading = asyncio.get_running_loop().run_in_executor(self.threads, _outside_django, push.load_token, raw)
            self.reading[raw] = reading
            reading.add_done_callback(lambda _done: self.reading.pop(raw, None))
        await reading


class TestLoader:
    """Reads the tests that pushes on the event loop met for the first time, many per query, in a thread.

    Hundreds of tanks started together each send a first push within the same second; looked up one query each
    (in the few push threads) they queued for a second or more (bench/tank_push, the first seconds of a step).
    Here ids asked for while a query runs wait for the next one, which takes them all."""

    def __init__(self, threads: ThreadPoolExecutor) -> None:
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
        query = asyncio.get_running_loop().run_in_executor(self.threads, _outside_django, push.load_tests, list(batch))

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


class TankPushASGI:
    """ASGI application: push endpoints on the event loop, everything else to `django_app` (WSGI) in threads."""

    def __init__(self, django_app: WsgiApp, *, threads: int) -> None:
        self.pushes = TankPushApp(django_app)
        self.django = WSGIMiddleware(cast(Any, with_socket_body(django_app)), workers=threads)
        self.threads = ThreadPoolExecutor(PUSH_THREADS, thread_name_prefix="push")
        self.appender = AsyncAppender()
        self.tests = TestLoader(self.threads)
        self.tokens = TokenLoader(self.threads)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            if any(name == b"transfer-encoding" for name, _value in scope["headers"]):
                await self.refuse_chunked(scope, send)
                return
            if scope["method"] == "POST" and scope["path"].startswith("/api/"):
                # A file as wsgi.input, for log_if_refused's request object.
                environ = cast(dict[str, Any], build_environ(cast(Any, scope), cast(Any, io.BytesIO())))
                routed = self.pushes.route(environ)
                if routed is not None:
                    try:
                        body = await read_body(receive)
                    except ClientGone:
                        return
                    await self.push(environ, routed, body, send)
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

    @staticmethod
    async def refuse_chunked(scope: Scope, send: Send) -> None:
        answer = LENGTH_REQUIRED
        environ = cast(dict[str, Any], build_environ(cast(Any, scope), cast(Any, io.BytesIO())))
        log_if_refused(environ, answer, None)
        headers = [(b"content-type", answer.content_type.encode()), (b"connection", b"close")]
        await send({"type": "http.response.start", "status": answer.status, "headers": headers})
        await send({"type": "http.response.body", "body": answer.body})

    def prepare_on_loop(self, routed: Routed, body: bytes) -> Prepared | push.NeedsDatabase:
        """The push's answer or pending append, or what it needs from PostgreSQL, which the loop must not wait on."""
        push.request_cycle.database_allowed = False
        try:
            return self.pushes.prepare(routed, body)
        except push.NeedsDatabase as missing:
            return missing
        finally:
            push.request_cycle.database_allowed = True

    async def prepared(self, routed: Routed, body: bytes) -> Prepared:
        if buffer.raw_appends():  # (Redis over TLS only redis-py speaks: the whole push in a thread)
            for _missing in range(3):  # a new test, then a token, each read at most once here
                prepared = self.prepare_on_loop(routed, body)
                if not isinstance(prepared, push.NeedsDatabase):
                    return prepared
                try:
                    if prepared.test_id is not None:
                        await self.tests.load(prepared.test_id)
                    elif prepared.api_token is not None:
                        await self.tokens.load(prepared.api_token)
                    else:
                        break  # the cache's refresh
                except Exception:  # PostgreSQL down, say: the thread below meets it again and answers as Django would
                    break
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.threads, self.pushes.answer, routed, body)

    async def append(self, pending: push.Append) -> tuple[push.Answer, Exception | None]:
        try:
            await self.appender.append(pending.kind, pending.job, pending.rows, pending.token_hash)
        except push.APPEND_REFUSALS as exc:
            return push.refused(pending.job, exc), None
        except Exception as exc:
            return server_error(exc)
        return pending.ok, None

    async def push(self, environ: dict[str, Any], routed: Routed, body: bytes, send: Send) -> None:
        outcome, failure = await self.prepared(routed, body)
        if isinstance(outcome, push.Append):
            answer, failure = await self.append(outcome)
        else:
            answer = outcome
        log_if_refused(environ, answer, failure)
        pairs = self.pushes.headers(answer, routed)
        headers = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in pairs]
        await send({"type": "http.response.start", "status": answer.status, "headers": headers})
        await send({"type": "http.response.body", "body": answer.body})
