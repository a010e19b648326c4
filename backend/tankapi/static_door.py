"""Static files answered on the ASGI door's event loop, by WhiteNoise's own lookup and headers.

Through Django they take a thread of the WSGI pool and hand every 8 KB block of the file from that thread to the
loop: when a chat opens a report at once, the chart library's chunk (~350 KB gzipped) for each visitor kept the
threads busy and the pages' own requests queued behind them (bench/report_burst/README.md). Here a file is looked
up in WhiteNoise's table (the same files, the same headers: compressed copies, ETag, immutable for hashed assets,
304 and ranges), Django's security headers are added as the door adds them to a push (asgi_door._profile), and the
body is sent in large blocks from the loop (the files are small and in the page cache). Anything WhiteNoise does not
know, or that Django must decide (a disallowed Host, an HTTPS redirect), goes to Django as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from django.conf import settings

Scope = MutableMapping[str, Any]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
BLOCK_BYTES = 256 * 1024

_whitenoise: Any = None


def _files() -> Any:
    global _whitenoise
    if _whitenoise is None:
        from whitenoise.middleware import WhiteNoiseMiddleware  # type: ignore[import-untyped]

        _whitenoise = WhiteNoiseMiddleware(lambda _request: None)
    return _whitenoise


def lookup(scope: Scope) -> Any:
    """WhiteNoise's file for this GET/HEAD under STATIC_URL, or None."""
    if scope["method"] not in ("GET", "HEAD") or not scope["path"].startswith(settings.STATIC_URL):
        return None
    files = _files()
    if files.autorefresh:
        return files.find_file(scope["path"])
    return files.files.get(scope["path"])


def _meta(scope: Scope) -> dict[str, str]:
    meta: dict[str, str] = {}
    for name, value in scope["headers"]:
        key = "HTTP_" + name.decode("latin-1").upper().replace("-", "_")
        meta[key] = f"{meta[key]},{value.decode('latin-1')}" if key in meta else value.decode("latin-1")
    return meta


async def serve(scope: Scope, send: Send, static_file: Any, extra_headers: tuple[tuple[str, str], ...]) -> None:
    response = static_file.get_response(scope["method"], _meta(scope))
    names = {name.lower() for name, _value in response.headers}
    headers = [*response.headers, *((n, v) for n, v in extra_headers if n.lower() not in names)]
    await send(
        {
            "type": "http.response.start",
            "status": int(response.status),
            "headers": [(n.encode("latin-1"), str(v).encode("latin-1")) for n, v in headers],
        }
    )
    body = response.file
    if body is None:
        await send({"type": "http.response.body", "body": b""})
        return
    try:
        while True:
            block = body.read(BLOCK_BYTES)
            more = len(block) == BLOCK_BYTES
            await send({"type": "http.response.body", "body": block, "more_body": more})
            if not more:
                break
    finally:
        body.close()
