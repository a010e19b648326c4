"""Local HTTP receivers on 127.0.0.1 standing in for Slack, Teams, Telegram and webhook endpoints: no traffic
leaves the machine. A receiver records what it got and answers as told: 200, 500 a few times, slowly, or not at
all (a port nobody listens on)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from backend.testing import free_port


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    """Answers `failures` requests with `fail_status`, then 200; each answer waits `delay_s` first."""

    failures: int = 0
    fail_status: int = 500
    delay_s: float = 0.0
    got: list[Received] = field(default_factory=list)
    port: int = 0
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.got.append(Received(self.path, dict(self.headers.items()), body))
                if receiver.delay_s:
                    time.sleep(receiver.delay_s)
                failing = receiver.failures > 0
                if failing:
                    receiver.failures -= 1
                status = receiver.fail_status if failing else 200
                answer = b'{"ok": false}' if failing else b'{"ok": true}'
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except OSError:
                    pass  # the client gave up waiting (the slow receiver)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()


def down_url() -> str:
    """An address on 127.0.0.1 where nothing listens: connections are refused."""
    return f"http://127.0.0.1:{free_port()}/hook"
