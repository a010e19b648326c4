"""The request body Django's thread reads (wsgi.input), handed over from the event loop without copying it again.

a2wsgi's own body copies every byte three times on the reading thread: into its bytearray, out of it as a slice,
and that slice into `bytes`. A phout upload is read in large pieces (uploads.storage.BODY_READ_BYTES) and the loop
gathers ~1 MB per hand-off (asgi_door.gathering), so a hand-off usually fits a read whole: `PieceBody.read` then
returns the hand-off's own bytes. Such a read may return less than asked while more is coming, which file reads may
do and every reader of a request body here copes with (Django's LimitedStream passes it on; storage.write_body
takes any piece size). Whatever else is asked (read() of everything, readline, a read smaller than a hand-off) goes
through a2wsgi's buffer as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from a2wsgi.wsgi import Body

from backend.tankapi.fastpath import StartResponse, WsgiApp
from backend.tankapi.socket_body import SCOPE_KEY


class PieceBody(Body):
    def read(self, size: int = -1) -> bytes:
        if size < 0 or self.buffer or not self._has_more:
            return super().read(size)
        piece = self._receive_more_data()
        if len(piece) > size:
            self.buffer.extend(memoryview(piece)[size:])  # the rest waits where a2wsgi keeps it
            return piece[:size]
        return piece


def with_piece_body(app: WsgiApp) -> WsgiApp:
    """`app`, reading its request bodies through PieceBody (a2wsgi hands it its own Body first)."""

    def wrapped(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        taken_over = environ.get("asgi.scope", {}).get(SCOPE_KEY)
        if taken_over is not None:  # read from the socket by this thread (socket_body.py)
            environ["wsgi.input"] = taken_over
            return app(environ, start_response)
        body = environ.get("wsgi.input")
        if type(body) is Body and body.has_more and not body.buffer:  # untouched: take over its loop and receive
            environ["wsgi.input"] = PieceBody(body.loop, body.receive)
        return app(environ, start_response)

    return wrapped
