"""Every kind of bad input on the tank protocol answers 4xx with `{"error": ...}` naming what is wrong, stores
nothing, and never reaches a 500: values that do not fit their column, numbers past any float, NaN and infinities
where no number is meant, lone surrogates and NUL in text, JSON nested past any parser's depth, odd forms."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from analytics.schema.seconds import COLUMN_RANGES, ROW_FIELDS
from backend.clickhouse import client as ch
from backend.clickhouse.tables import second_aggregates
from backend.loadtests.models import Test
from backend.tankapi import buffer, lifecycle

from .conftest import DoorClient, fixture_bytes, fixture_json

pytestmark = pytest.mark.usefixtures("clickhouse", "redis_db")

DEEP = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECT = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
NAN, INF = float("nan"), float("inf")
Edit = Callable[[Any], None]


def _set(*path: Any) -> Callable[[Any], Edit]:
    def with_value(value: Any) -> Edit:
        def edit(body: Any) -> None:
            target = body
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value

        return edit

    return with_value


def _encoded(body: Any) -> bytes:
    # json.dumps writes NaN/Infinity (as the tank's does), 10**400 in full, lone surrogates and NUL as \u escapes.
    return json.dumps(body).encode()


trail, first = _set(0, "trail"), _set(0)
PUSH_CASES: list[tuple[str, Edit, str]] = [
    ("threads 5e9", lambda b: b[0]["trail"].update(threads=5e9), "trail.threads"),
    ("threads 10^400", lambda b: b[0]["trail"].update(threads=10**400), "trail.threads"),
    ("resps 2^64", lambda b: b[0]["trail"].update(resps=2**64), "trail.resps"),
    ("input 1e300", lambda b: b[0]["trail"].update(input=1e300), "trail.input"),
    ("resps negative", lambda b: b[0]["trail"].update(resps=-1), "resps"),
    ("latency 10^400", lambda b: b[0]["trail"].update(latency=10**400), "trail.latency"),
    ("latency Infinity", lambda b: b[0]["trail"].update(latency=INF), "trail.latency"),
    ("q99 -Infinity", lambda b: b[0]["trail"].update(q99=-INF), "trail.q99"),
    ("time 10^400", lambda b: b[0]["trail"].update(time=10**400), "trail.time"),
    ("time 1e300", lambda b: b[0]["trail"].update(time=1e300), "trail.time"),
    ("time NaN", lambda b: b[0]["trail"].update(time=NAN), "trail.time"),
    ("time Infinity", lambda b: b[0]["trail"].update(time=INF), "trail.time"),
    ("time '1e400'", lambda b: b[0]["trail"].update(time="1e400"), "trail.time"),
    ("http code 2^40", lambda b: b[0]["http_codes"][0].update(code=2**40), "http_codes"),
    ("net code -2^40", lambda b: b[0]["net_codes"][0].update(code=-(2**40)), "net_codes"),
    ("http count 2^64", lambda b: b[0]["http_codes"][0].update(count=2**64), "http_codes"),
    ("http count 10^400", lambda b: b[0]["http_codes"][0].update(count=10**400), "http_codes"),
    ("http count NaN", lambda b: b[0]["http_codes"][0].update(count=NAN), "http_codes"),
    ("net count Infinity", lambda b: b[0]["net_codes"][0].update(count=INF), "net_codes"),
    ("bin count 2^64", lambda b: b[0]["time_intervals"][0].update(count=2**64), "time_intervals"),
    ("bin count Infinity", lambda b: b[0]["time_intervals"][0].update(count=INF), "time_intervals"),
    ("bin to NaN", lambda b: b[0]["time_intervals"][0].update(to=NAN), "time_intervals"),
    ("case lone surrogate", lambda b: b[0].update(case="a\ud800b"), "case"),
    ("case NUL", lambda b: b[0].update(case="a\x00b"), "case"),
]


def _create(token: str) -> tuple[int, str]:
    answer = Client().post(f"/api/job/create.json?api_token={token}", data=b"{}", content_type="application/json")
    (job,) = answer.json()
    return int(job["job"]), str(job["upload_token"])


def _refused(answer: Any, names: str) -> None:
    assert 400 <= answer.status_code < 500, (answer.status_code, answer.content[:300])
    message = answer.json()["error"]
    assert names in message, message


@pytest.mark.parametrize(("edit", "names"), [(e, n) for _id, e, n in PUSH_CASES], ids=[c[0] for c in PUSH_CASES])
def test_push_data_refuses_what_its_columns_cannot_hold(
    http: Client, tank_user: tuple[Any, str], edit: Edit, names: str
) -> None:
    _user, token = tank_user
    job, upload = _create(token)
    body = fixture_json("push_data_bfg_1795316038.json")
    edit(body)
    answer = http.post(f"/api/job/{job}/push_data.json?upload_token={upload}", data=_encoded(body), content_type="")
    _refused(answer, names)
    writer = http.post(
        f"/api/writer?jobno={job}&upload_token={upload}", data=_encoded({"trail": body}), content_type=""
    )
    _refused(writer, names)
    assert buffer.backlog() == 0


def _monitoring_edit(edit: Callable[[dict[str, Any]], None]) -> bytes:
    body = fixture_json("monitoring_1795316039.json")
    edit(body[0])
    return _encoded(body)


def _rename_host(name: str) -> Callable[[dict[str, Any]], None]:
    return lambda element: element.update(data={name: element["data"]["localhost"]})


def _add_metric(name: str) -> Callable[[dict[str, Any]], None]:
    return lambda element: element["data"]["localhost"]["metrics"].update({name: 1.0})


MONITORING_CASES = [
    ("host surrogate", _monitoring_edit(_rename_host("sut\udc00")), "host"),
    ("host NUL", _monitoring_edit(_rename_host("sut\x00")), "host"),
    ("metric surrogate", _monitoring_edit(_add_metric("cpu\ud800")), "metric"),
    ("metric NUL", _monitoring_edit(_add_metric("cpu\x00")), "metric"),
    ("timestamp NaN", _monitoring_edit(lambda e: e.update(timestamp=NAN)), "timestamp"),
    ("timestamp Infinity", _monitoring_edit(lambda e: e.update(timestamp=INF)), "timestamp"),
    ("timestamp 10^400", _monitoring_edit(lambda e: e.update(timestamp=10**400)), "timestamp"),
    ("nested 100k deep", DEEP, "JSON"),
]


@pytest.mark.parametrize(
    ("body", "names"), [(b, n) for _id, b, n in MONITORING_CASES], ids=[c[0] for c in MONITORING_CASES]
)
def test_monitoring_refuses_what_it_cannot_store(
    http: Client, tank_user: tuple[Any, str], body: bytes, names: str
) -> None:
    _user, token = tank_user
    job, upload = _create(token)
    answer = http.post(f"/api/monitoring/receiver/push?job_id={job}&upload_token={upload}", data=body, content_type="")
    _refused(answer, names)
    assert buffer.backlog() == 0


def test_a_metric_value_past_any_float_is_skipped_like_other_non_numbers(
    http: Client, tank_user: tuple[Any, str]
) -> None:
    _user, token = tank_user
    job, upload = _create(token)
    body = _monitoring_edit(lambda e: e["data"]["localhost"]["metrics"].update(huge=10**400))
    answer = http.post(f"/api/monitoring/receiver/push?job_id={job}&upload_token={upload}", data=body, content_type="")
    assert answer.status_code == 200 and buffer.backlog() == 1


@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT], ids=["array", "object"])
@pytest.mark.parametrize("path", ["push_data", "writer"])
def test_json_nested_past_any_depth_is_refused(
    http: Client, tank_user: tuple[Any, str], body: bytes, path: str
) -> None:
    _user, token = tank_user
    job, upload = _create(token)
    url = {
        "push_data": f"/api/job/{job}/push_data.json?upload_token={upload}",
        "writer": f"/api/writer?jobno={job}&upload_token={upload}",
    }[path]
    _refused(http.post(url, data=body, content_type=""), "JSON")


CREATE_CASES: list[tuple[str, bytes, str]] = [
    ("task NUL", _encoded({"task": "LOAD\x00-1"}), "task"),
    ("person surrogate", _encoded({"person": "\ud800"}), "person"),
    ("tank NUL", _encoded({"tank": "\x00"}), "tank"),
    ("notify NUL", _encoded({"notify": ["alice\x00"]}), "notify"),
    ("notify surrogate", _encoded({"notify": ["\udfff"]}), "notify"),
    ("loadscheme NUL", _encoded({"loadscheme": [{"type": "line\x00"}]}), "loadscheme"),
    ("loadscheme surrogate", _encoded({"loadscheme": ["\ud800"]}), "loadscheme"),
    ("loadscheme 10^400", _encoded({"loadscheme": [10**400]}), "loadscheme"),
    ("loadscheme nested 300 deep", b'{"loadscheme": ' + b"[" * 300 + b"]" * 300 + b"}", "loadscheme"),
    ("loadscheme nested 2000 deep", b'{"loadscheme": ' + b"[" * 2000 + b"]" * 2000 + b"}", "JSON"),
    ("nested 100k deep", DEEP, "JSON"),
    ("object nested 100k deep", DEEP_OBJECT, "JSON"),
    ("a form body", b"loadscheme=null", "JSON"),
]


@pytest.mark.parametrize(("body", "names"), [(b, n) for _id, b, n in CREATE_CASES], ids=[c[0] for c in CREATE_CASES])
@pytest.mark.parametrize("content_type", ["application/json", "application/x-www-form-urlencoded"])
def test_create_refuses_fields_it_cannot_store(
    tank_user: tuple[Any, str], body: bytes, names: str, content_type: str
) -> None:
    _user, token = tank_user
    answer = Client().post(f"/api/job/create.json?api_token={token}", data=body, content_type=content_type)
    _refused(answer, names)
    assert Test.objects.count() == 0


def test_create_keeps_a_loadscheme_it_can_store(tank_user: tuple[Any, str]) -> None:
    _user, token = tank_user
    body = _encoded({"loadscheme": [{"type": "line", "from": 1, "to": NAN}], "notify": None})
    answer = Client().post(f"/api/job/create.json?api_token={token}", data=body, content_type="application/json")
    assert answer.status_code == 200
    assert Test.objects.get().loadscheme == [{"type": "line", "from": 1, "to": None}]


EDIT_CASES: list[tuple[str, bytes, str]] = [
    ("name NUL", _encoded({"name": "a\x00"}), "name"),
    ("description surrogate", _encoded({"description": "\ud800"}), "description"),
    ("component NUL", _encoded({"component": "\x00"}), "component"),
    ("command_line surrogate", _encoded({"command_line": "\udc80"}), "command_line"),
    ("instances 10^400", _encoded({"instances": 10**400}), "instances"),
    ("instances 1e23", _encoded({"instances": 1e23}), "instances"),
    ("instances Infinity", _encoded({"instances": INF}), "instances"),
    ("tank_type 2^40", _encoded({"tank_type": 2**40}), "tank_type"),
    ("nested 100k deep", DEEP_OBJECT, "JSON"),
]


@pytest.mark.parametrize(("body", "names"), [(b, n) for _id, b, n in EDIT_CASES], ids=[c[0] for c in EDIT_CASES])
def test_edit_refuses_fields_it_cannot_store(tank_user: tuple[Any, str], body: bytes, names: str) -> None:
    user, token = tank_user
    test = lifecycle.create_test(user, {"task": "LOAD-1"})
    before = copy.copy(Test.objects.get(pk=test.pk).__dict__)
    answer = Client().post(
        f"/api/job/{test.pk}/edit.json?api_token={token}", data=body, content_type="application/json"
    )
    _refused(answer, names)
    after = Test.objects.get(pk=test.pk).__dict__
    assert {k: v for k, v in after.items() if k != "_state"} == {k: v for k, v in before.items() if k != "_state"}


@pytest.mark.parametrize(
    ("body", "content_type", "names"),
    [
        (b"configinitial=a%00b", "application/x-www-form-urlencoded", "configinitial"),
        (b"configinfo=%00", "", "configinfo"),
        (b"monitoringconfig=x%00", "application/x-www-form-urlencoded", "monitoringconfig"),
    ],
)
def test_configs_refuse_nul(tank_user: tuple[Any, str], body: bytes, content_type: str, names: str) -> None:
    user, token = tank_user
    test = lifecycle.create_test(user, {})
    name = {"configinitial": "configinitial", "configinfo": "configinfo", "monitoringconfig": "jobmonitoringconfig"}
    url = f"/api/job/{test.pk}/{name[names]}.txt?api_token={token}"
    _refused(Client().generic("POST", url, body, content_type=content_type), names)


@pytest.mark.parametrize("exitcode", ["1e23", "100000000000000000000000", "-2147483649", "NaN", "0x10", "١"])
def test_close_refuses_exit_codes_that_are_not_small_integers(tank_user: tuple[Any, str], exitcode: str) -> None:
    user, token = tank_user
    test = lifecycle.create_test(user, {})
    answer = Client().get(f"/api/job/{test.pk}/close.json", {"exitcode": exitcode, "api_token": token})
    _refused(answer, "exitcode")
    assert Test.objects.get(pk=test.pk).status == "online"


def test_a_chunked_push_is_refused_by_the_door(tank_user: tuple[Any, str]) -> None:
    """(Under uvicorn: test_asgi_door.py, on a live server.)"""
    _user, token = tank_user
    job, upload = _create(token)
    answer = DoorClient().post(
        f"/api/job/{job}/push_data.json?upload_token={upload}",
        data=fixture_bytes("push_data_bfg_1795316038.json"),
        content_type="application/json",
        headers={"transfer-encoding": "chunked"},
    )
    _refused(answer, "Content-Length")
    assert buffer.backlog() == 0


def test_the_ranges_checked_are_those_of_the_stored_columns() -> None:
    types = dict(
        ch.execute(
            "SELECT name, type FROM system.columns WHERE database = %(db)s AND table = %(t)s",
            {"db": ch.database(), "t": second_aggregates.NAME},
            tag="tests.tankapi.column_types",
        )
    )
    ranges = {
        "UInt16": (0, 2**16 - 1),
        "UInt32": (0, 2**32 - 1),
        "UInt64": (0, 2**64 - 1),
        "Int32": (-(2**31), 2**31 - 1),
    }
    for column, limits in COLUMN_RANGES.items():
        stored = types[column].removeprefix("Array(").removesuffix(")")
        assert ranges[stored] == limits, column
    # Every integer column a push fills is checked.
    pushed = set(ROW_FIELDS)
    integer = {name for name, kind in types.items() if "Int" in kind and name in pushed}
    assert integer == set(COLUMN_RANGES)
