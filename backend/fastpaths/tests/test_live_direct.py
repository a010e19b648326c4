"""The hub writing events to the watchers' connections itself (live_direct.py, hub.Watcher): the chunk as uvicorn frames
it, each event once and in order across the history and the live ones, a slow or gone client closed, a keep-alive
only on an idle stream, and the fallback through `send` wherever uvicorn's connection is not reached."""

from __future__ import annotations

from typing import Any

import pytest

from backend.fastpaths import live_direct
from backend.live.hub import KEEPALIVE, Watcher


class FakeTransport:
    """A connection whose client takes nothing: every write stays in its buffer."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.closing = False
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return sum(len(data) for data in self.written)

    def abort(self) -> None:
        self.aborted = True


def frame(event_id: int, size: int = 10) -> bytes:
    return b'id: %d\nevent: second\ndata: {"pad": "%s"}\n\n' % (event_id, b"x" * size)


def offer(watcher: Watcher, test_id: int, event_id: int, size: int = 10) -> None:
    data = frame(event_id, size)
    watcher.offer(test_id, event_id, data, live_direct.chunk(data))


def test_a_chunk_is_framed_as_uvicorn_frames_a_body_message() -> None:
    assert live_direct.chunk(b"abc") == b"3\r\nabc\r\n"
    assert live_direct.chunk(b"x" * 300) == b"12c\r\n" + b"x" * 300 + b"\r\n"


def test_events_are_written_once_in_order_those_offered_before_the_switch_first() -> None:
    watcher, transport = Watcher((7,)), FakeTransport()
    watcher.sent[7] = 2  # the history gave ids 1 and 2
    for event_id in (2, 3):  # heard live while the history was read: 2 is in both
        offer(watcher, 7, event_id)
    assert transport.written == [] and len(watcher.pending) == 2
    watcher.go_direct(transport)
    for event_id in (3, 4, 5):  # 3 arrives again (published before the history was read, heard after)
        offer(watcher, 7, event_id)
    assert transport.written == [live_direct.chunk(frame(n)) for n in (3, 4, 5)]
    assert watcher.pending == [] and not watcher.closed


def test_a_slow_client_is_closed_and_nothing_more_is_written() -> None:
    watcher, transport = Watcher((7,)), FakeTransport()
    watcher.go_direct(transport)
    event_id = 0
    while not watcher.closed:
        event_id += 1
        offer(watcher, 7, event_id, size=1000)
        assert event_id < 1000
    kept = transport.get_write_buffer_size()
    assert (
        live_direct.MAX_BUFFERED_BYTES < kept < live_direct.MAX_BUFFERED_BYTES + 2000
    )  # closed at the first over the limit
    offer(watcher, 7, event_id + 1)
    assert transport.get_write_buffer_size() == kept


def test_a_client_gone_is_closed() -> None:
    watcher, transport = Watcher((7,)), FakeTransport()
    watcher.go_direct(transport)
    offer(watcher, 7, 1)
    transport.closing = True
    offer(watcher, 7, 2)
    assert watcher.closed and transport.written == [live_direct.chunk(frame(1))]


def test_a_keepalive_goes_only_to_a_stream_that_had_no_event_since_the_last_round() -> None:
    watcher, transport = Watcher((7,)), FakeTransport()
    watcher.go_direct(transport)
    offer(watcher, 7, 1)
    watcher.keep_alive()
    assert transport.written == [live_direct.chunk(frame(1))]
    watcher.keep_alive()
    assert transport.written[-1] == live_direct.chunk(KEEPALIVE)
    queued = Watcher((7,))  # a stream through `send` sends its own
    queued.keep_alive()
    assert queued.pending == [] and not queued.closed


@pytest.mark.parametrize("send", [None, print, FakeTransport().write])
def test_anything_but_uvicorns_response_is_not_reached(send: Any) -> None:
    assert live_direct.reach(send) is None


def test_a_transport_that_fails_ends_its_stream_not_the_hubs_reader() -> None:
    class Broken(FakeTransport):
        def write(self, data: bytes) -> None:
            raise RuntimeError("unable to perform operation on <TCPTransport closed=True>")

    watcher = Watcher((7,))
    watcher.go_direct(Broken())
    offer(watcher, 7, 1)
    assert watcher.closed


def test_where_the_connection_is_not_reached_the_stream_sends_through_send(redis_db: Any) -> None:
    """Another ASGI server (here a plain `send`): the events go through the watcher's mailbox and `send`, in order,
    and the end too."""
    import asyncio

    from django.conf import settings

    from backend.live import channel
    from backend.live.hub import Hub
    from backend.live.sse import LiveDoor

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return await asyncio.Future()  # the client never leaves

    async def run() -> None:
        hub = Hub(str(settings.REDIS_URL))
        stream = asyncio.create_task(LiveDoor(hub).stream((5,), None, [], receive, send))
        while hub.watching() < 1 or len(sent) < 2:
            await asyncio.sleep(0.01)
        ids = [channel.publish(5, channel.SECOND, {"n": n}) for n in range(3)]
        while b"".join(m.get("body", b"") for m in sent).count(b"event: second") < 3:
            await asyncio.sleep(0.01)
        assert all(w.connection is None for w in hub.watchers[5])
        hub.close_all()
        await asyncio.wait_for(stream, 5)
        body = b"".join(m.get("body", b"") for m in sent[1:])
        assert [int(line[4:]) for line in body.split(b"\n") if line.startswith(b"id: ")] == ids
        assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}

    asyncio.run(run())
