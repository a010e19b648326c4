"""Issue 29: a ClickHouse protocol error (the server closed the conversation mid-query, "Unknown packet") was
answered 503 "storage temporarily unavailable". Now only a server that no longer answers is a 503; a server that
still accepts connections gives a ClickHouseProtocolError, logged with its cause and answered 500 with JSON."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from clickhouse_driver.errors import UnknownPacketFromServerError
from django.core.cache import cache as django_cache

from backend.clickhouse import client
from backend.loadtests.models import Test
from backend.testing import TokenUser
from backend.uploads.tests.conftest import final_upload

pytestmark = pytest.mark.probe

FIXTURES_JTL = b"timeStamp,elapsed,label,responseCode,success,bytes,grpThreads,allThreads,Latency,Connect\n" + b"".join(
    b"%d,%d,case%d,200,true,100,1,1,5,1\n" % (1_700_000_000_000 + i * 100, 10 + i, i % 3) for i in range(50)
)


def _break_queries(monkeypatch: pytest.MonkeyPatch, exc: BaseException, port: int | None = None) -> None:
    """This thread's connection raises `exc` on every query, as the driver does when the server cut it."""
    conn = client._client()

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise exc

    monkeypatch.setattr(conn, "execute", broken)
    if port is not None:
        monkeypatch.setattr(conn.connection, "port", port)


def test_eof_from_a_server_that_still_answers_is_a_protocol_error_logged_with_its_cause(
    clickhouse: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _break_queries(monkeypatch, EOFError("Unexpected EOF while reading bytes"))
    with (
        caplog.at_level(logging.ERROR, logger="backend.clickhouse.client"),
        pytest.raises(client.ClickHouseProtocolError) as raised,
    ):
        client.execute("SELECT 1", tag="probe.eof")
    assert not isinstance(raised.value, client.ClickHouseUnavailable)
    assert any(
        "protocol error (probe.eof)" in r.getMessage() and "Unexpected EOF" in r.getMessage() for r in caplog.records
    )
    client.reset_connections()
    assert client.execute("SELECT 1", tag="probe.after") == [(1,)]


def test_unknown_packet_is_a_protocol_error(clickhouse: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _break_queries(monkeypatch, UnknownPacketFromServerError("Unknown packet 17 from server"))
    with pytest.raises(client.ClickHouseProtocolError):
        client.execute("SELECT 1", tag="probe.packet")
    client.reset_connections()


def test_eof_from_a_server_that_is_gone_is_still_unavailable(clickhouse: None, monkeypatch: pytest.MonkeyPatch) -> None:
    # Port 1 on the same host: nothing listens there, as after the server went down mid-query.
    _break_queries(monkeypatch, EOFError("Unexpected EOF while reading bytes"), port=1)
    with pytest.raises(client.ClickHouseUnavailable):
        client.execute("SELECT 1", tag="probe.gone")
    client.reset_connections()


def test_the_readers_answer_500_with_json_not_503(
    owner: TokenUser, test_row: Test, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    api = owner.client()
    with django_capture_on_commit_callbacks(execute=True):
        put = api.generic("PUT", f"/api/v1/tests/{test_row.pk}/results", FIXTURES_JTL, content_type="text/csv")  # type: ignore[arg-type]
    assert put.status_code == 202, put.content
    assert final_upload(int(put.json()["upload_id"])).error == ""
    django_cache.clear()  # nothing warmed by post-processing answers for ClickHouse
    for path in ("tables", "report"):
        _break_queries(monkeypatch, EOFError("Unexpected EOF while reading bytes"))  # each error drops it
        read = api.get(f"/api/v1/tests/{test_row.pk}/{path}")
        assert read.status_code == 500, (path, read.status_code, read.content[:300])
        assert read.json() == {"error": "storage error; the cause is logged"}
    client.reset_connections()
