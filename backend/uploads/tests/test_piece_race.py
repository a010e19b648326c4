"""Two clients sending the same piece of a resumable upload at once, through the production entry (uvicorn): one
writes, the other is told 409 before its body is read, and the file holds one body's bytes only (issue 19 item 4)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from django.db import connection

from backend.clickhouse import client
from backend.clickhouse.tables import samples
from backend.loadtests.models import Test, UploadStatus
from backend.testing import LiveASGIServer, TokenUser
from backend.uploads import locks
from backend.uploads.tests.conftest import final_upload
from backend.uploads.tests.test_upload_socket import headers, put_head, raw_request, read_answer, url

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(uploads_env: Path) -> Iterator[LiveASGIServer]:
    with LiveASGIServer() as live:
        yield live


def lines(tag: str, n: int, first_ts: int) -> bytes:
    return b"".join(
        f"{first_ts + i / 100:.3f}\t{tag}\t{1000 + i}\t10\t20\t900\t70\t0\t100\t2000\t0\t200\n".encode()
        for i in range(n)
    )


def piece_lock_held(upload_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s AND granted",
            [locks.WRITING, upload_id],
        )
        return bool(cursor.fetchone()[0])


def test_the_same_piece_from_two_clients_at_once_is_written_by_one_only(
    server: LiveASGIServer, owner: TokenUser, test_row: Test
) -> None:
    first = lines("first", 1000, 1_700_000_000)
    alpha, beta = lines("alpha", 1000, 1_700_000_100), lines("betaa", 1000, 1_700_000_100)
    assert len(alpha) == len(beta)
    total = len(first) + len(alpha)
    answer = requests.put(
        url(server, test_row),
        data=first,
        headers=headers(owner, **{"Content-Range": f"bytes 0-{len(first) - 1}/{total}"}),
        timeout=30,
    )
    assert answer.status_code == 202, answer.text
    upload_id = answer.json()["upload_id"]
    piece_range = f"Content-Range: bytes {len(first)}-{total - 1}/{total}"

    def send_b() -> requests.Response:
        """Client B's request: the same piece with other bytes, whole."""
        piece_headers = headers(owner, **{"Content-Range": piece_range.split(": ", 1)[1]})
        return requests.put(
            url(server, test_row), params={"upload": upload_id}, data=beta, headers=piece_headers, timeout=30
        )

    # Client A sends its head and half its piece, then pauses: it holds the upload while its body trickles in.
    head = put_head(test_row, owner, len(alpha), piece_range).replace("/phout ", f"/phout?upload={upload_id} ")
    slow = raw_request(server, head)
    slow.sendall(alpha[: len(alpha) // 2])
    deadline = time.monotonic() + 10
    while not piece_lock_held(upload_id):
        assert time.monotonic() < deadline, "client A's request never took the upload"
        time.sleep(0.02)

    # Client B sends the same piece with other bytes, whole: refused at once, nothing of it written.
    other = send_b()
    assert other.status_code == 409, other.text
    assert "another request is writing upload" in other.json()["error"]

    slow.sendall(alpha[len(alpha) // 2 :])
    status, _fields, body = read_answer(slow)
    slow.close()
    assert status == 202, body

    upload = final_upload(upload_id)
    assert upload.status == UploadStatus.READY, upload.error
    assert (upload.lines_total, upload.lines_bad) == (2000, 0)
    tags = client.execute(
        f"SELECT tag, count() FROM {samples.NAME} WHERE test_id = %(t)s AND upload_id = %(u)s "
        "GROUP BY tag ORDER BY tag",
        {"t": test_row.pk, "u": upload_id},
        tag="tests.piece_race_tags",
    )
    assert tags == [("alpha", 1000), ("first", 1000)]  # nothing of B's body

    # Once A is done, B's piece is refused for what it is: the upload is complete.
    late = send_b()
    assert late.status_code == 409 and "already complete" in late.json()["error"]
