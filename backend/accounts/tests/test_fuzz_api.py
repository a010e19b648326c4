"""Fuzzing the JSON API from its own OpenAPI schema (schemathesis): no generated input may cause a 5xx.

Every operation of `/api/schema/` is called in-process through the WSGI application with inputs generated from
the schema (valid and invalid), as an authenticated staff user (so that writes get past the permission check and
reach the code behind it) or anonymously. Half of the generated test ids are replaced by a stored test with data
in ClickHouse, so the report code runs on real rows with arbitrary windows, cases and quantile levels rather than
stopping at a 404. The run is bounded (a few examples per operation, derandomized, no shrinking) to keep it part
of the normal test run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.core.result import Ok

from backend.accounts.tests.conftest import Account, make_account
from backend.loadtests.models import Test, Upload
from backend.sharing.tests.rows import insert_samples, insert_seconds

EXAMPLES_PER_OPERATION = 12


@pytest.fixture
def keep_test_connection() -> Iterator[None]:
    """A bare WSGI call closes the database connection around each request (Django's close_old_connections
    handlers); the test's transaction lives on that connection, so keep it open, as Django's test client does."""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def fuzz_world(db: None, clickhouse: None, redis_db: object, keep_test_connection: None) -> dict[str, Any]:
    operator = make_account("operator", staff=True)
    streamed = Test.objects.create(owner=operator.user, name="streamed", status="ready", has_stream=True)
    insert_seconds(streamed.pk, 0, 20, fast_ms=20, slow_ms=300, fast=90, slow=10, http_500=1)
    uploaded = Test.objects.create(owner=operator.user, name="uploaded", status="ready")
    upload = Upload.objects.create(test=uploaded, status="ready")
    insert_samples(uploaded.pk, upload.pk, [1 + i % 250 for i in range(600)])
    insert_seconds(uploaded.pk, upload.pk, 6, fast_ms=50, slow_ms=240, fast=99, slow=1)
    Test.objects.filter(pk=uploaded.pk).update(active_upload=upload)
    return {"operator": operator, "test_ids": [streamed.pk, uploaded.pk]}


def _point_at_stored_tests(case: Any, test_ids: list[int]) -> None:
    """Replace half of the generated test ids (not for deletions) with the stored tests."""
    params = case.path_parameters or {}
    for name in ("test_id", "id"):
        value = params.get(name)
        if (
            isinstance(value, int)
            and value % 2 == 0
            and case.method.upper() != "DELETE"
            and "/tokens/" not in case.path
        ):
            params[name] = test_ids[(value // 2) % len(test_ids)]
    query = case.query or {}
    if isinstance(query.get("tests"), str) and query["tests"][:1] in {"0", "2", "4", "6", "8"}:
        query["tests"] = ",".join(str(i) for i in test_ids)


def test_no_generated_input_causes_a_server_error(fuzz_world: dict[str, Any]) -> None:
    operator: Account = fuzz_world["operator"]
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
    operations = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), f"the schema describes an operation that cannot be used: {result.err()}"
        operations.append(result.ok())
    assert len(operations) >= 3, "the schema lists almost no operations: the fuzz test would prove nothing"
    failures: list[str] = []
    calls = 0

    for operation in operations:
        strategy = operation.as_strategy(GenerationMode.POSITIVE) | operation.as_strategy(GenerationMode.NEGATIVE)

        # No shrinking: the first failing input of each operation is reported as generated, which keeps the run
        # bounded; derandomized so that a failure reproduces on the next run.
        @given(case=strategy, anonymous=st.booleans())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def call_once(case: Any, anonymous: bool) -> None:
            nonlocal calls
            _point_at_stored_tests(case, fuzz_world["test_ids"])
            response = case.call(headers={} if anonymous else {"Authorization": f"Token {operator.raw}"})
            calls += 1
            assert response.status_code < 500, (
                f"{case.method} {case.formatted_path} query={case.query} body={case.body!r} anonymous={anonymous} -> "
                f"{response.status_code} {response.text[:400]}"
            )

        try:
            call_once()
        except AssertionError as exc:
            failures.append(f"{operation.label}: {exc}")
    print(f"fuzz: {calls} calls over {len(operations)} operations")
    assert calls >= len(operations), calls
    assert failures == [], "\n".join(failures)
