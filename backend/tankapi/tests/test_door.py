"""The ASGI door in front of Django, in process: what it serves, what it leaves to Django, and that a push answered
by it is the answer Django's view gives (the behaviour itself is covered through both adapters in test_protocol.py,
the door under uvicorn in test_asgi_door.py)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.core.signals import request_finished, request_started
from django.test import Client, RequestFactory

from backend.fastpaths.asgi_door import TankPushASGI, route
from backend.tankapi import buffer, lifecycle, push

from .conftest import DoorClient, fixture_bytes, scope_of

pytestmark = pytest.mark.usefixtures("clickhouse", "redis_db")


def _scope(method: str, path: str, extra: dict[str, str] | None = None, body: bytes = b"[]") -> dict[str, Any]:
    factory = RequestFactory(headers={"host": "testserver"})
    environ: dict[str, Any] = factory.generic(method, path, body, content_type="application/json").environ
    environ.update(extra or {})
    return scope_of(environ)


def test_production_entry_puts_the_door_in_front_of_django() -> None:
    from backend.asgi import application

    assert isinstance(application, TankPushASGI)


@pytest.mark.parametrize(
    "path",
    [
        "/api/job/7/push_data.json",
        "/api/job/7/push_data.json/",
        "/api/monitoring/receiver/push",
        "/api/monitoring/receiver/push/",
        "/api/writer",
        "/api/writer/",
    ],
)
def test_push_paths_are_routed_to_the_door(path: str) -> None:
    assert route(_scope("POST", f"{path}?upload_token=u")) is not None


@pytest.mark.parametrize(
    ("method", "path", "extra", "why"),
    [
        ("GET", "/api/job/7/push_data.json", {}, "other methods: the view answers 405"),
        ("POST", "/api/job/7/edit.json", {}, "not a push"),
        ("POST", "/api/job/x7/push_data.json", {}, "not a job number"),
        ("POST", "/api/v1/tests/", {}, "the JSON API"),
        ("POST", "/api/job/7/push_data.json", {"CONTENT_LENGTH": ""}, "chunked: Django reads it as empty"),
        ("POST", "/api/job/7/push_data.json", {"CONTENT_LENGTH": "x"}, "a bad Content-Length: Django's 400"),
        ("POST", "/api/job/7/push_data.json", {"HTTP_HOST": "evil.example"}, "a disallowed Host: Django's 400"),
    ],
)
def test_anything_unusual_goes_to_django(method: str, path: str, extra: dict[str, str], why: str) -> None:
    assert route(_scope(method, path, extra)) is None, why


def test_a_request_without_host_goes_to_django() -> None:
    scope = _scope("POST", "/api/writer")
    scope["headers"] = [(name, value) for name, value in scope["headers"] if name != b"host"]
    assert route(scope) is None


def test_bodies_over_the_limit_get_djangos_413(settings: Any) -> None:
    settings.TANKODROM_MAX_BODY_BYTES = 10
    client = DoorClient()
    resp = client.post("/api/job/7/push_data.json?upload_token=u", data=b"[" + b" " * 20 + b"]", content_type="x/y")
    assert resp.status_code == 413 and "TANKODROM_MAX_BODY_BYTES" in resp.json()["error"]
    assert client.slow == [("POST", "/api/job/7/push_data.json")] and not client.fast


def test_https_redirect_and_hsts_follow_the_settings(settings: Any, tank_user: tuple[Any, str]) -> None:
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SECURE_HSTS_SECONDS = 3600
    client = DoorClient()
    plain = client.post("/api/writer?jobno=1", data=b"{}", content_type="application/json")
    assert plain.status_code == 301 and plain["Location"].startswith("https://")
    assert client.slow == [("POST", "/api/writer")]
    proxied = client.post(
        "/api/writer?jobno=1", data=b"{}", content_type="application/json", HTTP_X_FORWARDED_PROTO="https"
    )
    assert proxied.status_code == 404 and proxied["Strict-Transport-Security"] == "max-age=3600"
    assert client.fast == [("POST", "/api/writer")]


class AddsAHeader:
    """A middleware the door has never heard of (settings.MIDDLEWARE gains it in a test)."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        response = self.get_response(request)
        response["X-Added-By"] = "middleware"
        return response


def test_the_doors_headers_come_from_djangos_middleware_as_settings_list_it(
    settings: Any, tank_user: tuple[Any, str]
) -> None:
    """The door takes its headers from Django's own middleware chain: a middleware added to settings shows in its
    answers as in Django's, with no change to the door."""
    _user, token = tank_user
    job, upload = _create(token)
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.AddsAHeader"]
    settings.SECURE_REFERRER_POLICY = "no-referrer"
    url = f"/api/monitoring/receiver/push?job_id={job}&upload_token={upload}"
    body = fixture_bytes("monitoring_1795316039.json")
    by_django = Client(headers={"host": "testserver"}).generic("POST", url, body)
    fast = DoorClient()
    by_door = fast.generic("POST", url, body)
    assert fast.fast == [("POST", "/api/monitoring/receiver/push")]
    assert by_door["X-Added-By"] == "middleware" and by_door["Referrer-Policy"] == "no-referrer"
    assert dict(by_door.headers) == dict(by_django.headers)


