"""Issue 29: the tank endpoints answered 403 "upload_token does not match job N" for a private test and 404 for a
missing one, so anyone could list which job numbers exist. Without the job's upload_token, an existing (private)
job now answers exactly as a missing one, on each of the three push endpoints."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from backend.projects.models import Visibility
from backend.tankapi import lifecycle

from .conftest import fixture_bytes

pytestmark = [pytest.mark.usefixtures("clickhouse", "redis_db"), pytest.mark.probe]


def endpoints(job: int) -> list[tuple[str, bytes]]:
    trail = json.dumps({"trail": json.loads(fixture_bytes("push_data_bfg_1795316038.json"))}).encode()
    return [
        (f"/api/job/{job}/push_data.json?upload_token=guess", fixture_bytes("push_data_bfg_1795316038.json")),
        (f"/api/monitoring/receiver/push?job_id={job}&upload_token=guess", fixture_bytes("monitoring_1795316039.json")),
        (f"/api/writer?jobno={job}&upload_token=guess", trail),
    ]


def test_a_private_job_looks_exactly_like_a_missing_one(http: Client, tank_user: tuple[Any, str]) -> None:
    user, _token = tank_user
    private = lifecycle.create_test(user, {})
    private.visibility = Visibility.OWNER
    private.save(update_fields=["visibility"])
    missing = private.pk + 1000
    for (taken, body), (free, _) in zip(endpoints(private.pk), endpoints(missing), strict=True):
        a = http.post(taken, data=body, content_type="application/json")
        b = http.post(free, data=body, content_type="application/json")
        assert (a.status_code, b.status_code) == (404, 404), taken
        assert a.content.replace(str(private.pk).encode(), b"N") == b.content.replace(str(missing).encode(), b"N")
        assert a.headers["Content-Type"] == b.headers["Content-Type"]
