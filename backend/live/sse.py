"""The online pages' Server-Sent Events on the ASGI door's event loop (backend/fastpaths/asgi_door.py).

Django answers first (views.py: the access check, in its thread pool, with its whole request cycle). When it lets
the caller in, its answer is not sent: the door keeps the connection, sends Django's headers (security headers,
cookies) with the stream's own and the history, then hands the connection to the process' subscriber (hub.py),
which writes each live event to it (live_direct.py); where it cannot, the stream sends the events the hub leaves in its
mailbox. A watcher is a coroutine waiting for its end, never a thread. Any other answer of Django's (401, 404) goes
out as is.

Resuming: the browser's EventSource sends the id of the last event it saw (Last-Event-ID; a page that fell back to
polling names it as ?last_event_id=); the history gives every event after it, then the live ones follow, each sent
once (ids only grow). A first connection gets the newest event and every one after it, so the page's live figures
show at once.

The end (the hub closed the stream: a deploy, a slow watcher; or the client left) goes through `send`. A client too
slow to take it within END_WAIT_S has its connection dropped instead: it reconnects and resumes all the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from django.http import QueryDict

from backend.fastpaths import live_direct
from backend.live import channel
from backend.live.hub import KEEPALIVE, KEEPALIVE_S, Hub
from backend.live.views import LIVE_HEADER

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

LIVE_PATH = re.compile(r"^/api/v1/(?:tests/\d+/)?live$")
RETRY_MS = 300  # how soon the browser reconnects after the stream breaks (a deploy, a slow watcher closed)
_LIVE_HEADER = LIVE_HEADER.lower().encode("latin-1")
_DROPPED = {b"content-length", b"content-type", b"cache-control", _LIVE_HEADER}
_STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache, no-store"),
    (b"x-accel-buffering", b"no"),  # nginx: pass each event on at once
]
END_WAIT_S = 10.0  # how long the end of a closed stream may wait for a slow client to take what is buffered


def is_live(scope: Scope) -> bool:
    return scope["method"] == "GET" and LIVE_PATH.match(scope["path"]) is not None


def last_event_id(scope: Scope) -> int | None:
    """The id the client resumes after: the Last-Event-ID header, else ?last_event_id= (None when neither is a
    number: the client starts afresh)."""
    raw = next((value for name, value in scope["headers"] if name == b"last-event-id"), None)
    if raw is None:
        try:
            raw = QueryDict(scope.get("query_string", b"")).get("last_event_id", "").encode()
        except Exception:
            raw = b""
    return int(raw) if raw and raw.isdigit() and len(raw) < 19 else None


async def _disconnected(receive: Receive) -> None:
    """Returns when the client has gone (the request's own message, not read by Django here, comes first)."""
    while (await receive())["type"] != "http.disconnect":
        pass


class _Captured:
    """Django's answer, held back until the door decides whether to stream instead."""

    def __init__(self) -> None:
        self.start: Message | None = None
        self.body: list[bytes] = []

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.start = message
        elif message["type"] == "http.response.body":
            self.body.append(message.get("body", b""))

    def live_tests(self) -> tuple[int, ...] | None:
        """The tests Django let the caller watch (its LIVE_HEADER), or None when it answered otherwise."""
        if self.start is None or self.start["status"] != 200:
            return None
        value = next((v for n, v in self.start.get("headers", ()) if n.lower() == _LIVE_HEADER), None)
        return None if value is None else tuple(int(part) for part in value.split(b","))


class LiveDoor:
    def __init__(self, hub: Hub | None = None) -> None:
        self.hub = hub or Hub()

    async def serve(self, scope: Scope, receive: Receive, send: Send, django: App) -> None:
        asked = False

        async def request_body() -> Message:
            nonlocal asked
            if not asked:  # a GET: Django reads its empty body once
                asked = True
                return {"type": "http.request", "body": b"", "more_body": False}
            return await asyncio.Future()  # never: the stream below listens for the disconnect itself

        captured = _Captured()
        await django(scope, request_body, captured.send)
        tests = captured.live_tests()
        if tests is None:  # refused (401, 404...): Django's answer as it is
            assert captured.start is not None
            await send(captured.start)
            await send({"type": "http.response.body", "body": b"".join(captured.body)})
            return
        assert captured.start is not None
        headers = [(n, v) for n, v in captured.start.get("headers", ()) if n.lower() not in _DROPPED]
        # Resuming is per test (each has its own ids): the list's stream of several starts afresh.
        after_id = last_event_id(scope) if len(tests) == 1 else None
        await self.stream(tests, after_id, [*headers, *_STREAM_HEADERS], receive, send)

    async def stream(
        self,
        tests: tuple[int, ...],
        after_id: int | None,
        headers: list[tuple[bytes, bytes]],
        receive: Receive,
        send: Send,
    ) -> None:
        try:
            # A new page starts from the test's newest event, read before the subscription: an event published
            # between the subscription and the history's read then comes once (by id), none is skipped.
            if after_id is None:
                starts = {test_id: max(newest - 1, 0) for test_id, newest in (await self.hub.newest_ids(tests)).items()}
            else:
                starts = dict.fromkeys(tests, after_id)
            watcher = await self.hub.watch(tests)
        except Exception:  # Redis away: the page polls (EventSource sees an error and the page falls back)
            body = b'{"error": "the live channel is not available now: the page refreshes by polling"}'
            await send(
                {"type": "http.response.start", "status": 503, "headers": [(b"content-type", b"application/json")]}
            )
            await send({"type": "http.response.body", "body": body})
            return
        disconnect = asyncio.ensure_future(_disconnected(receive))
        disconnect.add_done_callback(lambda _done: watcher.close())
        connection = None
        try:
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            connection = live_direct.reach(send)
            watcher.sent = starts
            opening = [b"retry: %d\n\n" % RETRY_MS]
            for test_id, start_id in starts.items():
                opening += watcher.fresh(
                    [(test_id, channel.frame_id(f), f) for f in await self.hub.history(test_id, start_id)]
                )
            await send({"type": "http.response.body", "body": b"".join(opening), "more_body": True})
            if connection is not None:  # the hub writes the events from now on
                watcher.go_direct(connection)
                await watcher.until_closed()
            else:
                while (events := await watcher.next_events(KEEPALIVE_S)) is not None:
                    body = b"".join(watcher.fresh(events)) if events else KEEPALIVE
                    if body:
                        await send({"type": "http.response.body", "body": body, "more_body": True})
            # Closed by the hub (the browser reconnects and resumes) or the client left (this is then a no-op).
            await self._end(send, connection)
        finally:
            disconnect.cancel()
            await self.hub.unwatch(watcher)

    @staticmethod
    async def _end(send: Send, connection: live_direct.Transport | None) -> None:
        end = {"type": "http.response.body", "body": b"", "more_body": False}
        if connection is None:
            await send(end)
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(END_WAIT_S):  # uvicorn's send waits for the buffer to drain first
                await send(end)
                return
        connection.abort()
        await asyncio.sleep(0)  # uvicorn hears of the lost connection (its cycle is then done), then we return