def test_a_redirect_the_middleware_decides_goes_to_django(settings: Any) -> None:
    settings.PREPEND_WWW = True
    client = DoorClient()
    resp = client.post("/api/writer?jobno=1", data=b"{}", content_type="application/json")
    assert resp.status_code == 301 and resp["Location"].startswith("http://www.testserver/")
    assert client.slow == [("POST", "/api/writer")] and not client.fast


def _create(token: str) -> tuple[int, str]:
    resp = Client().post(
        f"/api/job/create.json?api_token={token}", data=fixture_bytes("create.json"), content_type="application/json"
    )
    (answer,) = resp.json()
    return int(answer["job"]), str(answer["upload_token"])


def test_both_doors_answer_the_same_bytes_headers_and_log_records(
    tank_user: tuple[Any, str], caplog: pytest.LogCaptureFixture
) -> None:
    _user, token = tank_user
    job, upload = _create(token)
    data = fixture_bytes("push_data_bfg_1795316038.json")
    requests = [
        (f"/api/job/{job}/push_data.json?upload_token={upload}&api_token={token}", data),
        (f"/api/job/{job}/push_data.json?upload_token={upload}&api_token={token}", b'[{"trail": {}}]'),
        (f"/api/job/{job}/push_data.json?upload_token=wrong", data),
        (f"/api/job/{job}/push_data.json?upload_token={upload}&api_token=tdm_unknown", data),
        (f"/api/job/{job + 1000}/push_data.json?upload_token={upload}", data),
        (
            f"/api/monitoring/receiver/push?job_id={job}&upload_token={upload}",
            fixture_bytes("monitoring_1795316039.json"),
        ),
        (f"/api/monitoring/receiver/push?job_id=x&upload_token={upload}", b"[]"),
        (f"/api/writer?jobno={job}&upload_token={upload}", b'{"other": 1}'),
    ]
    fast = DoorClient()
    for url, body in requests:
        caplog.clear()
        by_django = Client(headers={"host": "testserver"}).generic("POST", url, body)
        django_log = [(r.levelno, r.getMessage()) for r in caplog.records]
        caplog.clear()
        by_door = fast.generic("POST", url, body)
        assert by_door.status_code == by_django.status_code, url
        assert by_door.content == by_django.content, url
        assert dict(by_door.headers) == dict(by_django.headers), url
        # Refusals are logged alike (django.request warnings for 4xx), so operators see them either way.
        assert [(r.levelno, r.getMessage()) for r in caplog.records] == django_log, url
    assert len(fast.fast) == len(requests) and not fast.slow
    assert buffer.backlog() == 4  # the good data push and the monitoring chunk, through each door


def test_an_exception_is_logged_and_answered_500(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*_args: object) -> push.Answer:
        raise RuntimeError("boom")

    monkeypatch.setattr(push, "push_monitoring", broken)
    client = DoorClient()
    with caplog.at_level(logging.ERROR, logger="django.request"):
        answer = client.post("/api/monitoring/receiver/push", data=b"[]", content_type="application/json")
    client.close()
    assert (answer.status_code, answer["Content-Type"], answer.content) == (
        500,
        "application/json",
        b'{"error": "internal server error"}',
    )
    (record,) = caplog.records
    assert record.getMessage() == "Internal Server Error: /api/monitoring/receiver/push" and record.exc_info
    assert record.levelno == logging.ERROR and "boom" in caplog.text


def test_database_reads_get_djangos_request_cycle_and_cached_pushes_none(
    transactional_db: None, tank_caches: None
) -> None:
    """As under gunicorn: the connection checks of request_started / request_finished run around the reads a push
    makes, and only then."""
    from django.contrib.auth.models import User

    test = lifecycle.create_test(User.objects.create_user("cycle", password="x-not-used-5"), {})
    signals: list[str] = []

    def on_started(**_kwargs: object) -> None:
        signals.append("started")

    def on_finished(**_kwargs: object) -> None:
        signals.append("finished")

    request_started.connect(on_started)
    request_finished.connect(on_finished)
    client = DoorClient()
    url = f"/api/monitoring/receiver/push?job_id={test.pk}&upload_token={test.upload_token}"
    body = fixture_bytes("monitoring_1795316039.json")
    try:
        first = client.post(url, data=body, content_type="application/json")
        after_first = list(signals)
        second = client.post(url, data=body, content_type="application/json")
    finally:
        request_started.disconnect(on_started)
        request_finished.disconnect(on_finished)
        client.close()
    assert (first.status_code, first.content, second.status_code) == (200, b"ok", 200)
    assert after_first == ["started", "finished"]  # the test was read from PostgreSQL
    assert signals == after_first  # the second push found it cached: no cycle, no database
