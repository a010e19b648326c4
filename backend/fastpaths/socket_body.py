"""The body of a big phout upload, read from its connection's socket by the thread that stores it.

Through uvicorn, every byte of a body is copied several times on the event loop and again by a2wsgi, and handed to
Django's thread one message at a time (bench/phout_upload/README.md has the cost). Here the loop stops reading the
connection once the request's headers are in (uvicorn's flow control, as for a slow application) and the thread
that writes the upload to disk receives the rest of the body itself, straight into the write buffer
(`storage.write_body` → `DirectWriter.fill`): one copy, by the kernel.

This module relies on other libraries' internals (as live_direct.py does for the online pages' streams),
because only they give the socket:
  * uvicorn's RequestResponseCycle (httptools protocol: `receive.__self__`, its `transport`, `flow`, `body`,
    `more_body`, `waiting_for_100_continue`, `keep_alive`), checked against uvicorn 0.54.0;
  * a2wsgi's copy of the ASGI scope into `environ["asgi.scope"]`, checked against a2wsgi 1.10.10.
Anything that does not look as expected (another server, a TLS socket, a chunked body) makes `take_over` return
None and the body arrives through the loop as for any request.

The connection closes after the answer (`Connection: close`): the HTTP parser has not seen the bytes read here,
so it could not find the next request. The rest of a body refused early (not phout) is not read: the close then
resets the connection after the answer, which clients that read the answer when their send fails (curl,
requests, our CLI) still report: backend/uploads/tests/test_upload_socket.py sends a 19 MB page that is refused.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import socket
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

log = logging.getLogger(__name__)

# Bodies smaller than this come through the loop (and keep their connection alive): the hand-off saves nothing.
MIN_BYTES = 4 * 1024 * 1024
# A client that sends nothing for this long has gone: the body ends there (the upload answers 400 and a
# Content-Range upload resumes after its last committed bytes).
IDLE_TIMEOUT_S = 120.0
# Where the body travels from the ASGI door to the WSGI side (a2wsgi copies the scope into environ["asgi.scope"]).
SCOPE_KEY = "tankodrom.socket_body"
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]


class SocketBody(io.RawIOBase):
    """wsgi.input of a taken-over request: the bytes the HTTP parser already had, then the socket's, up to the
    body's length and never beyond. `readinto` fills the caller's memory; `read` and friends come from RawIOBase."""

    def __init__(self, head: bytes, sock: socket.socket, length: int, send_continue: Callable[[], None] | None) -> None:
        super().__init__()
        self._head = memoryview(head)
        self._sock = sock
        self._from_socket = length - len(head)
        self._send_continue = send_continue

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if not view:
            return 0
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        if self._from_socket <= 0:
            return 0
        if self._send_continue is not None:  # the client waits for it before sending the body (curl -T)
            self._send_continue()
            self._send_continue = None
        try:
            n = self._sock.recv_into(view, min(len(view), self._from_socket))
        except TimeoutError:
            log.info("upload body: nothing received for %.0f s, %d bytes missing", IDLE_TIMEOUT_S, self._from_socket)
            return 0
        except OSError as exc:  # reset by the client: the body ends here, as when it closes
            log.info("upload body: %s, %d bytes missing", exc, self._from_socket)
            return 0
        self._from_socket -= n
        if n == 0:
            self._from_socket = 0  # the client closed the connection early
        return n

    def close(self) -> None:
        if not self.closed:
            self._sock.close()  # our duplicate of the descriptor: the connection itself is uvicorn's to close
        super().close()


def _declared_length(scope: Scope) -> int | None:
    length = None
    for name, value in scope.get("headers", []):
        if name == b"transfer-encoding":
            return None
        if name == b"content-length":
            if not value.isdigit() or length is not None:
                return None
            length = int(value)
    return length


def take_over(scope: Scope, receive: Receive) -> SocketBody | None:
    """On the event loop, as the request starts: stop the loop reading this connection and return its body as a
    SocketBody, or None to leave the request as it is. `receive` must not be called afterwards (it would resume the
    loop's reading): the caller gives the application a receive of its own."""
    length = _declared_length(scope)
    if length is None or length < MIN_BYTES:
        return None
    cycle = getattr(receive, "__self__", None)  # uvicorn's RequestResponseCycle
    transport: asyncio.Transport | None = getattr(cycle, "transport", None)
    flow = getattr(cycle, "flow", None)
    parsed = getattr(cycle, "body", None)
    if (
        transport is None
        or flow is None
        or not isinstance(parsed, bytearray)
        or getattr(cycle, "more_body", 0) is not True
    ):
        return None
    if transport.get_extra_info("sslcontext") is not None or transport.get_extra_info("ssl_object") is not None:
        return None
    raw = transport.get_extra_info("socket")
    if raw is None or len(parsed) >= length:
        return None
    flow.pause_reading()  # uvicorn's own flow control: its receive() would resume it, which nothing calls now
    head = bytes(parsed)
    parsed.clear()
    sock = socket.socket(fileno=os.dup(raw.fileno()))
    sock.settimeout(IDLE_TIMEOUT_S)  # (the descriptor is non-blocking already, as the loop needs it: it stays so)
    send_continue = None
    if getattr(cycle, "waiting_for_100_continue", False):
        cycle.waiting_for_100_continue = False  # type: ignore[union-attr]
        loop = asyncio.get_running_loop()

        def send_continue() -> None:
            loop.call_soon_threadsafe(transport.write, _CONTINUE)

    cycle.keep_alive = False  # type: ignore[union-attr]  # uvicorn answers with Connection: close, then closes
    return SocketBody(head, sock, length, send_continue)


async def no_body() -> MutableMapping[str, Any]:
    """The receive given to the application of a taken-over request: the body is the SocketBody's."""
    return {"type": "http.request", "body": b"", "more_body": False}


WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def with_socket_body(app: WsgiApp) -> WsgiApp:
    """`app`, reading the body of a taken-over request from its socket (a2wsgi hands it an empty Body first); any
    other body is a2wsgi's own, which keeps the file contract Django relies on (`read(n)` returns n bytes unless the
    body ends first)."""

    def wrapped(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        taken_over = environ.get("asgi.scope", {}).get(SCOPE_KEY)
        if taken_over is not None:
            environ["wsgi.input"] = taken_over
        return app(environ, start_response)

    return wrapped
