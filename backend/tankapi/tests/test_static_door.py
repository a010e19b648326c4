"""Static files are answered on the door's loop with the headers Django (WhiteNoise) gives them: hashed assets
immutable, compressed copies, 304 to a matching ETag, Django's security headers; unknown files still reach
Django's 404."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django.test import Client

from backend.tankapi import static_door

BODY = "console.log('app');\n" * 2000


@pytest.fixture
def static_root(tmp_path: Path, settings: Any) -> Iterator[Path]:
    root = tmp_path / "static"
    (root / "assets").mkdir(parents=True)
    (root / "assets" / "index-L87RC0iP.js").write_text(BODY)
    (root / "assets" / "index-L87RC0iP.js.gz").write_bytes(gzip.compress(BODY.encode()))
    settings.STATIC_ROOT = root
    static_door._whitenoise = None  # built from the settings at its first use
    yield root
    static_door._whitenoise = None


def test_the_door_answers_static_files_as_django_does(static_root: Path, live_asgi: Any) -> None:
    url = "/static/assets/index-L87RC0iP.js"
    door = requests.get(live_asgi.url + url, headers={"Accept-Encoding": "gzip"}, timeout=30)
    django = Client().get(url, HTTP_ACCEPT_ENCODING="gzip")
    assert door.status_code == 200 and door.text == BODY  # requests inflates the gzip copy
    assert door.headers["Content-Encoding"] == "gzip"
    assert door.headers["Cache-Control"] == "max-age=315360000, public, immutable"
    same = ("Cache-Control", "ETag", "Content-Type", "Content-Length", "Vary", "X-Content-Type-Options")
    for name in same:
        assert door.headers.get(name) == django.headers.get(name), name
    assert url not in live_asgi.fast_paths  # served by the static door, not a push path
    again = requests.get(live_asgi.url + url, headers={"If-None-Match": door.headers["ETag"]}, timeout=30)
    assert again.status_code == 304 and again.content == b""
    head = requests.head(live_asgi.url + url, headers={"Accept-Encoding": "identity"}, timeout=30)
    assert head.status_code == 200 and head.content == b"" and int(head.headers["Content-Length"]) == len(BODY)
    missing = requests.get(live_asgi.url + "/static/assets/nope-00000000.js", timeout=30)
    assert missing.status_code == 404
