"""samples: 4-byte response times and sizes, 4-byte send/interval_event phases, 2-byte codes.

The server's INSERT thread (compressing and writing the parts) is the largest cost of an upload and grows with the
uncompressed bytes per row: 7 of the 15 columns shrink from 8 or 4 bytes to 4 or 2 (see tables/samples.py).
A fresh install already has these types (m0001 creates samples.CREATE_SQL); there this migration changes nothing.

On an existing install, the first statement refuses to go on if a stored value would not fit its new type, since
the ALTER's conversion would wrap it silently: the migration then fails with ClickHouse's "Value passed to
'throwIf' function is non zero", and `SELECT ... FROM samples WHERE <OUT_OF_RANGE>` finds the rows (delete them or
their upload, then migrate again). The parser never accepted such values for connect/latency/receive, and now
refuses them for every narrowed column (analytics.schema.samples.VALUE_RANGES). Then one ALTER rewrites the seven columns;
on 18.16 it runs synchronously, part by part, and INSERTs into samples wait for it.
Both statements are safe to run again. BACKWARDS widens the columns back to their old types (lossless).
"""

from backend.clickhouse.engines import Shape
from backend.clickhouse.tables import samples

# column: (old type, new type)
TYPES = {
    "interval_real_us": ("Int64", "UInt32"),
    "send_time_us": ("Int64", "Int32"),
    "interval_event_us": ("Int64", "Int32"),
    "size_out_bytes": ("Int64", "UInt32"),
    "size_in_bytes": ("Int64", "UInt32"),
    "net_code": ("Int32", "Int16"),
    "proto_code": ("Int32", "Int16"),
}

_RANGES = {"UInt32": (0, 2**32 - 1), "Int32": (-(2**31), 2**31 - 1), "Int16": (-(2**15), 2**15 - 1)}


def out_of_range() -> str:
    """The condition of a row with a value that its column's new type cannot hold."""
    parts = []
    for column, (_old, new) in TYPES.items():
        low, high = _RANGES[new]
        parts.append(f"{column} < {low} OR {column} > {high}")
    return " OR ".join(parts)


def forwards(table: str) -> list[str]:
    modify = ", ".join(f"MODIFY COLUMN {column} {new}" for column, (_old, new) in TYPES.items())
    return [
        f"SELECT throwIf(count() > 0) FROM {table} WHERE {out_of_range()}",
        f"ALTER TABLE {table} {modify}",
    ]


def backwards(table: str) -> list[str]:
    modify = ", ".join(f"MODIFY COLUMN {column} {old}" for column, (old, _new) in TYPES.items())
    return [f"ALTER TABLE {table} {modify}"]


OUT_OF_RANGE = out_of_range()
FORWARDS = forwards(samples.NAME)
BACKWARDS = backwards(samples.NAME)


def forwards_for(shape: Shape) -> list[str]:
    """Nothing to do on a cluster: its tables are created by m0001 in the final, narrow shape.

    A cluster starts empty (an existing single server's rows are copied in after migrating, README "From one
    server to a cluster"), so it never holds the wide columns this migration narrows; running the ALTER there
    would only be one more distributed DDL to wait for.
    """
    return [] if shape.is_cluster else FORWARDS


def backwards_for(shape: Shape) -> list[str]:
    return [] if shape.is_cluster else BACKWARDS
