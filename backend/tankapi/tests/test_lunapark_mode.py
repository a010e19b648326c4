"""yandex-tank's Lunapark mode (the README's recommended `uploader:` section): no `api_token`, the token as the
password of Basic auth from `api_address: http://lunapark:TOKEN@host/`, and the status call that lets a stop from
the web end the shooting. The real tank runs the same in test_real_tank.py."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import urlencode

import pytest
from django.test import Client

from backend.loadtests.models import Test
from backend.projects.models import Visibility
from backend.tankapi import lifecycle
from backend.testing import api_client_for

from .conftest import fixture_bytes

pytestmark = pytest.mark.usefixtures("clickhouse", "redis_db")


def _basic(password: str, user: str = "lunapark") -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _create(http: Client, authorization: str, **headers: str) -> Any:
    return http.post(
        "/api/job/create.json",
        data=fixture_bytes("create.json"),
        content_type="application/json",
        headers={"Authorization": authorization, **headers},
    )


def test_a_lunapark_mode_tank_runs_a_test_with_its_token_as_basic_auth(tank_user: tuple[Any, str]) -> None:
    user, raw = tank_user
    http = Client(HTTP_AUTHORIZATION=_basic(raw))
    created = _create(http, _basic(raw))
    assert created.status_code == 200, created.content
    ((answer),) = created.json()
    job, upload = int(answer["job"]), answer["upload_token"]
    assert Test.objects.get(pk=job).owner == user
    for no_task in ("/api/task//summary.json", "/api/task/summary.json"):  # no `task:` set (requests sends the second)
        assert http.get(no_task).json() == [{"status": "Open", "name": ""}]
    config = f"uploader:\n  api_address: http://lunapark:{raw}@tankodrom.local:8000/\n  job_name: x\n"
    form = urlencode({"configinitial": config})  # as the tank sends it (requests' data=dict)
    saved = http.post(f"/api/job/{job}/configinitial.txt", form, content_type="application/x-www-form-urlencoded")
    assert saved.status_code == 200
    edit = http.post(f"/api/job/{job}/edit.json", data=b'{"name": "lunapark"}', content_type="application/json")
    assert edit.status_code == 200
    test = Test.objects.get(pk=job)
    assert raw not in test.config_initial and "http://lunapark:***@tankodrom.local:8000/" in test.config_initial
    assert test.name == "lunapark"

    api = api_client_for(user)
    meta = api.get(f"/api/v1/tests/{job}/").json()
    assert (meta["stop_ends_shooting"], meta["stopped_at"]) == (False, None)  # no status call yet
    status_url = f"/api/v2/jobs/{job}/?upload_token={upload}"
    assert http.patch(status_url, data=b'{"status": "shoot 10"}', content_type="application/json").status_code == 200
    assert api.get(f"/api/v1/tests/{job}/").json()["stop_ends_shooting"] is True
    assert api.get("/api/v1/tests/").json()["results"][0]["stop_ends_shooting"] is True
    assert api.post(f"/api/v1/tests/{job}/stop").status_code == 202
    stopped = http.patch(status_url, data=b'{"status": "shoot 20"}', content_type="application/json")
    assert stopped.status_code == 410  # the tank ends its shooting with exit code 8
    closed = http.get(f"/api/job/{job}/close.json?exitcode=8")
    assert closed.status_code == 200
    meta = api.get(f"/api/v1/tests/{job}/").json()
    assert (meta["status"], meta["exit_code"], meta["exit_reason"]) == ("processing", 8, "stopped from the web")
    assert meta["stopped_at"] is not None and meta["stop_requested"] is False  # when, kept after the close


@pytest.mark.parametrize(
    ("authorization", "headers"),
    [
        ("basic", {"Sec-Fetch-Mode": "no-cors"}),  # a browser replaying credentials it was given
        ("basic", {"Sec-Fetch-Site": "cross-site"}),
        ("wrong", {}),
        ("Basic !!!not-base64", {}),
        ("Basic " + base64.b64encode(b"\xff\xfe:x").decode(), {}),
        ("Basic " + base64.b64encode(b"no-colon").decode(), {}),
        ("Basic ", {}),
    ],
)
def test_basic_auth_is_refused_from_a_browser_or_with_a_bad_token(
    tank_user: tuple[Any, str], authorization: str, headers: dict[str, str]
) -> None:
    _user, raw = tank_user
    value = {"basic": _basic(raw), "wrong": _basic("tdm_wrong")}.get(authorization, authorization)
    refused = _create(Client(), value, **headers)
    assert refused.status_code == 401 and "api_token" in refused.json()["error"]
    assert not Test.objects.exists()


def test_basic_auth_does_not_authenticate_the_rest_api(tank_user: tuple[Any, str]) -> None:
    """Only the tank's protocol takes Basic auth: the API's own calls want `Authorization: Token`."""
    user, raw = tank_user
    test = lifecycle.create_test(user, {})
    Test.objects.filter(pk=test.pk).update(visibility=Visibility.OWNER)
    answer = Client().post(f"/api/v1/tests/{test.pk}/stop", HTTP_AUTHORIZATION=_basic(raw))
    assert answer.status_code in (401, 403, 404)
    assert not lifecycle.stop_requested(test.pk)


def test_url_passwords_are_redacted_and_nothing_else() -> None:
    text = (
        "api_address: https://lunapark:tdm_abc-_9@host:8000/\n"
        "other: http://user@host/ and ftp://a:b@c/ and 'http://x:y@z'\n"
        "email: someone@example.com, time 12:30@noon\n"
    )
    assert lifecycle.redact_url_passwords(text) == (
        "api_address: https://lunapark:***@host:8000/\n"
        "other: http://user@host/ and ftp://a:***@c/ and 'http://x:***@z'\n"
        "email: someone@example.com, time 12:30@noon\n"
    )


@pytest.mark.parametrize(
    ("config", "scheme"),
    [
        (
            "bfg:\n  enabled: true\n  package: yandextank.plugins.Bfg\n"
            "  load_profile: {load_type: rps, schedule: 'const(10, 24s)'}\n",
            ["const(10, 24s)"],
        ),
        (
            "phantom:\n  package: yandextank.plugins.Phantom\n"
            "  load_profile:\n    schedule: line(1, 5, 5s) const(5, 1m)\n",
            ["line(1, 5, 5s) const(5, 1m)"],
        ),
        ("bfg:\n  enabled: false\n  package: yandextank.plugins.Bfg\n  load_profile: {schedule: 'const(1, 1s)'}\n", []),
        ("not: [yaml", []),
    ],
)
def test_a_config_gives_the_schedule_a_bfg_tank_does_not_send(
    tank_user: tuple[Any, str], config: str, scheme: list[str]
) -> None:
    user, _raw = tank_user
    test = lifecycle.create_test(user, {"loadscheme": []})
    lifecycle.save_config(test, "configinfo", config)
    test.refresh_from_db()
    assert test.loadscheme == scheme
    sent = lifecycle.create_test(user, {"loadscheme": ["const(3, 3s)"]})  # what the tank sent stands
    lifecycle.save_config(sent, "configinfo", config)
    sent.refresh_from_db()
    assert sent.loadscheme == ["const(3, 3s)"]
