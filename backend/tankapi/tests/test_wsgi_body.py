"""PieceBody (backend/tankapi/wsgi_body.py): hand-offs read as they are, everything else as a2wsgi reads it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from a2wsgi.wsgi import Body

from backend.tankapi.wsgi_body import PieceBody, with_piece_body


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join(5)
    running.close()


def receiving(pieces: list[bytes]) -> Any:
    messages = [{"type": "http.request", "body": p, "more_body": i < len(pieces) - 1} for i, p in enumerate(pieces)]

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    return receive


def test_a_hand_off_that_fits_is_returned_as_it_is(loop: asyncio.AbstractEventLoop) -> None:
    pieces = [b"a" * 1000, b"b" * 1000, b"c" * 10]
    body = PieceBody(loop, receiving(pieces))
    first = body.read(4096)
    assert first is pieces[0]  # not a copy
    assert body.read(600) == b"b" * 600  # smaller than the hand-off: the rest is kept
    assert body.read(4096) == b"b" * 400 + b"c" * 10  # what was kept comes first, a2wsgi's way
    assert body.read(4096) == b""


def test_what_a2wsgi_reads_is_read_the_same(loop: asyncio.AbstractEventLoop) -> None:
    data = [b"line one\nline ", b"two\n", b"rest"]
    ours, theirs = PieceBody(loop, receiving(list(data))), Body(loop, receiving(list(data)))
    for body in (ours, theirs):
        assert body.readline() == b"line one\n"
    assert ours.read() == theirs.read() == b"line two\nrest"


def test_the_wrapper_swaps_an_untouched_body_only(loop: asyncio.AbstractEventLoop) -> None:
    seen: list[object] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.append(environ["wsgi.input"])
        return []

    wrapped = with_piece_body(app)
    fresh = Body(loop, receiving([b"x"]))
    wrapped({"wsgi.input": fresh}, print)
    assert type(seen[-1]) is PieceBody and seen[-1].read(10) == b"x"
    started = Body(loop, receiving([b"xy", b"z"]))
    started.read(1)  # something already read it: its buffer holds the rest
    wrapped({"wsgi.input": started}, print)
    assert seen[-1] is started
