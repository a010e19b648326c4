"""Fixtures of the tank protocol tests: a user with an API token, captured bodies, a clean buffer, and the two
adapters a push can come through (Django's views, and the ASGI door gunicorn serves in front of Django)."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any

import pytest
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.http import HttpResponse
from django.test import Client

FIXTURES = Path(__file__).parent / "fixtures"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def fixture_json(name: str) -> Any:
    return json.loads(fixture_bytes(name))


@pytest.fixture
def tank_caches() -> Iterator[None]:
    from backend.testing import clear_push_caches

    clear_push_caches()
    yield
    clear_push_caches()


@pytest.fixture
def tank_user(db: None, tank_caches: None) -> tuple[Any, str]:
    """(user, raw API token) of the tester."""
    from django.contrib.auth.models import User

    from backend.loadtests.tokens import create_token

    user = User.objects.create_user("tester", password="x-not-used-1")
    _token, raw = create_token(user, "tank")
    return user, raw


@pytest.fixture
def other_user(db: None) -> tuple[Any, str]:
    from django.contrib.auth.models import User

    from backend.loadtests.tokens import create_token

    user = User.objects.create_user("intruder", password="x-not-used-2")
    _token, raw = create_token(user, "tank")
    return user, raw


class _Inline(Executor):
    """Runs what the door would run in its push threads at once, in the calling thread, on the test's database
    connection (which holds the test's transaction): on the event loop Django would otherwise open another one."""

    def __init__(self) -> None:
        from django.db import connections

        self.connections = {alias: connections[alias] for alias in connections}

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        from django.db import connections

        for alias, connection in self.connections.items():
            connections[alias] = connection
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


def scope_of(environ: dict[str, Any]) -> dict[str, Any]:
    """The ASGI scope uvicorn would hand the door for the request the test client describes as a WSGI environ."""
    headers = [
        (key[5:].replace("_", "-").lower().encode("latin-1"), str(value).encode("latin-1"))
        for key, value in environ.items()
        if key.startswith("HTTP_")
    ]
    for key, name in (("CONTENT_TYPE", b"content-type"), ("CONTENT_LENGTH", b"content-length")):
        if environ.get(key):
            headers.append((name, str(environ[key]).encode("latin-1")))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": environ["REQUEST_METHOD"],
        "scheme": environ.get("wsgi.url_scheme", "http"),
        "path": environ["PATH_INFO"],
        "raw_path": environ["PATH_INFO"].encode("latin-1"),
        "query_string": environ.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": "",
        "headers": headers,
        "server": (environ.get("SERVER_NAME", "testserver"), int(environ.get("SERVER_PORT") or 80)),
        "client": ("127.0.0.1", 50000),
    }


class DoorClient(Client):
    """The test client with the production entry's routing: the push endpoints are served by the ASGI door
    (backend/fastpaths/asgi_door.py) in this thread, its PostgreSQL reads inline; everything else, and whatever the
    door leaves to Django, by Django's test handler. `fast` and `slow` record which push requests (method, path)
    went which way."""

    def __init__(self) -> None:
        # Every real client sends Host (HTTP/1.1 requires it); without one the door leaves the request to Django.
        super().__init__(headers={"host": "testserver"})
        from backend.fastpaths.asgi_door import TankPushASGI, route

        self.fast: list[tuple[str, str]] = []
        self.slow: list[tuple[str, str]] = []
        self.door = TankPushASGI(self._unreachable, threads=1, push_threads=_Inline())
        self.loop = asyncio.new_event_loop()
        django_handler = self.handler

        def handler(environ: dict[str, Any]) -> Any:
            request = (environ["REQUEST_METHOD"], environ["PATH_INFO"])
            scope = scope_of(environ)
            if "HTTP_TRANSFER_ENCODING" not in environ and route(scope) is None:
                if _is_push_path(environ["PATH_INFO"]):
                    self.slow.append(request)
                return django_handler(environ)
            self.fast.append(request)
            return self._serve(scope, environ)

        self.handler = handler  # type: ignore[assignment]

    @staticmethod
    def _unreachable(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        raise AssertionError(f"{environ['PATH_INFO']} was routed to the door, then to Django")

    def _serve(self, scope: dict[str, Any], environ: dict[str, Any]) -> HttpResponse:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: Any) -> None:
            sent.append(message)

        # As Django's test handler does: the request signals must not close the test's transaction. The door's
        # reads run inline, on this thread where the loop runs: Django allows that only when told so.
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        unsafe = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
        try:
            self.loop.run_until_complete(self.door(scope, receive, send))
        finally:
            if unsafe is None:
                del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
            else:
                os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = unsafe
            request_started.connect(close_old_connections)
            request_finished.connect(close_old_connections)
        start, content = sent[0], b"".join(m.get("body", b"") for m in sent[1:])
        response = HttpResponse(content, status=start["status"])
        del response.headers["Content-Type"]
        for name, value in start["headers"]:
            response.headers[name.decode("latin-1")] = value.decode("latin-1")
        # The test client reads it for resolver_match; Django's test handler sets it the same way, undeclared.
        response.wsgi_request = WSGIRequest(environ)  # type: ignore[attr-defined]
        return response

    def close(self) -> None:
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()


def _is_push_path(path: str) -> bool:
    from backend.fastpaths.asgi_door import ROUTES

    return any(pattern.match(path) for pattern, _handler in ROUTES)


@pytest.fixture(params=["django", "door"])
def http(request: pytest.FixtureRequest) -> Iterator[Client]:
    """A test client through each adapter; the door's must really have served every push it was given."""
    if request.param == "django":
        yield Client()
        return
    client = DoorClient()
    try:
        yield client
    finally:
        client.close()
    assert not client.slow, f"push requests left to Django: {client.slow}"
