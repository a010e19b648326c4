"""Fixtures of the tank protocol tests: a user with an API token, captured bodies, a clean buffer, and the two doors
a push can come through (Django's views, and the WSGI fast path gunicorn serves in front of Django)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.handlers.wsgi import WSGIRequest
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
    from backend.tankapi import views

    views.clear_caches()
    yield
    views.clear_caches()


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


class FastPathClient(Client):
    """The test client with the production WSGI entry's routing: the push endpoints are served by the fast path
    (backend/tankapi/fastpath.py), everything else, and whatever the fast path leaves to Django, by Django's test
    handler. `fast` and `slow` record which push requests (method, path) went which way."""

    def __init__(self) -> None:
        # Every real client sends Host (HTTP/1.1 requires it); without one the fast path leaves the request to Django.
        super().__init__(headers={"host": "testserver"})
        from backend.tankapi.fastpath import TankPushApp

        self.fast: list[tuple[str, str]] = []
        self.slow: list[tuple[str, str]] = []
        django_handler = self.handler
        app = TankPushApp(self._unreachable)

        def handler(environ: dict[str, Any]) -> Any:
            request = (environ["REQUEST_METHOD"], environ["PATH_INFO"])
            if app.route(environ) is None:
                if _is_push_path(environ["PATH_INFO"]):
                    self.slow.append(request)
                return django_handler(environ)
            self.fast.append(request)
            return _serve(app, environ)

        self.handler = handler  # type: ignore[assignment]

    @staticmethod
    def _unreachable(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        raise AssertionError(f"{environ['PATH_INFO']} was routed to the fast path, then to Django")


def _is_push_path(path: str) -> bool:
    from backend.tankapi.fastpath import ROUTES

    return any(pattern.match(path) for pattern, _handler in ROUTES)


def _serve(app: Any, environ: dict[str, Any]) -> HttpResponse:
    from django.core.signals import request_finished, request_started

    captured: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: object = None) -> None:
        captured.update(status=status, headers=headers)

    # As Django's test handler does: the request signals must not close the test's transaction.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        body = b"".join(app(environ, start_response))
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    response = HttpResponse(body, status=int(captured["status"].split()[0]))
    del response.headers["Content-Type"]
    for name, value in captured["headers"]:
        response.headers[name] = value
    # The test client reads it for resolver_match; Django's test handler sets it the same way, undeclared.
    response.wsgi_request = WSGIRequest(environ)  # type: ignore[attr-defined]
    return response


@pytest.fixture(params=["django", "fastpath"])
def http(request: pytest.FixtureRequest) -> Iterator[Client]:
    """A test client through each door; the fast path's must really have served every push it was given."""
    if request.param == "django":
        yield Client()
        return
    client = FastPathClient()
    yield client
    assert not client.slow, f"push requests left to Django: {client.slow}"
