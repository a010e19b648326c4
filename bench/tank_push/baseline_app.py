"""Baseline for the tank push benchmark: the smallest WSGI app that answers what the tank expects.

Served by the same gunicorn config as the real app, it shows what the HTTP server, the load generator and the
machine cost on their own, so the real app's figures can be read as "framework + buffer" on top of this.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

_DATA = b'[{"success": 1}]'
_OK = b"ok"


def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    length = int(environ.get("CONTENT_LENGTH") or 0)
    if length:
        environ["wsgi.input"].read(length)  # read the body, as the real app must
    body = _OK if environ.get("PATH_INFO", "").startswith("/api/monitoring/") else _DATA
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]
