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
from backend.testing import LiveASGIServer

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
    assert (bad_token.status_code, unknown.status_code) == (403, 404)
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
    push.clear_caches()
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


def test_a_body_reaches_django_in_pieces_of_at_least_a_megabyte() -> None:
    import asyncio

    from backend.tankapi.asgi_door import gathering

    def messages_of(pieces: list[bytes], end: str = "complete") -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = [
            {"type": "http.request", "body": piece, "more_body": n < len(pieces) - 1 or end != "complete"}
            for n, piece in enumerate(pieces)
        ]
        if end == "disconnect":
            sent.append({"type": "http.disconnect"})
        return sent

    def run(sent: list[dict[str, Any]], at_least: int) -> list[tuple[int, bool]]:
        queue = list(sent)

        async def receive() -> Any:
            return queue.pop(0)

        async def drain() -> list[tuple[int, bool]]:
            got, more = [], True
            gathered = gathering(receive, at_least)
            while more and queue:
                message = await gathered()
                more = message.get("more_body", False)
                got.append((len(message.get("body", b"")), more))
            return got

        return asyncio.run(drain())

    piece = b"x" * 65536
    assert run(messages_of([piece] * 40), at_least=1 << 20) == [(1 << 20, True), (1 << 20, True), (8 * 65536, False)]
    assert run(messages_of([b"small body"]), at_least=1 << 20) == [(10, False)]
    # The client goes away mid-body: what came is handed over as the end of the body, which the reader finds short.
    assert run(messages_of([piece] * 3, end="disconnect"), at_least=1 << 20) == [(3 * 65536, False)]
