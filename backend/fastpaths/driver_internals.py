"""The parts of clickhouse-driver's internals this project relies on, in one place (checked against
clickhouse-driver 0.2.11, as pinned in pyproject.toml; an upgrade is checked by
backend/fastpaths/tests/test_library_assumptions.py, then by the uploads and reports tests).

Why they are needed:
- a streamed INSERT (`client.NativeInsert`): the driver's public `execute` takes a whole INSERT's rows at once and
  copies each column several times on the way out; an upload streams millions of rows as numpy columns, so the
  INSERT is opened, fed and closed with the driver's own protocol steps, and each column's bytes (encoded by
  `native.py`) go to the socket as they are (bench/phout_upload/README.md);
- numpy results (`client.execute_numpy`): the per-query `use_numpy` setting makes the driver read numpy blocks, but
  the result class chosen when the client was built turns every value back into a Python object.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from clickhouse_driver import Client, defines
from clickhouse_driver.block import BlockInfo, ColumnOrientedBlock
from clickhouse_driver.numpy.result import NumpyQueryResult
from clickhouse_driver.protocol import ClientPacketTypes
from clickhouse_driver.result import QueryResult
from clickhouse_driver.varint import write_varint
from clickhouse_driver.writer import write_binary_str, write_binary_uint8


def open_insert(conn: Client, sql: str, settings: Mapping[str, Any]) -> dict[str, str]:
    """Start an INSERT as `Client.execute` does (connect if needed, this query's settings, fresh progress
    tracking); the server's column types by name."""
    conn.establish_connection(dict(settings))
    connection = conn.connection
    connection.send_query(sql)
    connection.send_external_tables(None)
    sample = conn.receive_sample_block()
    return dict(sample.columns_with_types)


def send_block(
    conn: Client, names: Sequence[str], types: Mapping[str, str], count: int, payloads: Iterator[bytes | memoryview]
) -> None:
    """One Data packet as the driver's `Connection.send_data` writes it, each column's encoded bytes (one payload
    per name, in order) sent to the socket directly instead of through the driver's buffer."""
    connection = conn.connection
    out = connection.fout
    revision = connection.server_info.used_revision
    write_varint(ClientPacketTypes.DATA, out)
    if revision >= defines.DBMS_MIN_REVISION_WITH_TEMPORARY_TABLES:
        write_binary_str("", out)
    if revision >= defines.DBMS_MIN_REVISION_WITH_BLOCK_INFO:
        BlockInfo().write(out)
    write_varint(len(names), out)
    write_varint(count, out)
    for name, payload in zip(names, payloads, strict=True):
        write_binary_str(name, out)
        write_binary_str(types[name], out)
        if revision >= defines.DBMS_MIN_REVISION_WITH_CUSTOM_SERIALIZATION:
            write_binary_uint8(0, out)
        out.flush()
        connection.socket.sendall(payload)
    out.flush()
    conn.receive_profile_events()


def end_insert(conn: Client) -> None:
    """An empty block ends the data; then the server's end of the INSERT."""
    conn.connection.send_data(ColumnOrientedBlock())
    conn.receive_profile_events()
    conn.receive_end_of_insert_query()


@contextmanager
def numpy_results(conn: Client) -> Iterator[None]:
    """Within: this client's results keep the numpy arrays the driver read."""
    conn.query_result_cls = NumpyQueryResult
    try:
        yield
    finally:
        conn.query_result_cls = QueryResult
