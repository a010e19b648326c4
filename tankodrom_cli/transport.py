"""The CLI's HTTP: one kept-alive connection to the server (http.client), file bodies sent by sendfile(2).

Not requests: importing it is a large part of the CLI's start-up, which the whole upload waits for
(bench/cli/README.md), and it sends a file body by reading it into the process first. Here a file range goes from
the page cache to the socket in the kernel, in slices that move the progress bar. Over https the socket is an SSL
one, and Python's sendfile falls back to reading and sending.
"""

from __future__ import annotations

import http.client
import io
import json
import socket
import urllib.parse
from collections.abc import Callable, Mapping
from typing import Any

# A file body goes in sendfile calls of this many bytes, each followed by a progress update.
SENDFILE_BYTES = 8 * 1024 * 1024


class TransportError(Exception):
    """The server could not be reached, or the connection broke before an answer came."""


class Response:
    """What the server answered: `status_code`, `text`, `json()`."""

    def __init__(self, status_code: int, body: bytes) -> None:
        self.status_code = status_code
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        """The body as JSON; ValueError if it is not JSON."""
        return json.loads(self.body)

    def error(self, body_chars: int = 0) -> str:
        """`HTTP <status>: <the API's error>` for the user; an answer without an `error` field shows the first
        `body_chars` characters of its body (none: just the status)."""
        try:
            body = self.json()
        except ValueError:
            shown = self.text[:body_chars]
        else:
            if isinstance(body, dict) and "error" in body:
                return f"HTTP {self.status_code}: {body['error']}"
            shown = str(body)[:body_chars]
        return f"HTTP {self.status_code}: {shown}" if body_chars else f"HTTP {self.status_code}"


class FileRange:
    """`length` bytes of an open file from `start`, sent as a request body; `sent(n)` is told of every slice."""

    def __init__(self, f: io.BufferedReader, start: int, length: int, sent: Callable[[int], None]) -> None:
        self.f, self.start, self.length, self.sent = f, start, length, sent


class Api:
    def __init__(self, server: str, token: str, timeout_s: float = 600.0) -> None:
        self.server = server.rstrip("/")
        parts = urllib.parse.urlsplit(self.server)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {server!r}")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path  # a server behind a path prefix: every API path goes under it
        self._headers = {"Authorization": f"Token {token}"}
        self.timeout_s = timeout_s
        self._connection: http.client.HTTPConnection | None = None

    def url(self, path: str) -> str:
        return f"{self.server}{path}"

    def call(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        params: Mapping[str, object] | None = None,
        body: FileRange | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        target = self._prefix + path + (f"?{urllib.parse.urlencode(params)}" if params else "")
        all_headers = {**self._headers, **(headers or {})}
        payload = b""
        if json_body is not None:
            payload = json.dumps(json_body).encode()
            all_headers["Content-Type"] = "application/json"
        all_headers["Content-Length"] = str(body.length if body is not None else len(payload))
        # A kept-alive connection the server has closed meanwhile fails at once: a body-less request is sent again
        # on a new one (a file body is not: the CLI's upload resumes where the server says it stopped).
        attempts = 2 if self._connection is not None and body is None else 1
        for attempt in range(1, attempts + 1):
            try:
                return self._exchange(method, target, all_headers, payload, body)
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if attempt == attempts:
                    raise TransportError(f"{method} {self.url(path)}: {exc}") from exc
        raise AssertionError("unreachable: the last attempt returns or raises")

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _exchange(
        self, method: str, target: str, headers: Mapping[str, str], payload: bytes, body: FileRange | None
    ) -> Response:
        connection = self._connect()
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders(payload or None)
        if body is not None:
            try:
                _send_file_range(connection, body)
            except OSError as exc:
                # The server may answer before it has read the whole body (a refused file) and close: its answer
                # is what the user must see, if it came.
                try:
                    answer = _response_of(connection.getresponse())
                except (OSError, http.client.HTTPException):
                    raise exc from None
                self.close()  # the server stopped reading: this connection is done
                return answer
        return _response_of(connection.getresponse())

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._connection = kind(self._host, self._port, timeout=self.timeout_s)
            self._connection.connect()
        return self._connection


def _send_file_range(connection: http.client.HTTPConnection, body: FileRange) -> None:
    sock = connection.sock
    if sock is None:
        raise ConnectionError("the connection closed before the body was sent")
    offset, remaining = body.start, body.length
    while remaining > 0:
        sent = sock.sendfile(body.f, offset, min(SENDFILE_BYTES, remaining))
        if sent == 0:
            # The file shrank: the server is told there is no more (it answers that the body is incomplete).
            sock.shutdown(socket.SHUT_WR)
            return
        offset += sent
        remaining -= sent
        body.sent(sent)


def _response_of(response: http.client.HTTPResponse) -> Response:
    return Response(response.status, response.read())
