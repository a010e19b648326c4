"""The request body Django's thread reads (wsgi.input): a2wsgi's own, or the socket's for a taken-over upload.

a2wsgi's Body keeps the file contract Django relies on (`read(n)` returns n bytes unless the body ends first:
HttpRequest.body is one read of Content-Length bytes). A big phout body does not come this way at all: the thread
that stores it reads it from the socket (socket_body.py), which is where copying the bytes costs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from backend.tankapi.fastpath import StartResponse, WsgiApp
from backend.tankapi.socket_body import SCOPE_KEY


def with_socket_body(app: WsgiApp) -> WsgiApp:
    """`app`, reading the body of a taken-over request from its socket (a2wsgi hands it an empty Body first)."""

    def wrapped(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        taken_over = environ.get("asgi.scope", {}).get(SCOPE_KEY)
        if taken_over is not None:
            environ["wsgi.input"] = taken_over
        return app(environ, start_response)

    return wrapped
