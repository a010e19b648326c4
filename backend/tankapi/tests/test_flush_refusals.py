"""One buffered entry that ClickHouse refuses (a value its column cannot hold, a wrong type) is set aside as a dead
letter with the reason, and every other entry of the stream still reaches ClickHouse: the flush reads the stream
oldest first, so an entry left in place would hold back every tank's data for good."""

from __future__ import annotations

import io
from typing import Any

import orjson
import pytest
from django.core.management import call_command

from analytics.schema.seconds import ROW_FIELDS
from analytics.tank_push import parse_push_data
from backend.clickhouse import client as ch
from backend.clickhouse.tables import second_aggregates
from backend.tankapi import buffer, flush, lifecycle, push

from .conftest import fixture_json

pytestmark = pytest.mark.usefixtures("clickhouse", "redis_db")


def _good_rows() -> list[list[Any]]:
    return [list(second) for second in parse_push_data(fixture_json("push_data_bfg_1795316038.json"))]


def _stored_tests() -> list[int]:
    rows = ch.execute(
        f"SELECT DISTINCT test_id FROM {second_aggregates.NAME} ORDER BY test_id", tag="tests.tankapi.refused"
    )
    return [test_id for (test_id,) in rows]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("threads", 5_000_000_000),  # UInt32
        ("http_codes", [2**40]),  # Int32
        ("resps", -3),  # UInt64
        ("reqps", "fast"),  # Float64
        ("case", 7),  # String
    ],
)
def test_an_entry_clickhouse_refuses_is_set_aside_and_the_others_flush(
    tank_user: tuple[Any, str], field: str, value: Any
) -> None:
    user, _token = tank_user
    before, poisoned, after = (lifecycle.create_test(user, {}) for _ in range(3))
    bad_rows = _good_rows()
    bad_rows[0][ROW_FIELDS.index(field)] = value
    if field == "http_codes":
        bad_rows[0][ROW_FIELDS.index("http_counts")] = [1]
    good = push.data_rows(parse_push_data(fixture_json("push_data_bfg_1795316038.json")))
    buffer.append(buffer.KIND_DATA_ROWS, before.pk, good)
    buffer.append(buffer.KIND_DATA_ROWS, poisoned.pk, orjson.dumps(bad_rows))
    buffer.append(buffer.KIND_DATA_ROWS, after.pk, good)

    result = flush.flush_all()

    assert not result.error
    assert _stored_tests() == [before.pk, after.pk]
    assert buffer.backlog() == 0
    assert result.dead_letters == 1
    (letter,) = buffer.dead_letters()
    assert letter.test_id == poisoned.pk and letter.body == orjson.dumps(bad_rows) and letter.reason
    listing = io.StringIO()
    call_command("tank_dead_letters", stdout=listing)
    assert f"test {poisoned.pk}" in listing.getvalue() and letter.reason[:40] in listing.getvalue()


def test_dead_letters_can_be_put_back_or_deleted(tank_user: tuple[Any, str]) -> None:
    user, _token = tank_user
    test = lifecycle.create_test(user, {})
    buffer.append(buffer.KIND_DATA_ROWS, test.pk, b"[[1, 2]]")
    buffer.append(buffer.KIND_DATA_ROWS, test.pk, b"not json")
    assert flush.flush_all().dead_letters == 2
    short, broken = buffer.dead_letters()
    call_command("tank_dead_letters", "--requeue", short.entry_id, stdout=io.StringIO())
    call_command("tank_dead_letters", "--delete", broken.entry_id, stdout=io.StringIO())
    assert buffer.backlog() == 1 and buffer.dead_letters() == []
    assert flush.flush_all().dead_letters == 1  # still unreadable: set aside again


def test_a_refusal_for_the_servers_state_sets_nothing_aside(
    tank_user: tuple[Any, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Too many parts, memory, a read-only table: nothing to blame on one entry; everything waits."""
    user, _token = tank_user
    test = lifecycle.create_test(user, {})
    buffer.append(buffer.KIND_DATA_ROWS, test.pk, orjson.dumps(_good_rows()))

    class TooManyParts(Exception):
        code = 252

    def refuse(*_args: Any, **_kwargs: Any) -> int:
        raise TooManyParts("Too many parts (300). Merges are processing significantly slower than inserts")

    monkeypatch.setattr(ch, "insert_columns", refuse)
    result = flush.flush_all()
    assert "Too many parts" in result.error and result.dead_letters == 0
    assert buffer.backlog() == 1 and buffer.dead_letters() == []
    monkeypatch.undo()
    assert flush.flush_all().second_rows == 2 and buffer.backlog() == 0
