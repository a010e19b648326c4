"""tankodrom_cli.transport against a bare socket server that behaves as a proxy in front of Tankodrom may."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tankodrom_cli.transport import Api, FileRange, TransportError

TOO_LARGE = (
    b"HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nContent-Length: 29\r\n"
    b"Connection: close\r\n\r\n"
    b'{"error": "body over 1 MB"}\r\n'
)


@pytest.fixture
def refusing_server() -> Iterator[str]:
    """Answers 413 as soon as it has the request's head, then closes without reading the body (nginx's
    client_max_body_size does the answering; a server that closes at once is the harder case for the client)."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            head = b""
            while b"\r\n\r\n" not in head:
                head += conn.recv(65536)
            conn.sendall(TOO_LARGE)
            time.sleep(0.2)  # the answer reaches the client while it is still sending

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    thread.join(timeout=5)
    listener.close()


def test_an_answer_before_the_body_is_read_is_what_the_caller_gets(refusing_server: str, tmp_path: Path) -> None:
    big = tmp_path / "big.phout"
    big.write_bytes(b"x" * (64 * 1024 * 1024))
    sent: list[int] = []
    with big.open("rb") as f:
        response = Api(refusing_server, "t").call(
            "PUT", "/api/v1/tests/1/phout", body=FileRange(f, 0, 64 << 20, sent.append)
        )
    assert response.status_code == 413
    assert response.json() == {"error": "body over 1 MB"}
    assert sum(sent) < 64 << 20  # it stopped sending


def test_a_server_that_is_not_there() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(TransportError, match=f"GET http://127.0.0.1:{port}/x"):
        Api(f"http://127.0.0.1:{port}", "t").call("GET", "/x")
