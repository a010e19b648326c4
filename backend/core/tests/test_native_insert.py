"""The streamed Native insert (backend.clickhouse.client.native_insert) against the real server."""

from __future__ import annotations

import numpy as np
import pytest

from backend.clickhouse import client
from backend.clickhouse.native import CodedStrings, encode_column, varint

TABLE = "scratch_native_insert"  # scratch_*: not replayed on current ClickHouse (see conftest)


@pytest.fixture
def table(clickhouse: None) -> str:
    client.execute(f"DROP TABLE IF EXISTS {TABLE}", tag="tests.native")
    client.execute(
        f"CREATE TABLE {TABLE} (k UInt64, i Int32, u UInt32, f Float64, s String) ENGINE = MergeTree() ORDER BY k",
        tag="tests.native",
    )
    return TABLE


def test_blocks_of_every_type_arrive_as_sent(table: str) -> None:
    long_value = "x" * 300  # wider than the padded-table path: encoded by joining
    values = [b"", "é/path".encode(), long_value.encode()]
    with client.native_insert(table, ["k", "i", "u", "f", "s"], tag="tests.native") as insert:
        for block in range(3):
            k = np.arange(4, dtype=np.int64) + 10 * block
            insert.send(
                {
                    "k": k,
                    "i": np.array([-(2**31), -1, 0, 2**31 - 1], dtype=np.int64),
                    "u": np.array([0, 1, 2**31, 2**32 - 1], dtype=np.int64),
                    "f": np.array([0.5, -1.25, 1e300, 3.0]),
                    "s": CodedStrings(np.array([0, 1, 2, 1]), values),
                }
            )
        short = CodedStrings(np.array([1, 0]), values[:2])
        insert.send({"k": np.array([100, 101]), "i": np.zeros(2), "u": np.zeros(2), "f": np.zeros(2), "s": short})
    rows = client.execute(f"SELECT k, i, u, f, s FROM {table} ORDER BY k", tag="tests.native")
    assert len(rows) == 14
    assert rows[:4] == [
        (0, -(2**31), 0, 0.5, ""),
        (1, -1, 1, -1.25, "é/path"),
        (2, 0, 2**31, 1e300, long_value),
        (3, 2**31 - 1, 2**32 - 1, 3.0, "é/path"),
    ]
    assert rows[-2:] == [(100, 0, 0, 0.0, "é/path"), (101, 0, 0, 0.0, "")]


def test_columns_of_different_lengths_are_refused(table: str) -> None:
    with (
        pytest.raises(ValueError, match="different lengths"),
        client.native_insert(table, ["k", "i", "u", "f", "s"], tag="tests.native") as insert,
    ):
        insert.send(
            {
                "k": np.arange(2),
                "i": np.arange(3),
                "u": np.arange(2),
                "f": np.zeros(2),
                "s": CodedStrings(np.zeros(2, int), [b"a"]),
            }
        )
    # The connection was dropped with the failed insert; the next query works on a fresh one.
    assert client.execute(f"SELECT count() FROM {table}", tag="tests.native") == [(0,)]


def test_string_encodings_agree() -> None:
    runs = np.repeat(np.array([2, 0, 1, 2]), [40, 1, 100, 30])  # long runs: encoded run by run
    for codes in (np.array([2, 0, 1, 1, 2, 0]), runs, np.zeros(0, dtype=np.int64)):
        for values in ([b"a", b"", b"bc"], [b"a", b"y" * 200, b""]):
            expected = b"".join(varint(len(values[c])) + values[c] for c in codes)
            assert bytes(encode_column("String", CodedStrings(codes, values))) == expected
    assert varint(0) == b"\x00" and varint(127) == b"\x7f" and varint(128) == b"\x80\x01" and varint(300) == b"\xac\x02"


@pytest.mark.parametrize(("settings", "parts"), [(None, 1), ({"min_insert_block_size_rows": 5}, 2)])
def test_an_insert_takes_its_own_settings(table: str, settings: dict[str, int] | None, parts: int) -> None:
    # Three blocks of 4 rows: squashed into one part by default; with parts of at least 5 rows, into 8 + 4.
    with client.native_insert(table, ["k", "i", "u", "f", "s"], tag="tests.native", settings_=settings) as insert:
        for block in range(3):
            zeros = np.zeros(4)
            s = CodedStrings(np.zeros(4, int), [b"a"])
            insert.send({"k": np.arange(4) + 4 * block, "i": zeros, "u": zeros, "f": zeros, "s": s})
    counted = client.execute(
        "SELECT count() FROM system.parts WHERE active AND database = currentDatabase() AND table = %(table)s",
        {"table": table},
        tag="tests.native",
    )
    assert counted == [(parts,)]
