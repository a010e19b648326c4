"""Baseline for the tank push benchmark: the smallest ASGI app that answers what the tank expects.

Served by the same gunicorn config as the real app (uvicorn's worker), it shows what the HTTP server, the load
generator and the machine cost on their own, so the real app's figures can be read as "push work + buffer" on top
of this.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

_DATA = b'[{"success": 1}]'
_OK = b"ok"

Message = MutableMapping[str, Any]


async def application(
    scope: MutableMapping[str, Any],
    receive: Callable[[], Awaitable[Message]],
    send: Callable[[Message], Awaitable[None]],
) -> None:
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    more = True
    while more:  # read the body, as the real app must
        more = (await receive()).get("more_body", False)
    body = _OK if scope["path"].startswith("/api/monitoring/") else _DATA
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
