"""A watcher's connection that the hub writes its events to itself, as uvicorn would, without waking the watcher.

Through the ASGI `send`, each event costs each watcher a future's wake-up, a task switch and uvicorn's send (its
flow control check, the HTTP chunk's framing) before the socket write (bench/live_watchers/README.md has the
profile). Here the hub's reader frames the event's HTTP/1.1 chunk once (`chunk`) and hands it to every watcher's
transport in turn: per watcher, a buffer-size check and a write.

Like socket_body.py, this relies on uvicorn's internals, because only they give the transport: the httptools
protocol's RequestResponseCycle (`send.__self__`, its `transport`, `response_started`, `response_complete`,
`chunked_encoding`, `disconnected`), checked against uvicorn 0.54.0. Anything else (another server, h11, a response
not chunked) makes `reach` return None and the events go through `send` as before. Only the body's chunks are
written here: the response's start and its end (the last chunk, then uvicorn's keep-alive or close) go through
`send`, so uvicorn's view of the connection stays true.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Protocol

# A client that has not taken this much of what the kernel's socket buffer could not hold is too slow (a stalled
# tab, a dead link): its stream is closed, and it resumes from the history when it reconnects. About a minute of
# seconds (an event is a few hundred bytes), as the queue's bound of the path through `send` (hub.QUEUE_EVENTS).
MAX_BUFFERED_BYTES = 64 * 1024

_CYCLE_MODULE = "uvicorn.protocols.http.httptools_impl"


class Transport(Protocol):
    """What of asyncio's transport is used here (uvloop's does not register as an asyncio.Transport)."""

    def write(self, data: bytes) -> None: ...
    def is_closing(self) -> bool: ...
    def get_write_buffer_size(self) -> int: ...
    def abort(self) -> None: ...


_TRANSPORT_METHODS = ("write", "is_closing", "get_write_buffer_size", "abort")


def chunk(body: bytes) -> bytes:
    """The body as one HTTP/1.1 chunk, as uvicorn frames a `more_body` message (httptools_impl's send)."""
    return b"%x\r\n%s\r\n" % (len(body), body)


def reach(send: Callable[[MutableMapping[str, Any]], Awaitable[None]]) -> Transport | None:
    """The transport of the response `send` belongs to, once its start is sent, if the hub may write its chunks
    there; None otherwise (the events then go through `send`)."""
    cycle = getattr(send, "__self__", None)
    if cycle is None or type(cycle).__module__ != _CYCLE_MODULE or type(cycle).__name__ != "RequestResponseCycle":
        return None
    transport = getattr(cycle, "transport", None)
    if (
        getattr(cycle, "response_started", None) is not True
        or getattr(cycle, "response_complete", None) is not False
        or getattr(cycle, "chunked_encoding", None) is not True
        or getattr(cycle, "disconnected", None) is not False
        or not all(callable(getattr(transport, name, None)) for name in _TRANSPORT_METHODS)
        or transport.is_closing()  # type: ignore[union-attr]
    ):
        return None
    return transport


def write(transport: Transport, data: bytes) -> bool:
    """Write one chunk; False, writing nothing, when the client has gone or is too slow (the stream must end)."""
    try:
        if transport.is_closing() or transport.get_write_buffer_size() > MAX_BUFFERED_BYTES:
            return False
        transport.write(data)
    except (RuntimeError, OSError):  # a transport closed under us: this stream ends, the hub's reader goes on
        return False
    return True
