"""The ASGI door gunicorn serves (backend.asgi under uvicorn), through a live server on the real services: pushes on
the event loop, first sights of tests read together, Django behind it for everything else."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from backend.tankapi import buffer, lifecycle, push
from backend.testing import LiveASGIServer, clear_push_caches

from .conftest import fixture_bytes

pytestmark = [pytest.mark.usefixtures("clickhouse", "redis_db"), pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server(tank_caches: None) -> Iterator[LiveASGIServer]:
    with LiveASGIServer() as live:
        yield live


def _push(server: LiveASGIServer, session: requests.Session, job: int, upload: str, body: bytes) -> requests.Response:
    return session.post(
        f"{server.url}/api/job/{job}/push_data.json", params={"upload_token": upload}, data=body, timeout=30
    )


def test_pushes_are_answered_on_the_fast_path_and_buffered(server: LiveASGIServer, tank_user: Any) -> None:
    user, token = tank_user
    test = lifecycle.create_test(user, {})
    body = fixture_bytes("push_data_bfg_1795316038.json")
    with requests.Session() as session:
        first = _push(server, session, test.pk, test.upload_token, body)  # first sight: read in a thread
        again = _push(server, session, test.pk, test.upload_token, body)  # cached: on the loop
        monitoring = session.post(
            f"{server.url}/api/monitoring/receiver/push",
            params={"job_id": test.pk, "upload_token": test.upload_token, "api_token": token},
            data=fixture_bytes("monitoring_1795316039.json"),  # no Content-Type, as the tank sends it
            timeout=30,
        )
    assert (first.status_code, first.json()) == (200, [{"success": 1}])
    assert (again.status_code, again.content) == (200, first.content)
    assert (monitoring.status_code, monitoring.text) == (200, "ok")
    assert first.headers["Content-Type"] == "application/json"
    assert first.headers["X-Frame-Options"] == "DENY"  # Django's security headers, as on every answer
    assert server.fast_paths.count(f"/api/job/{test.pk}/push_data.json") == 2
    assert buffer.backlog() == 3


def test_refusals_name_the_problem(server: LiveASGIServer, tank_user: Any) -> None:
    user, _token = tank_user
    test = lifecycle.create_test(user, {})
    with requests.Session() as session:
        bad_token = _push(server, session, test.pk, "wrong", b"[]")
        unknown = _push(server, session, test.pk + 1000, "x", b"[]")
        not_json = _push(server, session, test.pk, test.upload_token, b"[{")
        bad_item = _push(server, session, test.pk, test.upload_token, json.dumps([{"trail": {}}]).encode())
    # Without its upload_token a job looks exactly like a missing one (issue 29).
    assert (bad_token.status_code, unknown.status_code) == (404, 404)
    assert bad_token.json()["error"] == f"job {test.pk} does not exist"
    assert unknown.json()["error"] == f"job {test.pk + 1000} does not exist"
    assert not_json.status_code == 400 and "JSON" in not_json.json()["error"]
    assert bad_item.status_code == 400 and bad_item.json()["error"] == "item 0: trail.time is missing"
    assert buffer.backlog() == 0


def test_first_pushes_of_many_new_tests_are_read_together(
    server: LiveASGIServer, tank_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    user, _token = tank_user
    tests = [lifecycle.create_test(user, {}) for _ in range(40)]
    batches: list[int] = []
    load_tests = push.load_tests

    def counting(test_ids: Any) -> None:
        batches.append(len(test_ids))
        load_tests(test_ids)

    monkeypatch.setattr(push, "load_tests", counting)
    clear_push_caches()
    body = fixture_bytes("push_data_bfg_1795316038.json")

    def one(test: Any) -> int:
        with requests.Session() as session:
            return _push(server, session, test.pk, test.upload_token, body).status_code

    with ThreadPoolExecutor(40) as pool:
        statuses = list(pool.map(one, tests))
    assert statuses == [200] * 40
    assert sum(batches) <= 40 and len(batches) < 40, batches  # fewer queries than tests
    assert buffer.backlog() == 40


def test_a_dead_buffer_gets_503_and_the_rest_goes_to_django(
    server: LiveASGIServer, tank_user: Any, settings: Any
) -> None:
    user, token = tank_user
    test = lifecycle.create_test(user, {})
    body = fixture_bytes("push_data_bfg_1795316038.json")
    with requests.Session() as session:
        assert _push(server, session, test.pk, test.upload_token, body).status_code == 200
        settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
        refused = _push(server, session, test.pk, test.upload_token, body)
        health = session.get(f"{server.url}/healthz", timeout=30)
        created = session.post(
            f"{server.url}/api/v1/tests/", json={"name": "through Django"}, headers={"Authorization": f"Token {token}"}
        )
    assert refused.status_code == 503 and "Redis" in refused.json()["error"]
    assert health.status_code in (200, 503)  # answered by Django (it reports the dead Redis), not by the door
    assert created.status_code == 201 and created.json()["name"] == "through Django"
    assert "/api/v1/tests/" not in server.fast_paths


def test_bodies_of_several_megabytes_reach_django_whole(server: LiveASGIServer, tank_user: Any) -> None:
    """Django reads request.body with one read(Content-Length): the door must hand it every byte, not the first
    piece that came off the socket."""
    user, token = tank_user
    test = lifecycle.create_test(user, {})
    config = "autostop: [time(1s, 10s)]\n" * 120_000  # 3.1 MB, form-encoded as the tank sends it
    description = "d" * 2_000_000
    with requests.Session() as session:
        stored = session.post(
            f"{server.url}/api/job/{test.pk}/configinitial.txt",
            params={"api_token": token},
            data={"configinitial": config},
            timeout=60,
        )
        edited = session.post(
            f"{server.url}/api/job/{test.pk}/edit.json",
            params={"api_token": token},
            data=json.dumps({"description": description}),
            timeout=60,
        )
        created = session.post(
            f"{server.url}/api/v1/tests/",
            json={"name": "big", "description": description},
            headers={"Authorization": f"Token {token}"},
            timeout=60,
        )
    assert (stored.status_code, edited.status_code) == (200, 200), (stored.text, edited.text)
    assert created.status_code == 201, created.text[:300]
    test.refresh_from_db()
    assert test.config_initial == config
    assert test.description == description
    assert created.json()["description"] == description


def test_a_chunked_body_is_refused_naming_the_header(server: LiveASGIServer, tank_user: Any) -> None:
    """Django reads a body by its Content-Length: a chunked one would reach it empty, and be taken for no body."""
    user, token = tank_user
    test = lifecycle.create_test(user, {})

    def chunks() -> Iterator[bytes]:
        yield b'{"name": "sent'
        yield b' in chunks"}'

    with requests.Session() as session:
        pushed = session.post(
            f"{server.url}/api/job/{test.pk}/push_data.json",
            params={"upload_token": test.upload_token},
            data=chunks(),
            timeout=30,
        )
        created = session.post(
            f"{server.url}/api/v1/tests/",
            data=chunks(),
            headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
            timeout=30,
        )
    for answer in (pushed, created):
        assert answer.status_code == 411, answer.text
        assert "Content-Length" in answer.json()["error"]
    assert buffer.backlog() == 0
