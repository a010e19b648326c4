"""The append on the event loop (buffer_async.AsyncAppender), against the real Redis: same contract as buffer.append."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any

import pytest

from backend.fastpaths.buffer_async import AsyncAppender
from backend.tankapi import buffer


def _run(appender: AsyncAppender, count: int, kind: str = buffer.KIND_DATA_ROWS) -> list[BaseException | None]:
    """`count` appends in flight together on one loop; each one's exception, or None."""

    async def many() -> list[BaseException | None]:
        results = await asyncio.gather(
            *(appender.append(kind, n, b"[%d]" % n) for n in range(count)), return_exceptions=True
        )
        return [r if isinstance(r, BaseException) else None for r in results]

    return asyncio.run(many())


def test_appends_in_flight_together_all_land_in_order_on_one_connection(redis_db: Any) -> None:
    appender = AsyncAppender()
    assert _run(appender, 200) == [None] * 200
    entries, malformed = buffer.read_batch(1000)
    assert not malformed
    assert [entry.test_id for entry in entries] == list(range(200))
    assert [entry.body for entry in entries] == [b"[%d]" % n for n in range(200)]
    assert redis_db.client_list(_type="normal") and appender._pipe is not None


def test_an_unknown_script_is_sent_in_full(redis_db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    unknown = hashlib.sha1(f"never loaded {time.time_ns()}".encode()).hexdigest().encode()
    monkeypatch.setattr(buffer, "_APPEND_SHA", unknown)
    assert _run(AsyncAppender(), 3) == [None] * 3
    assert buffer.backlog() == 3


def test_a_dropped_connection_is_replaced_once_and_a_dead_redis_refused(redis_db: Any, settings: Any) -> None:
    appender = AsyncAppender()

    async def scenario() -> list[str]:
        seen = []
        await appender.append(buffer.KIND_DATA_ROWS, 1, b"[]")
        pipe = appender._pipe
        assert pipe is not None and pipe.transport is not None
        host, port = pipe.transport.get_extra_info("sockname")[:2]
        assert redis_db.client_kill(f"{host}:{port}")  # as a Redis restart or idle timeout does
        await asyncio.sleep(0.05)
        await appender.append(buffer.KIND_DATA_ROWS, 2, b"[]")
        seen.append("reconnected" if appender._pipe is not pipe else "same connection")
        settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
        try:
            await appender.append(buffer.KIND_DATA_ROWS, 3, b"[]")
        except buffer.BufferUnavailable as exc:
            seen.append(str(exc))
        return seen

    seen = asyncio.run(scenario())
    assert seen[0] == "reconnected"
    assert "Redis" in seen[1] and "unavailable" in seen[1]
    assert redis_db.xlen(buffer.STREAM_KEY) == 2  # (buffer.backlog() would read the dead URL)


def test_the_scripts_refusals_reach_the_caller(redis_db: Any) -> None:
    buffer.mark_clickhouse_down(5_000)
    (failure,) = _run(AsyncAppender(), 1)
    assert isinstance(failure, buffer.BufferUnavailable) and "ClickHouse" in str(failure)
    assert buffer.backlog() == 0
