"""One Redis subscriber per process, shared by every watcher of every online test the process serves.

A test's channel is subscribed when its first watcher arrives and dropped with its last one; each event is read
once and handed, already framed (channel.py), to each watcher's queue. A watcher too slow to keep up (its queue
full) is closed: its browser reconnects with the last id it saw and resumes from the history, so nothing is lost
and nobody waits for it. If the subscription fails, every watcher is closed the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import redis.asyncio as aioredis
from django.conf import settings

from backend.live import channel

log = logging.getLogger(__name__)

QUEUE_EVENTS = 64  # a minute of seconds: more behind than that and the watcher resumes from the history


class Watcher:
    """One stream's mailbox: the hub appends events and wakes it; no task or queue per event (a watcher's cost per
    event is a list append, a future's result and its socket write)."""

    __slots__ = ("closed", "pending", "tests", "wakeup")

    def __init__(self, tests: tuple[int, ...]) -> None:
        self.tests = tests
        self.pending: list[tuple[int, int, bytes]] = []
        self.closed = False
        self.wakeup: asyncio.Future[None] | None = None

    def _wake(self) -> None:
        if self.wakeup is not None and not self.wakeup.done():
            self.wakeup.set_result(None)

    def offer(self, test_id: int, event_id: int, frame: bytes) -> None:
        if self.closed:
            return
        if len(self.pending) >= QUEUE_EVENTS:
            self.close()
            return
        self.pending.append((test_id, event_id, frame))
        self._wake()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._wake()

    async def next_events(self, timeout_s: float) -> list[tuple[int, int, bytes]] | None:
        """The events offered since the last call, waiting up to `timeout_s` for one ([] then); None once closed."""
        if not self.pending and not self.closed:
            loop = asyncio.get_running_loop()
            self.wakeup = loop.create_future()
            timer = loop.call_later(timeout_s, self._wake)
            try:
                await self.wakeup
            finally:
                timer.cancel()
                self.wakeup = None
        if self.closed:
            return None
        events, self.pending = self.pending, []
        return events


class Hub:
    def __init__(self, url: str | None = None) -> None:
        self.url = url or str(settings.REDIS_URL)
        self.watchers: dict[int, set[Watcher]] = {}
        self.client: aioredis.Redis | None = None
        self.pubsub: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.database = 0

    def _connect(self) -> None:
        if self.client is None:
            self.client = aioredis.Redis.from_url(self.url, socket_connect_timeout=1, socket_timeout=None)
            self.database = int(self.client.connection_pool.connection_kwargs.get("db", 0) or 0)
            self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)

    async def watch(self, tests: tuple[int, ...]) -> Watcher:
        """A new watcher of these tests (each channel subscribed first if this is the process' first watcher)."""
        self._connect()
        watcher = Watcher(tests)
        first = []
        for test_id in tests:
            group = self.watchers.setdefault(test_id, set())
            group.add(watcher)
            if len(group) == 1:
                first.append(channel.channel_name(self.database, test_id))
        if first:
            try:
                await self.pubsub.subscribe(*first)
            except Exception:
                await self.unwatch(watcher)
                raise
        if self.reader is None or self.reader.done():
            self.reader = asyncio.get_running_loop().create_task(self._read())
        return watcher

    async def unwatch(self, watcher: Watcher) -> None:
        last = []
        for test_id in watcher.tests:
            group = self.watchers.get(test_id)
            if group is None:
                continue
            group.discard(watcher)
            if not group:
                del self.watchers[test_id]
                last.append(channel.channel_name(self.database, test_id))
        if last and self.pubsub is not None:
            with contextlib.suppress(Exception):  # a broken connection: the reader resets it
                await self.pubsub.unsubscribe(*last)

    async def history(self, test_id: int, after_id: int | None) -> list[bytes]:
        """The test's framed events after `after_id`; with None, its newest one (what a new page starts from)."""
        self._connect()
        assert self.client is not None
        if after_id is None:
            newest: list[bytes] = await self.client.zrange(channel.history_key(test_id), -1, -1)  # type: ignore[assignment]
            return newest
        return list(await channel.history_after(self.client, test_id, after_id))

    def close_all(self) -> None:
        """Close every watcher's stream (their browsers reconnect and resume): for a deploy, and the tests."""
        for group in self.watchers.values():
            for watcher in group:
                watcher.close()

    def watching(self) -> int:
        return sum(len(group) for group in self.watchers.values())

    async def _read(self) -> None:
        prefix = channel.channel_prefix(self.database).encode()
        try:
            while self.watchers:
                message = await self.pubsub.get_message(timeout=1.0)
                if message is None or message.get("type") != "message":
                    continue
                name: bytes = message["channel"]
                if not name.startswith(prefix):
                    continue
                frame: bytes = message["data"]
                event_id = channel.frame_id(frame)
                test_id = int(name[len(prefix) :])
                for watcher in tuple(self.watchers.get(test_id, ())):
                    watcher.offer(test_id, event_id, frame)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis went away: every watcher reconnects (and falls back to polling meanwhile)
            log.warning("live subscriber lost Redis: %s", exc)
            self._reset()

    def _reset(self) -> None:
        self.close_all()
        self.watchers.clear()
        client, self.client, self.pubsub = self.client, None, None
        if client is not None:
            asyncio.get_running_loop().create_task(_close_quietly(client))


async def _close_quietly(client: aioredis.Redis) -> None:
    with contextlib.suppress(Exception):
        await client.aclose()
