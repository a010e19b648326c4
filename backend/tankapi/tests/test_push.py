"""The push path's own machinery: the per-process test cache and the blocking append to Redis."""

from __future__ import annotations

import hashlib
import time
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
from django.http import QueryDict

from backend.loadtests.models import Test
from backend.loadtests.models import TestStatus as Status
from backend.tankapi import buffer, lifecycle, push

pytestmark = pytest.mark.usefixtures("redis_db")


def _tests(user: Any, count: int) -> list[Test]:
    return [lifecycle.create_test(user, {}) for _ in range(count)]


def _query(test: Test) -> QueryDict:
    return QueryDict(f"upload_token={test.upload_token}")


def test_expired_tests_are_reread_in_one_query_and_unused_ones_forgotten(
    tank_user: tuple[Any, str], monkeypatch: pytest.MonkeyPatch, django_assert_num_queries: Any
) -> None:
    user, _token = tank_user
    tests = _tests(user, 30)
    with django_assert_num_queries(30):  # first sight of each test: one query each
        assert all(push.check_access(t.pk, _query(t)) == "" for t in tests)
    with django_assert_num_queries(0):
        assert all(push.check_access(t.pk, _query(t)) == "" for t in tests)
    still_pushing, stopped = tests[:20], tests[20:]
    Test.objects.filter(pk=still_pushing[0].pk).update(status=Status.PROCESSING)
    Test.objects.filter(pk=still_pushing[1].pk).delete()
    later = time.monotonic() + push._TEST_TTL_S + 1
    monkeypatch.setattr(push, "time", SimpleNamespace(monotonic=lambda: later))
    # Only the tests pushed to since the last refresh are re-read, all in the query the first expired push makes;
    # the deleted one is then looked up on its own, as any unknown job is.
    with django_assert_num_queries(2):
        answers = [push.check_access(t.pk, _query(t)) for t in still_pushing]
    assert [a.status if isinstance(a, push.Answer) else 200 for a in answers[:3]] == [410, 404, 200]
    assert all(a == "" for a in answers[2:])
    # The deleted test is gone; the stopped ones were pushed to before this refresh, so they were re-read too.
    assert set(push._test_cache) == {t.pk for t in tests} - {still_pushing[1].pk}
    later += push._TEST_TTL_S + 1
    with django_assert_num_queries(1):
        assert push.check_access(still_pushing[2].pk, _query(still_pushing[2])) == ""
    # The stopped tests were not pushed to for a whole TTL: forgotten, not re-read forever.
    assert not set(push._test_cache) & {t.pk for t in stopped}
    with django_assert_num_queries(1):  # one of them pushes again: read on its own, as a new test
        assert push.check_access(stopped[0].pk, _query(stopped[0])) == ""


def test_append_loads_its_script_when_redis_does_not_know_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # As after a Redis restart (empty script cache), without flushing the shared server's scripts: a digest Redis
    # has never seen gives the same NOSCRIPT answer, and the append falls back to EVAL with the script itself.
    unknown = hashlib.sha1(f"never loaded {time.time_ns()}".encode()).hexdigest().encode()
    monkeypatch.setattr(buffer, "_APPEND_SHA", unknown)
    buffer.append(buffer.KIND_DATA_ROWS, 1, b"[]")
    assert buffer.backlog() == 1


def test_append_reconnects_when_redis_dropped_its_connection(redis_db: Any) -> None:
    buffer.append(buffer.KIND_DATA_ROWS, 1, b"[]")
    # What a Redis restart or its idle timeout does to a kept connection: every client but this test's own.
    assert redis_db.client_kill_filter(_type="normal", skipme=True) >= 1
    buffer.append(buffer.KIND_DATA_ROWS, 1, b"[]")
    assert buffer.backlog() == 2


def test_an_error_reply_refuses_the_push(redis_db: Any) -> None:
    redis_db.set(buffer.STREAM_KEY, b"not a stream")  # XADD fails with WRONGTYPE inside the script
    with pytest.raises(buffer.BufferUnavailable, match="Redis"):
        buffer.append(buffer.KIND_DATA_ROWS, 1, b"[]")
    redis_db.delete(buffer.STREAM_KEY)
    buffer.append(buffer.KIND_DATA_ROWS, 1, b"[]")
    assert buffer.backlog() == 1


@pytest.mark.parametrize(("flag", "message"), [("down", "ClickHouse"), ("full", "full")])
def test_the_scripts_refusals_are_told_apart(redis_db: Any, settings: Any, flag: str, message: str) -> None:
    if flag == "down":
        buffer.mark_clickhouse_down(5_000)
    else:
        settings.TANKODROM_TANK_BUFFER_MAX_ENTRIES = 1
        buffer.append(buffer.KIND_DATA_ROWS, 1, b"[]")
    with pytest.raises(buffer.BufferUnavailable, match=message):
        buffer.append(buffer.KIND_DATA_ROWS, 1, b"[]")


def test_appends_land_with_their_fields(redis_db: Any) -> None:
    buffer.append(buffer.KIND_MONITORING_ROWS, 42, b'[[1, "h", "m", 1.5]]', received_at_us=1_795_000_000_123_456)
    entries, malformed = buffer.read_batch(10)
    assert not malformed
    (entry,) = entries
    assert (entry.kind, entry.test_id, entry.received_at_us, entry.body) == (
        buffer.KIND_MONITORING_ROWS,
        42,
        1_795_000_000_123_456,
        b'[[1, "h", "m", 1.5]]',
    )
    assert buffer.last_push_times() == {42: 1_795_000_000}


def test_case_names_past_the_label_limit_are_cut_in_the_buffer(settings: Any) -> None:
    settings.TANKODROM_LABEL_MAX_CHARS = 10
    normal = [(1_700_000_000, "", 1, [2]), (1_700_000_000, "login", 3, [4])]
    assert push.data_rows(normal) == orjson.dumps(normal)  # nothing changes below the limit
    long = [(1_700_000_000, "", 1, [2]), (1_700_000_000, "x" * 160_000, 3, [4])]
    assert orjson.loads(push.data_rows(long)) == [[1_700_000_000, "", 1, [2]], [1_700_000_000, "x" * 9 + "…", 3, [4]]]
