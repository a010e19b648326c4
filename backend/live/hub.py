"""One Redis subscriber per process, shared by every watcher of every online test the process serves.

A test's channel is subscribed when its first watcher arrives and dropped with its last one; each event is read
once, already framed (channel.py), and handed to each watcher. Where the watcher's connection can be reached
(live_direct.py: uvicorn's httptools protocol), the reader writes the event's HTTP chunk, framed once for all, to each
watcher's connection itself: a watcher's cost per event is that write, no wake-up of its stream. Elsewhere the
event goes to the watcher's mailbox, and its stream (sse.py) sends it through the ASGI `send`.

A watcher too slow to keep up (its mailbox full, or its connection's write buffer over live_direct.MAX_BUFFERED_BYTES)
is closed: its browser reconnects with the last id it saw and resumes from the history, so nothing is lost and
nobody waits for it. If the subscription fails, every watcher is closed the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import redis.asyncio as aioredis
from django.conf import settings

from backend.fastpaths import live_direct
from backend.live import channel

log = logging.getLogger(__name__)

QUEUE_EVENTS = 64  # a minute of seconds: more behind than that and the watcher resumes from the history
KEEPALIVE_S = 15.0  # a comment line this often keeps proxies and load balancers from closing an idle stream
KEEPALIVE = b": keepalive\n\n"
_KEEPALIVE_CHUNK = live_direct.chunk(KEEPALIVE)


class Watcher:
    """One stream: the hub writes each event to its connection (`connection`, once `go_direct` is called) or, until
    then or where it cannot, appends it to `pending` and wakes the stream. `sent` holds, per test, the newest id the
    stream was given, so that an event in both the history and the live ones goes out once."""

    __slots__ = ("closed", "connection", "pending", "sent", "tests", "wakeup", "wrote")

    def __init__(self, tests: tuple[int, ...]) -> None:
        self.tests = tests
        self.sent = dict.fromkeys(tests, 0)
        self.pending: list[tuple[int, int, bytes]] = []
        self.closed = False
        self.wakeup: asyncio.Future[None] | None = None
        self.connection: live_direct.Transport | None = None
        self.wrote = False  # since the last keep-alive round (direct streams only)

    def _wake(self) -> None:
        if self.wakeup is not None and not self.wakeup.done():
            self.wakeup.set_result(None)

    def offer(self, test_id: int, event_id: int, frame: bytes, chunk: bytes) -> None:
        """A new event (`chunk`: the frame as an HTTP chunk, live_direct.chunk)."""
        if self.closed:
            return
        connection = self.connection
        if connection is not None:
            if self._first_time(test_id, event_id):  # (an event already given by the history is not sent again)
                self.wrote = True
                if not live_direct.write(connection, chunk):  # gone, or too slow: it resumes from the history
                    self.close()
            return
        if len(self.pending) >= QUEUE_EVENTS:
            self.close()
            return
        self.pending.append((test_id, event_id, frame))
        self._wake()

    def fresh(self, events: list[tuple[int, int, bytes]]) -> list[bytes]:
        """The frames of the events not sent yet, in order, counted as sent."""
        return [frame for test_id, event_id, frame in events if self._first_time(test_id, event_id)]

    def _first_time(self, test_id: int, event_id: int) -> bool:
        """Whether the event is newer than any the stream was given (ids only grow), counting it as given."""
        if event_id <= self.sent[test_id]:
            return False
        self.sent[test_id] = event_id
        return True

    def go_direct(self, connection: live_direct.Transport) -> None:
        """From now on the hub writes the events to `connection` itself, those that came meanwhile first. Called
        with nothing awaited since the stream's last `send`, so the order on the wire is the ids' order."""
        events, self.pending = self.pending, []
        self.connection = connection
        for test_id, event_id, frame in events:
            self.offer(test_id, event_id, frame, live_direct.chunk(frame))

    def keep_alive(self) -> None:
        """A comment line on a direct stream that had no event since the last round (the hub's, every KEEPALIVE_S)."""
        if self.connection is not None and not self.closed:
            if not self.wrote and not live_direct.write(self.connection, _KEEPALIVE_CHUNK):
                self.close()
            self.wrote = False

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._wake()

    async def _wait(self, timeout_s: float | None) -> None:
        loop = asyncio.get_running_loop()
        self.wakeup = loop.create_future()
        timer = None if timeout_s is None else loop.call_later(timeout_s, self._wake)
        try:
            await self.wakeup
        finally:
            if timer is not None:
                timer.cancel()
            self.wakeup = None

    async def next_events(self, timeout_s: float) -> list[tuple[int, int, bytes]] | None:
        """The events offered since the last call, waiting up to `timeout_s` for one ([] then); None once closed."""
        if not self.pending and not self.closed:
            await self._wait(timeout_s)
        if self.closed:
            return None
        events, self.pending = self.pending, []
        return events

    async def until_closed(self) -> None:
        """Returns once the watcher is closed (a direct stream's coroutine waits here, woken only then)."""
        while not self.closed:
            await self._wait(None)


class Hub:
    def __init__(self, url: str | None = None) -> None:
        self.url = url or str(settings.REDIS_URL)
        self.watchers: dict[int, set[Watcher]] = {}
        self.client: aioredis.Redis | None = None
        self.pubsub: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.database = 0
        # One user of the subscriber's connection at a time: the reader's wait for a message, a SUBSCRIBE, an
        # UNSUBSCRIBE. A watcher arriving while the first one's SUBSCRIBE is on its way must not start reading a
        # connection that is not subscribed yet (redis-py refuses, and every watcher would be closed), nor return
        # before its test's events are heard; and redis-py's PubSub is not made for a command sent while another
        # task reads. A change interrupts the reader's wait (`reading`), as that wait's own timeout does.
        self.changing: asyncio.Lock | None = None
        self.reading: asyncio.Task[Any] | None = None
        self.refreshing: asyncio.Task[None] | None = None  # (a reference, as asyncio holds its tasks weakly)

    def _lock(self) -> asyncio.Lock:
        if self.changing is None:
            self.changing = asyncio.Lock()
        return self.changing

    def _to_change(self) -> asyncio.Lock:
        """The lock, for a SUBSCRIBE or UNSUBSCRIBE: the reader's wait, if any, is cut short to let it in."""
        if self.reading is not None and not self.reading.done():
            self.reading.cancel()
        return self._lock()

    def _connect(self) -> None:
        if self.client is None:
            self.client = aioredis.Redis.from_url(self.url, socket_connect_timeout=1, socket_timeout=None)
            self.database = int(self.client.connection_pool.connection_kwargs.get("db", 0) or 0)
            self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)

    async def watch(self, tests: tuple[int, ...]) -> Watcher:
        """A new watcher of these tests (each channel subscribed first if this is the process' first watcher)."""
        watcher = Watcher(tests)
        async with self._to_change():
            self._connect()
            first = []
            for test_id in tests:
                group = self.watchers.setdefault(test_id, set())
                group.add(watcher)
                if len(group) == 1:
                    first.append(channel.channel_name(self.database, test_id))
            if first:
                try:
                    await self._mark_watched([test_id for test_id in tests if len(self.watchers[test_id]) == 1])
                    await self.pubsub.subscribe(*first)
                except Exception:
                    self._forget(watcher)
                    raise
            if self.reader is None or self.reader.done():
                self.reader = asyncio.get_running_loop().create_task(self._read())
        return watcher

    async def _mark_watched(self, tests: list[int]) -> None:
        """Tell the push path these tests are watched (channel.watched_key), for WATCHED_TTL_S: set before the
        subscription, so that no second pushed once the watcher is in goes unannounced."""
        assert self.client is not None
        async with self.client.pipeline(transaction=False) as pipe:
            for test_id in tests:
                pipe.set(channel.watched_key(test_id), 1, ex=channel.WATCHED_TTL_S)
            await pipe.execute()

    async def _still_watched(self) -> None:
        with contextlib.suppress(Exception):  # Redis away: the reader finds out and resets
            await self._mark_watched(list(self.watchers))

    def _forget(self, watcher: Watcher) -> list[str]:
        """Take the watcher out of its tests' groups; the channels left without a watcher."""
        last = []
        for test_id in watcher.tests:
            group = self.watchers.get(test_id)
            if group is None:
                continue
            group.discard(watcher)
            if not group:
                del self.watchers[test_id]
                last.append(channel.channel_name(self.database, test_id))
        return last

    async def unwatch(self, watcher: Watcher) -> None:
        async with self._to_change():
            last = self._forget(watcher)
            if last and self.pubsub is not None:
                with contextlib.suppress(Exception):  # a broken connection: the reader resets it
                    await self.pubsub.unsubscribe(*last)

    async def newest_ids(self, tests: tuple[int, ...]) -> dict[int, int]:
        """Per test, the id of its newest event (0 when none): where a new page starts."""
        self._connect()
        assert self.client is not None
        values = await self.client.mget([channel.counter_key(test_id) for test_id in tests])
        return {test_id: int(value) if value else 0 for test_id, value in zip(tests, values, strict=True)}

    async def history(self, test_id: int, after_id: int) -> list[bytes]:
        """The test's framed events after `after_id`, oldest first."""
        self._connect()
        assert self.client is not None
        return list(await channel.history_after(self.client, test_id, after_id))

    def close_all(self) -> None:
        """Close every watcher's stream (their browsers reconnect and resume): for a deploy, and the tests."""
        for group in self.watchers.values():
            for watcher in group:
                watcher.close()

    def watching(self) -> int:
        return sum(len(group) for group in self.watchers.values())

    def _keep_alive(self) -> None:
        for watcher in {watcher for group in self.watchers.values() for watcher in group}:
            watcher.keep_alive()
        self.refreshing = asyncio.get_running_loop().create_task(self._still_watched())  # (well within the TTL)

    async def _read(self) -> None:
        prefix = channel.channel_prefix(self.database).encode()
        loop = asyncio.get_running_loop()
        keepalive_at = loop.time() + KEEPALIVE_S
        try:
            while self.watchers:
                message = await self._next_message()
                if loop.time() >= keepalive_at:
                    keepalive_at = loop.time() + KEEPALIVE_S
                    self._keep_alive()
                if message is None or message.get("type") != "message":
                    continue
                name: bytes = message["channel"]
                if not name.startswith(prefix):
                    continue
                frame: bytes = message["data"]
                event_id = channel.frame_id(frame)
                test_id = int(name[len(prefix) :])
                chunk = live_direct.chunk(frame)
                for watcher in tuple(self.watchers.get(test_id, ())):
                    watcher.offer(test_id, event_id, frame, chunk)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis went away: every watcher reconnects (and falls back to polling meanwhile)
            log.warning("live subscriber lost Redis: %s", exc)
            self._reset()

    async def _next_message(self) -> Any:
        """The subscriber's next message; None after a second without one, or when a change cut the wait short."""
        async with self._lock():
            self.reading = asyncio.get_running_loop().create_task(self.pubsub.get_message(timeout=1.0))
            try:
                return await self.reading
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise  # the reader itself is cancelled
                return None  # cut short by _to_change
            finally:
                self.reading = None

    def _reset(self) -> None:
        self.close_all()
        self.watchers.clear()
        client, self.client, self.pubsub = self.client, None, None
        if client is not None:
            asyncio.get_running_loop().create_task(_close_quietly(client))


async def _close_quietly(client: aioredis.Redis) -> None:
    with contextlib.suppress(Exception):
        await client.aclose()
