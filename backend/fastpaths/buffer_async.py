"""The buffer append on an event loop (the ASGI door's pushes): one pipelined Redis connection per loop.

Why not buffer.append (redis-py, blocking): on the event loop a blocking round trip stops every other connection of
the process until Redis answers (bench/tank_push/README.md). Here each append writes its command into the
connection and awaits its reply while the loop serves other pushes; commands of pushes in flight together share
the connection (Redis answers in order), so a busy second costs fewer system calls, not more. It speaks RESP itself
(buffer.AppendCommand: the same script, keys and arguments as buffer.append), on a plain TCP or Unix socket.

Same contract as buffer.append: returns once Redis stored the entry (the push may then be answered 200), raises
BufferUnavailable when Redis is down or slow (2 s), ClickHouse is known down, or the backlog is full. A connection
that failed or timed out is dropped with every command in flight on it (their pushes get 503 and the tank
retries; an append that did reach Redis is then stored twice, which the flusher's ReplacingMergeTree collapses).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, cast

from django.conf import settings
from redis.connection import UnixDomainSocketConnection

from backend.tankapi import buffer

TIMEOUT_S = 2.0  # as buffer.connection()'s socket_timeout: a hung Redis gives a 503, not a hung tank
CONNECT_TIMEOUT_S = 1.0


class RedisGone(ConnectionError):
    """The connection failed or closed; every command in flight on it failed."""


class RedisSlow(RedisGone):
    """Redis did not answer in time; the connection was dropped with every command in flight on it."""


class _Pipe(asyncio.Protocol):
    """A Redis connection whose commands all have one-line replies (the append script's integer, an error, +OK),
    matched to their commands in order."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.waiting: deque[asyncio.Future[bytes]] = deque()
        self.pending = b""
        self.failure: BaseException | None = None
        # Commands issued during one turn of the loop, written together at its end: on loopback a write to Redis
        # costs the sender the receiver's side of TCP too (bench/tank_push/README.md).
        self.unsent: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports do not subclass asyncio's

    def data_received(self, data: bytes) -> None:
        data = self.pending + data if self.pending else data
        start = 0
        while (end := data.find(b"\r\n", start)) >= 0:
            if not self.waiting:
                self.fail(RedisGone(f"unexpected reply from Redis: {data[start:end][:100]!r}"))
                return
            future = self.waiting.popleft()
            if not future.done():
                future.set_result(data[start:end])
            start = end + 2
        self.pending = data[start:]

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(RedisGone(f"Redis closed the connection: {exc}" if exc else "Redis closed the connection"))

    def send_unsent(self) -> None:
        commands, self.unsent = self.unsent, []
        if self.transport is not None and self.failure is None:
            self.transport.write(commands[0] if len(commands) == 1 else b"".join(commands))

    def fail(self, exc: BaseException) -> None:
        if self.failure is None:
            self.failure = exc
        if self.transport is not None:
            self.transport.abort()
        while self.waiting:
            future = self.waiting.popleft()
            if not future.done():
                future.set_exception(exc)

    @property
    def usable(self) -> bool:
        return self.failure is None and self.transport is not None and not self.transport.is_closing()

    async def call(self, command: bytes) -> bytes:
        if not self.usable or self.transport is None:
            raise RedisGone(str(self.failure or "not connected"))
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bytes] = loop.create_future()
        self.waiting.append(future)
        if not self.unsent:
            loop.call_soon(self.send_unsent)
        self.unsent.append(command)
        try:
            async with asyncio.timeout(TIMEOUT_S):
                return await future
        except TimeoutError:
            # Replies still to come would be matched to the wrong commands: drop the connection.
            slow = RedisSlow(f"Redis did not answer within {TIMEOUT_S:g} s")
            self.fail(slow)
            raise slow from None


def _expect_ok(reply: bytes) -> None:
    if reply != b"+OK":
        raise RedisGone(reply.decode(errors="replace"))


async def _connect(options: dict[str, Any]) -> _Pipe:
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(CONNECT_TIMEOUT_S):
        if options.get("connection_class") is UnixDomainSocketConnection:
            _transport, pipe = await loop.create_unix_connection(_Pipe, options["path"])
        else:
            _transport, pipe = await loop.create_connection(_Pipe, options["host"], options["port"])
    try:
        for command in buffer.setup_commands(options):
            _expect_ok(await pipe.call(command))
    except BaseException:
        pipe.fail(RedisGone("connection set-up failed"))
        raise
    return pipe


class AsyncAppender:
    """buffer.append for one event loop. Not thread-safe: use it from its loop only."""

    def __init__(self) -> None:
        self._pipe: _Pipe | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._url: str | None = None
        self._connecting: asyncio.Lock | None = None

    async def _connection(self, url: str) -> tuple[_Pipe, bool]:
        """The loop's connection, and whether it was opened just now (its failure then means Redis is down)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._url != url:  # a new loop (tests) or another Redis (settings changed)
            if self._pipe is not None and self._loop is loop:
                self._pipe.fail(RedisGone("Redis URL changed"))
            self._pipe, self._loop, self._url, self._connecting = None, loop, url, asyncio.Lock()
        pipe = self._pipe
        if pipe is not None and pipe.usable:
            return pipe, False
        assert self._connecting is not None
        async with self._connecting:  # pushes arriving together wait for one connection, not one each
            if self._pipe is not None and self._pipe.usable:
                return self._pipe, False
            self._pipe = await _connect(buffer.redis_options())
            return self._pipe, True

    async def _call(self, url: str, command: bytes) -> bytes:
        for _attempt in range(2):
            pipe, fresh = await self._connection(url)
            try:
                return await pipe.call(command)
            except RedisSlow:
                raise  # a retry would make the tank wait twice as long for its 503
            except RedisGone:
                # A reused connection may have died while idle (Redis restarted): one retry on a fresh one.
                if fresh:
                    raise
        raise AssertionError("unreachable")

    async def append(self, kind: str, test_id: int, body: bytes, token_hash: str = "") -> None:
        """Append one accepted push to the stream; raise what buffer.append raises if it is refused."""
        url = str(settings.REDIS_URL)
        command = buffer.AppendCommand.of(kind, test_id, body, token_hash=token_hash)
        try:
            reply = await self._call(url, command.evalsha())
            if reply.startswith(b"-NOSCRIPT"):
                reply = await self._call(url, command.eval())
        except (OSError, TimeoutError) as exc:
            raise buffer.BufferUnavailable(f"the ingest buffer (Redis) is unavailable: {exc}") from exc
        buffer.check_append_result(reply)
