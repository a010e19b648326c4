"""Big phout bodies read from the connection's socket by the thread that stores them (backend/fastpaths/socket_body.py),
through the production entry under uvicorn (LiveASGIServer) on the real stores: what is stored, 100-continue,
clients that stop mid-body, refusals that still reach the client, pieces at unaligned offsets."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from backend.fastpaths import socket_body
from backend.loadtests.models import Test, Upload, UploadStatus
from backend.testing import LiveASGIServer, TokenUser
from backend.uploads.digest import digest_of_bytes
from backend.uploads.tests.conftest import final_upload

pytestmark = pytest.mark.django_db(transaction=True)

# Bodies from this size on are taken over (the production threshold is 4 MB; the path is the same).
TAKE_OVER_BYTES = 64 * 1024


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, uploads_env: Path) -> Iterator[LiveASGIServer]:
    monkeypatch.setattr(socket_body, "MIN_BYTES", TAKE_OVER_BYTES)
    with LiveASGIServer() as live:
        yield live


def phout(lines: int, first_ts: int = 1_700_000_000) -> bytes:
    rows = (
        f"{first_ts + i / 1000:.3f}\tcase{i % 3}\t{1000 + i % 977}\t10\t20\t{900 + i % 500}\t70\t{1000 + i % 977}"
        f"\t100\t{200 + i % 50}\t0\t{200 if i % 101 else 503}\n"
        for i in range(lines)
    )
    return "".join(rows).encode()


def url(server: LiveASGIServer, test: Test) -> str:
    return f"{server.url}/api/v1/tests/{test.pk}/phout"


def headers(owner: TokenUser, **extra: str) -> dict[str, str]:
    return {"Authorization": f"Token {owner.raw_token}", **extra}


def raw_request(server: LiveASGIServer, head: str) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    sock.sendall(head.encode("latin-1"))
    return sock


def read_answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"the connection closed before an answer: {data!r}"
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    fields = {name.lower(): value.strip() for name, value in (line.split(":", 1) for line in lines)}
    length = int(fields.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        assert chunk, "the connection closed mid-answer"
        rest += chunk
    return int(status_line.split()[1]), fields, rest[:length]


def put_head(test: Test, owner: TokenUser, length: int, *extra: str) -> str:
    lines = [
        f"PUT /api/v1/tests/{test.pk}/phout HTTP/1.1",
        "Host: localhost",
        f"Authorization: Token {owner.raw_token}",
        f"Content-Length: {length}",
        *extra,
    ]
    return "\r\n".join(lines) + "\r\n\r\n"


def test_a_big_body_is_read_from_the_socket_and_stored_whole(
    server: LiveASGIServer, owner: TokenUser, test_row: Test
) -> None:
    body = phout(20_000)
    assert len(body) > TAKE_OVER_BYTES
    with requests.Session() as http:
        answer = http.put(url(server, test_row), data=body, headers=headers(owner), timeout=60)
        assert answer.status_code == 202, answer.text
        # The HTTP parser never saw these bytes, so the connection cannot carry another request: it closes.
        assert answer.headers.get("connection") == "close"
        upload = final_upload(answer.json()["upload_id"])
        assert upload.status == UploadStatus.READY, upload.error
        assert (upload.lines_total, upload.lines_bad, upload.size_bytes) == (20_000, 0, len(body))
        assert upload.content_digest == digest_of_bytes(body)
        # The session goes on, on a new connection; a small body keeps its connection alive.
        small = http.put(url(server, test_row), data=phout(100), headers=headers(owner), timeout=60)
        assert small.status_code == 202 and small.headers.get("connection") != "close"


def test_body_bytes_the_parser_already_had_come_first(server: LiveASGIServer, owner: TokenUser, test_row: Test) -> None:
    body = phout(20_000)
    with raw_request(server, put_head(test_row, owner, len(body)) + body.decode()) as sock:  # in one write
        status, fields, answer = read_answer(sock)
    assert status == 202 and fields["connection"] == "close", answer
    upload = final_upload(json.loads(answer)["upload_id"])
    assert upload.status == UploadStatus.READY, upload.error
    assert upload.content_digest == digest_of_bytes(body) and upload.lines_total == 20_000


def test_a_client_that_expects_100_continue_gets_it_then_sends(
    server: LiveASGIServer, owner: TokenUser, test_row: Test
) -> None:
    body = phout(10_000)
    sock = raw_request(server, put_head(test_row, owner, len(body), "Expect: 100-continue"))
    with sock:
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"  # nothing of the body sent before it
        sock.sendall(body)
        status, _fields, answer = read_answer(sock)
    assert status == 202, answer
    upload = final_upload(json.loads(answer)["upload_id"])
    assert upload.status == UploadStatus.READY and upload.lines_total == 10_000


def test_a_client_that_stops_mid_body_leaves_nothing(
    server: LiveASGIServer, owner: TokenUser, test_row: Test, uploads_env: Path
) -> None:
    body = phout(10_000)
    # Head and body in one write: the HTTP parser has the body's first bytes when the socket is taken over.
    sock = raw_request(server, put_head(test_row, owner, len(body)) + body[: len(body) // 2].decode())
    sock.close()
    deadline = time.monotonic() + 30
    while not Upload.objects.filter(test=test_row, status=UploadStatus.FAILED).exists():
        assert time.monotonic() < deadline, list(Upload.objects.values("status", "error"))
        time.sleep(0.05)
    upload = Upload.objects.get(test=test_row)
    assert f"the body ended after {len(body) // 2} of {len(body)} bytes" in upload.error
    assert not list((uploads_env / "uploads").glob("*.phout"))


def test_a_refused_body_still_gets_its_answer_to_the_client(
    server: LiveASGIServer, owner: TokenUser, test_row: Test
) -> None:
    # Refused after its first 64 KB: what the client still sends is read and dropped before the answer, else the
    # close would reset the connection while the client sends, and it would never read why.
    not_phout = b"<html>" + b"this is a web page, not a phout file\n" * 500_000
    answer = requests.put(url(server, test_row), data=not_phout, headers=headers(owner), timeout=60)
    assert answer.status_code == 400
    assert "phout" in answer.json()["error"]


def test_pieces_at_unaligned_offsets_make_one_file(server: LiveASGIServer, owner: TokenUser, test_row: Test) -> None:
    body = phout(30_000)
    cut = 2 * TAKE_OVER_BYTES + 4097  # the second piece starts mid-block: ordinary writes, same bytes
    first = requests.put(
        url(server, test_row),
        data=body[:cut],
        headers=headers(owner, **{"Content-Range": f"bytes 0-{cut - 1}/{len(body)}"}),
        timeout=60,
    )
    assert first.status_code == 202 and first.json()["status"] == "receiving", first.text
    upload_id = first.json()["upload_id"]
    second = requests.put(
        url(server, test_row),
        params={"upload": upload_id},
        data=body[cut:],
        headers=headers(owner, **{"Content-Range": f"bytes {cut}-{len(body) - 1}/{len(body)}"}),
        timeout=60,
    )
    assert second.status_code == 202 and second.json()["status"] == "processing", second.text
    upload = final_upload(upload_id)
    assert upload.status == UploadStatus.READY, upload.error
    assert upload.lines_total == 30_000 and upload.lines_bad == 0


class _Transport:
    def __init__(self, extra: dict[str, Any]) -> None:
        self.extra = extra

    def get_extra_info(self, name: str) -> Any:
        return self.extra.get(name)


class _Cycle:
    """What take_over reads of uvicorn's request cycle, to check its refusals without a connection."""

    def __init__(self, transport: _Transport) -> None:
        self.transport, self.flow, self.body, self.more_body = transport, object(), bytearray(), True

    async def receive(self) -> dict[str, Any]:
        raise AssertionError("take_over never receives")


def test_only_plain_bodies_with_a_length_from_uvicorn_are_taken_over() -> None:
    big = (b"content-length", str(10 * socket_body.MIN_BYTES).encode())

    async def not_uvicorns() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    assert socket_body.take_over({"headers": [big]}, not_uvicorns) is None
    tls = _Cycle(_Transport({"sslcontext": object(), "socket": object()}))
    assert socket_body.take_over({"headers": [big]}, tls.receive) is None  # a TLS socket carries ciphertext
    no_socket = _Cycle(_Transport({}))
    assert socket_body.take_over({"headers": [big]}, no_socket.receive) is None
    assert socket_body._declared_length({"headers": [big, (b"transfer-encoding", b"chunked")]}) is None
    assert socket_body._declared_length({"headers": [(b"content-length", b"12"), (b"content-length", b"13")]}) is None
    assert socket_body._declared_length({"headers": [(b"content-length", b"-1")]}) is None
    assert socket_body._declared_length({"headers": [big]}) == 10 * socket_body.MIN_BYTES
    small = _Cycle(_Transport({"socket": object()}))
    assert socket_body.take_over({"headers": [(b"content-length", b"1000")]}, small.receive) is None
