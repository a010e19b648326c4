"""nginx in front of the app (deploy/proxy.sh, deploy/nginx/tankodrom.conf.template), against a live server: a
finished public test's answers are served from its cache, revalidated by ETag; nothing asked with a session, a
token or about a private test is ever served from it; static files come from nginx, hashed ones immutable."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from django.contrib.auth.models import User
from django.test import Client

from backend.loadtests.models import Test
from backend.projects.models import Visibility
from backend.sharing.tests.rows import START_TS, insert_seconds
from backend.testing import free_port

ROOT = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.skipif(shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(), reason="nginx")


@pytest.fixture
def proxied(live_asgi: Any, tmp_path: Path, settings: Any) -> Iterator[str]:
    static = tmp_path / "var" / "static" / "assets"
    static.mkdir(parents=True)
    (static / "index-L87RC0iP.js").write_text("app()")
    port = free_port()
    env = {
        **os.environ,
        "TANKODROM_VAR_DIR": str(tmp_path / "var"),
        "TANKODROM_PROXY_DIR": str(tmp_path / "nginx"),
    }
    upstream = live_asgi.url.removeprefix("http://")
    script = str(ROOT / "deploy/proxy.sh")
    subprocess.run([script, "up", f"127.0.0.1:{port}", upstream], env=env, check=True, capture_output=True)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        subprocess.run([script, "down"], env=env, check=False, capture_output=True)


@pytest.fixture
def finished(live_asgi: Any) -> Test:
    owner = User.objects.create_user("owner", password="pw-owner-123")
    test = Test.objects.create(owner=owner, name="done", status="ready", has_stream=True)
    insert_seconds(test.pk, 0, 10, fast_ms=20, slow_ms=300, fast=90, slow=10)
    Test.objects.filter(pk=test.pk).update(first_ts=START_TS, last_ts=START_TS + 9)
    test.refresh_from_db()
    return test


def _cache(url: str, **headers: str) -> tuple[int, str]:
    answer = requests.get(url, headers=headers, timeout=30)
    return answer.status_code, answer.headers.get("X-Cache", "")


def test_shared_answers_come_from_the_cache_and_private_ones_never(proxied: str, finished: Test) -> None:
    summary = f"{proxied}/api/v1/tests/{finished.pk}/summary"
    assert _cache(summary) == (200, "MISS")
    assert _cache(summary) == (200, "HIT")
    # With a session or a token the request goes to the app and its answer is not stored.
    assert _cache(summary, Cookie="sessionid=whatever") == (200, "BYPASS")
    assert _cache(summary, Authorization="Token nope")[1] == "BYPASS"
    # Answers about who asks are never stored, even anonymous ones.
    me = f"{proxied}/api/v1/me"
    assert _cache(me)[1] == "MISS" and _cache(me)[1] == "MISS"
    # A private test: its owner's answers (private) are not kept; strangers get its 404, not the owner's answer.
    Test.objects.filter(pk=finished.pk).update(visibility=Visibility.OWNER)
    client = Client()
    assert client.login(username="owner", password="pw-owner-123")
    session = client.cookies["sessionid"].value
    report = f"{proxied}/api/v1/tests/{finished.pk}/report"
    owner = requests.get(report, cookies={"sessionid": session}, timeout=30)
    assert owner.status_code == 200 and "private" in owner.headers["Cache-Control"]
    assert _cache(report) == (404, "MISS")


def test_the_shared_page_is_cached_and_static_files_are_nginx_s(proxied: str, finished: Test) -> None:
    page = f"{proxied}/{finished.pk}"
    first = requests.get(page, timeout=30)
    assert first.status_code == 200 and first.headers["Cache-Control"].startswith("public")
    assert requests.get(page, timeout=30).headers["X-Cache"] == "HIT"
    asset = requests.get(f"{proxied}/static/assets/index-L87RC0iP.js", timeout=30)
    assert asset.text == "app()"
    assert asset.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert "X-Cache" not in asset.headers  # not proxied
