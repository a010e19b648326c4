"""The Overload protocol endpoints with the real client's captured bodies, on real PostgreSQL, Redis, ClickHouse."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from backend.clickhouse import client as ch
from backend.clickhouse.tables import monitoring, second_aggregates
from backend.loadtests.models import Test
from backend.loadtests.models import TestStatus as Status
from backend.tankapi import buffer, flush, lifecycle
from backend.testing import clear_push_caches

from .conftest import fixture_bytes, fixture_json

pytestmark = pytest.mark.usefixtures("clickhouse", "redis_db")


def _create(http: Client, token: str, body: bytes | None = None) -> tuple[int, str]:
    resp = http.post(
        f"/api/job/create.json?api_token={token}",
        data=body or fixture_bytes("create.json"),
        content_type="application/json",
    )
    assert resp.status_code == 200, resp.content
    (answer,) = resp.json()
    return int(answer["job"]), str(answer["upload_token"])


def _push(http: Client, job: int, upload: str, token: str, body: bytes) -> Any:
    return http.post(
        f"/api/job/{job}/push_data.json?upload_token={upload}&api_token={token}",
        data=body,
        content_type="application/json",
    )


def _stream_rows(job: int) -> list[tuple[Any, ...]]:
    return ch.execute(
        f"SELECT ts, case, resps, reqps, expect_ms, q99_ms, http_codes, http_counts, hist_bins, hist_counts"
        f" FROM {second_aggregates.NAME} FINAL WHERE test_id = %(t)s AND source_id = 0 ORDER BY ts, case",
        {"t": job},
        tag="tests.tankapi.rows",
    )


def test_create_answers_the_array_the_tank_reads_and_stores_metadata(tank_user: tuple[Any, str]) -> None:
    user, token = tank_user
    http = Client()
    job, upload = _create(http, token)
    assert len(upload) == 32 and upload.isalnum()
    test = Test.objects.get(pk=job)
    assert test.owner == user and test.status == Status.ONLINE
    assert (test.task, test.person, test.tank_host, test.target_port) == ("LOAD-1", "tester", "localhost", "80")
    assert test.notify == ["alice", "bob"] and test.loadscheme == []


@pytest.mark.parametrize("query", ["", "?api_token=", "?api_token=tdm_not-a-token"])
def test_create_refuses_unknown_tokens_with_401_json(tank_user: tuple[Any, str], query: str) -> None:
    resp = Client().post(f"/api/job/create.json{query}", data=b"{}", content_type="application/json")
    assert resp.status_code == 401
    assert "api_token" in resp.json()["error"]
    assert Test.objects.count() == 0


def test_edit_and_configs_fill_the_test(tank_user: tuple[Any, str]) -> None:
    _user, token = tank_user
    http = Client()
    job, _upload = _create(http, token)
    resp = http.post(
        f"/api/job/{job}/edit.json?api_token={token}", data=fixture_bytes("edit.json"), content_type="application/json"
    )
    assert resp.status_code == 200 and resp.json() == [{"success": 1}]
    form = fixture_bytes("configinitial.form")
    for _attempt in range(5):  # the tank sends configinitial five times
        resp = http.post(
            f"/api/job/{job}/configinitial.txt?api_token={token}",
            data=form,
            content_type="application/x-www-form-urlencoded",
        )
        assert resp.status_code == 200
    # Without a Content-Type the urlencoded body is still read; console.txt (legacy) is accepted.
    resp = http.generic("POST", f"/api/job/{job}/configinfo.txt?api_token={token}", b"configinfo=core%3A+%7B%7D")
    assert resp.status_code == 200
    assert http.post(f"/api/job/{job}/console.txt?api_token={token}", {"console": "x"}).status_code == 200
    test = Test.objects.get(pk=job)
    # edit.json said instances "1" (BFG's get_info()); the config says `bfg: {instances: 4}`: the config wins.
    assert (test.name, test.version, test.component, test.instances, test.tank_type, test.loop) == (
        "bfg-smoke",
        "1.2.3",
        "demo-component",
        4,
        1,
        "0",
    )
    assert test.config_initial.startswith("autostop:\n  autostop:\n  - time(5s, 10s)")
    assert test.config_info == "core: {}"
    # tank-postloader's edit: nulls keep what is there; a partial body (Lunapark imbalance) is fine.
    for body in (fixture_bytes("edit_postloader.json"), b'{"imbalance": 120}'):
        resp = http.post(f"/api/job/{job}/edit.json?api_token={token}", data=body, content_type="application/json")
        assert resp.status_code == 200 and resp.json() == [{"success": 1}]
    test.refresh_from_db()
    assert test.version == "1.2.3" and test.instances == 4  # the postloader's "0" does not undo the config's


def test_another_users_token_cannot_touch_the_job(
    http: Client, tank_user: tuple[Any, str], other_user: tuple[Any, str]
) -> None:
    _user, token = tank_user
    _other, other_token = other_user
    job, upload = _create(http, token)
    edit = http.post(f"/api/job/{job}/edit.json?api_token={other_token}", data=b"{}", content_type="application/json")
    assert edit.status_code == 403
    push = _push(http, job, upload, other_token, fixture_bytes("push_data_bfg_1795316038.json"))
    assert push.status_code == 403
    assert http.get(f"/api/job/{job}/close.json?exitcode=0&api_token={other_token}").status_code == 403
    assert buffer.backlog() == 0


def test_push_data_is_buffered_then_flushed_once_even_when_retried(http: Client, tank_user: tuple[Any, str]) -> None:
    _user, token = tank_user
    job, upload = _create(http, token)
    body = fixture_bytes("push_data_bfg_1795316038.json")
    for _attempt in range(2):  # a 5xx retry sends the same second again with a new request id
        resp = _push(http, job, upload, token, body)
        assert resp.status_code == 200 and resp.json() == [{"success": 1}]
    assert buffer.backlog() == 2
    flush.flush_all()
    _push(http, job, upload, token, body)  # and once more after the first flush
    result = flush.flush_all()
    assert result.entries == 1 and buffer.backlog() == 0
    rows = _stream_rows(job)
    assert [(r[0], r[1], r[2]) for r in rows] == [(1795316038, "", 2), (1795316038, "index", 2)]
    _ts, _case, _resps, reqps, expect_ms, q99_ms, http_codes, http_counts, hist_bins, hist_counts = rows[1]
    assert reqps == 3.0 and expect_ms == pytest.approx(43.6635) and q99_ms == pytest.approx(53.82267)
    assert (http_codes, http_counts, hist_counts) == ([200], [2], [1, 1])
    assert len(hist_bins) == 2
    raw_count = ch.execute(
        f"SELECT count() FROM {second_aggregates.NAME} FINAL WHERE test_id = %(t)s", {"t": job}, tag="tests.tankapi"
    )
    assert raw_count == [(2,)]
    test = Test.objects.get(pk=job)
    assert test.has_stream and (test.first_ts, test.last_ts) == (1795316038, 1795316038)
    assert test.last_push_at is not None


def test_phantom_push_keeps_phases_sizes_and_threads(http: Client, tank_user: tuple[Any, str]) -> None:
    _user, token = tank_user
    job, upload = _create(http, token)
    body = fixture_bytes("push_data_phantom_1545332697.json")
    assert _push(http, job, upload, token, body).status_code == 200
    flush.flush_all()
    items = fixture_json("push_data_phantom_1545332697.json")
    rows = ch.execute(
        f"SELECT case, threads, input_bytes, output_bytes, connect_time_ms, latency_ms, resps"
        f" FROM {second_aggregates.NAME} FINAL WHERE test_id = %(t)s ORDER BY case",
        {"t": job},
        tag="tests.tankapi.phantom",
    )
    expected = sorted(
        (
            "" if i["overall"] else i["case"],
            i["trail"]["threads"],
            i["trail"]["input"],
            i["trail"]["output"],
            pytest.approx(i["trail"]["connect_time"]),
            pytest.approx(i["trail"]["latency"]),
            i["trail"]["resps"],
        )
        for i in items
    )
    assert rows == expected


def test_legacy_datetime_time_is_stored_as_that_utc_second(http: Client, tank_user: tuple[Any, str]) -> None:
    _user, token = tank_user
    job, upload = _create(http, token)
    items = fixture_json("push_data_bfg_1795316038.json")
    for item in items:
        item["trail"]["time"] = "2026-11-22 02:53:58"
    assert _push(http, job, upload, token, json.dumps(items).encode()).status_code == 200
    flush.flush_all()
    assert {r[0] for r in _stream_rows(job)} == {1795316038}


@pytest.mark.parametrize(
    ("query", "body", "status", "message"),
    [
        ("upload_token=wrong", None, 404, "does not exist"),  # as a missing job: no probing of job numbers
        ("", None, 404, "does not exist"),
        ("UPLOAD&api_token=tdm_unknown", None, 401, "api_token"),
        ("UPLOAD", b'[{"trail": {}}]', 400, "item 0: trail.time is missing"),
        ("UPLOAD", b"not json", 400, "not valid JSON"),
    ],
)
def test_bad_pushes_are_refused_with_json_errors(
    http: Client, tank_user: tuple[Any, str], query: str, body: bytes | None, status: int, message: str
) -> None:
    _user, token = tank_user
    job, upload = _create(http, token)
    query = query.replace("UPLOAD", f"upload_token={upload}")
    resp = http.post(
        f"/api/job/{job}/push_data.json?{query}",
        data=body or fixture_bytes("push_data_bfg_1795316038.json"),
        content_type="application/json",
    )
    assert resp.status_code == status and message in resp.json()["error"]
    assert buffer.backlog() == 0


def test_push_to_unknown_job_is_404(http: Client, tank_user: tuple[Any, str]) -> None:
    resp = http.post("/api/job/999999/push_data.json?upload_token=x", data=b"[]", content_type="application/json")
    assert resp.status_code == 404 and "999999" in resp.json()["error"]


def test_monitoring_without_content_type_lands_per_host_and_metric(http: Client, tank_user: tuple[Any, str]) -> None:
    _user, token = tank_user
    job, upload = _create(http, token)
    body = fixture_bytes("monitoring_1795316039.json")
    url = f"/api/monitoring/receiver/push?job_id={job}&upload_token={upload}&api_token={token}"
    resp = http.generic("POST", url, body)  # no Content-Type at all, as the tank sends it
    assert resp.status_code == 200 and resp.content == b"ok"
    assert http.generic("POST", url, body).status_code == 200  # a retried chunk
    flush.flush_all()
    metrics = fixture_json("monitoring_1795316039.json")[0]["data"]["localhost"]["metrics"]
    rows = ch.execute(
        f"SELECT metric, value FROM {monitoring.NAME} FINAL WHERE test_id = %(t)s AND host = 'localhost'"
        " AND ts = 1795316039 ORDER BY metric",
        {"t": job},
        tag="tests.tankapi.monitoring",
    )
    assert rows == sorted((name, float(value)) for name, value in metrics.items())
    test = Test.objects.get(pk=job)
    assert not test.has_stream and test.last_push_at is not None


def test_close_names_the_exit_code_and_queues_post_processing(
    http: Client,
    tank_user: tuple[Any, str],
    redis_db: Any,
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from backend.reports.tasks import postprocess_test

    queued: list[int] = []
    monkeypatch.setattr(postprocess_test, "delay", queued.append)
    _user, token = tank_user
    job, upload = _create(http, token)
    assert _push(http, job, upload, token, fixture_bytes("push_data_bfg_1795316038.json")).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        resp = http.get(f"/api/job/{job}/close.json?exitcode=22&api_token={token}")
    assert resp.status_code == 200 and resp.json() == [{"success": 1}]
    test = Test.objects.get(pk=job)
    assert (test.status, test.exit_code, test.exit_reason) == (Status.PROCESSING, 22, EXIT_22)
    assert not test.closed_by_silence and test.finished_at is not None
    # The close flushed the buffer before queueing the post-processing.
    assert buffer.backlog() == 0 and len(_stream_rows(job)) == 2
    assert queued == [job]
    # Closing again is harmless; pushing after close is refused with 410 (the tank stops its data thread).
    with django_capture_on_commit_callbacks(execute=True):
        assert http.get(f"/api/job/{job}/close.json?exitcode=0&api_token={token}").status_code == 200
    assert queued == [job] and Test.objects.get(pk=job).exit_code == 22
    clear_push_caches()
    assert _push(http, job, upload, token, fixture_bytes("push_data_bfg_1795316038.json")).status_code == 410


EXIT_22 = "autostop: http (HTTP codes over limit)"


def test_pushes_get_503_while_clickhouse_is_marked_down(http: Client, tank_user: tuple[Any, str]) -> None:
    _user, token = tank_user
    job, upload = _create(http, token)
    buffer.mark_clickhouse_down(5_000)
    resp = _push(http, job, upload, token, fixture_bytes("push_data_bfg_1795316038.json"))
    assert resp.status_code == 503 and "ClickHouse" in resp.json()["error"]
    buffer.mark_clickhouse_up()
    assert _push(http, job, upload, token, fixture_bytes("push_data_bfg_1795316038.json")).status_code == 200


def test_pushes_get_503_while_redis_is_down(http: Client, tank_user: tuple[Any, str], settings: Any) -> None:
    _user, token = tank_user
    job, upload = _create(http, token)
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    resp = _push(http, job, upload, token, fixture_bytes("push_data_bfg_1795316038.json"))
    assert resp.status_code == 503 and "Redis" in resp.json()["error"]


def test_unparseable_buffer_entry_goes_to_dead_letters_without_blocking(
    http: Client, tank_user: tuple[Any, str]
) -> None:
    _user, token = tank_user
    job, upload = _create(http, token)
    buffer.append(buffer.KIND_DATA_ROWS, job, b"{broken")
    assert _push(http, job, upload, token, fixture_bytes("push_data_bfg_1795316038.json")).status_code == 200
    result = flush.flush_all()
    assert (result.entries, result.dead_letters, result.second_rows) == (2, 1, 2)
    assert buffer.backlog() == 0 and buffer.connection().xlen(buffer.DEAD_LETTER_KEY) == 1


@pytest.mark.parametrize(
    ("method", "path", "expected"),
    [
        ("get", "/api/task/LOAD-1/summary.json", [{"status": "Open", "name": "LOAD-1"}]),
        ("get", "/api/server/lock.json?action=lock&address=h&duration=1800&jobno=None", [{"success": 1}]),
        ("post", "/api/job/JOB/set_imbalance.json", [{"success": 1}]),
        ("post", "/api/job/JOB/event.json", [{"success": 1}]),
        ("patch", "/api/v2/jobs/JOB/?upload_token=x", [{"success": 1}]),
        ("get", "/api/job/JOB/summary.json", [{"dsc": "", "name": "", "status": "online"}]),
    ],
)
def test_lunapark_and_legacy_calls_answer_harmlessly(
    tank_user: tuple[Any, str], method: str, path: str, expected: Any
) -> None:
    _user, token = tank_user
    http = Client()
    job, _upload = _create(http, token)
    resp = getattr(http, method)(path.replace("JOB", str(job)))
    assert resp.status_code == 200 and resp.json() == expected


def test_silent_tests_are_closed_and_marked(
    http: Client, tank_user: tuple[Any, str], settings: Any, django_capture_on_commit_callbacks: Any, redis_db: Any
) -> None:
    _user, token = tank_user
    settings.TANKODROM_ONLINE_SILENCE_S = 60
    silent, _u1 = _create(http, token)
    busy, busy_upload = _create(http, token)
    fresh, _u3 = _create(http, token)
    from datetime import timedelta

    from django.utils import timezone

    long_ago = timezone.now() - timedelta(seconds=600)
    Test.objects.filter(pk__in=[silent, busy]).update(created_at=long_ago, last_push_at=long_ago)
    # `recent` pushed just now and was flushed, but its PostgreSQL last_push_at is old: Redis's time keeps it open.
    recent, recent_upload = _create(http, token)
    Test.objects.filter(pk=recent).update(created_at=long_ago)
    monitoring_url = f"/api/monitoring/receiver/push?job_id={recent}&upload_token={recent_upload}&api_token={token}"
    assert http.generic("POST", monitoring_url, fixture_bytes("monitoring_1795316039.json")).status_code == 200
    assert flush.flush_all().entries == 1
    Test.objects.filter(pk=recent).update(last_push_at=long_ago)
    # `busy` has a push waiting in the buffer and an old last-push time: only the backlog keeps it open.
    assert _push(http, busy, busy_upload, token, fixture_bytes("push_data_bfg_1795316038.json")).status_code == 200
    buffer.connection().hset(buffer.LAST_PUSH_KEY, str(busy), 0)
    with django_capture_on_commit_callbacks(execute=True):
        closed = lifecycle.close_silent_tests()
    assert closed == [silent]
    test = Test.objects.get(pk=silent)
    assert test.status == Status.PROCESSING and test.closed_by_silence and test.exit_code is None
    assert "60 s" in test.exit_reason
    assert Test.objects.get(pk=busy).status == Status.ONLINE
    assert Test.objects.get(pk=recent).status == Status.ONLINE
    assert Test.objects.get(pk=fresh).status == Status.ONLINE


def test_buffered_rows_follow_the_table_columns() -> None:
    from analytics.schema.seconds import ROW_FIELDS

    assert (*second_aggregates.COLUMNS[:2], *ROW_FIELDS, second_aggregates.COLUMNS[-1]) == second_aggregates.COLUMNS


def test_entries_of_an_unknown_kind_go_to_dead_letters(http: Client, tank_user: tuple[Any, str]) -> None:
    """The tank's raw bytes under a kind the flusher does not read (as an older version wrote them): kept with
    the reason in the dead letters, and the rows beside them land as usual."""
    _user, token = tank_user
    job, upload = _create(http, token)
    raw = fixture_bytes("push_data_bfg_1795316038.json")
    buffer.append("d", job, raw)
    assert _push(http, job, upload, token, raw).status_code == 200
    result = flush.flush_all()
    assert (result.entries, result.second_rows, result.dead_letters) == (2, 2, 1)
    (letter,) = buffer.dead_letters()
    assert (letter.kind, letter.test_id, letter.body) == (
        "d",
        job,
        raw,
    ) and "unknown buffer entry kind" in letter.reason


def test_nan_written_by_the_tank_is_accepted_and_stored_as_zero(http: Client, tank_user: tuple[Any, str]) -> None:
    """Python's json.dumps (the tank's) writes NaN for a phase nothing measured; it is not strict JSON."""
    _user, token = tank_user
    job, upload = _create(http, token)
    body = fixture_bytes("push_data_bfg_1795316038.json").replace(b'"expect": 43.6635', b'"expect": NaN')
    assert b"NaN" in body
    assert _push(http, job, upload, token, body).status_code == 200
    flush.flush_all()
    assert [row[4] for row in _stream_rows(job)] == [0.0, 0.0]


def test_writer_endpoint_takes_trail_and_monitoring_objects(http: Client, tank_user: tuple[Any, str]) -> None:
    """`writer_endpoint: http://HOST:8000/api/writer`: {"trail": items} / {"monitoring": chunks}, no api_token."""
    _user, token = tank_user
    job, upload = _create(http, token)
    url = f"/api/writer?jobno={job}&upload_token={upload}"
    trail = {"trail": fixture_json("push_data_bfg_1795316038.json")}
    resp = http.post(url, data=json.dumps(trail), content_type="application/json")
    assert resp.status_code == 200 and resp.json() == {"success": 1}
    mon = {"monitoring": fixture_json("monitoring_1795316039.json")}
    assert http.post(url, data=json.dumps(mon), content_type="application/json").json() == {"success": 1}
    bad = http.post(url, data=b'{"other": 1}', content_type="application/json")
    assert bad.status_code == 400 and "trail" in bad.json()["error"]
    wrong = http.post(
        f"/api/writer?jobno={job}&upload_token=nope", data=json.dumps(trail), content_type="application/json"
    )
    assert wrong.status_code == 404 and wrong.json()["error"] == f"job {job} does not exist"
    result = flush.flush_all()
    assert (result.entries, result.second_rows) == (2, 2) and result.monitoring_rows > 20
