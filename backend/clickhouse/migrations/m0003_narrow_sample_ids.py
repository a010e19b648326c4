"""samples: test_id and upload_id as UInt32 (were UInt64).

Every row carries both ids: as UInt64 they were 16 of the ~90 uncompressed bytes per row that the server receives,
squashes, compresses and writes on every upload (tables/samples.py has the figures). Ids come from PostgreSQL's
sequences, far below 4,294,967,295; ingestion refuses one beyond it instead of letting the column wrap it.

The ids are the table's sort key, whose types 18.16 cannot ALTER: the table is copied into the new shape and
swapped in (RENAME), then the old one dropped. That needs the table's size again on disk for the copy, and time
(10M rows: ~3 s). Run it with the Celery workers stopped, as `migrate` in docker-compose.yml and deploy/setup.sh
do before starting them: rows a worker inserted into the old table between the copy and the swap would be lost.
A fresh install has the new types already (m0001 creates samples.CREATE_SQL); there it copies an empty table.

The first statement refuses to go on if a stored id would not fit (the copy would wrap it): the migration then
fails with "Value passed to 'throwIf' function is non zero". Each step clears what an interrupted run left, so the
migration is safe to run again. BACKWARDS copies the table back into UInt64 ids the same way.

The column list is this migration's own, not samples.CREATE_SQL: a later change of the table must not change what
this step creates on an install that has not run it yet.
"""

from backend.clickhouse.engines import Shape
from backend.clickhouse.tables import samples

ID_MAX = 2**32 - 1
COLUMNS_AFTER_IDS = """
    receive_sec UInt32,
    send_ts_us UInt64,
    tag String,
    interval_real_us UInt32,
    connect_time_us Int64,
    send_time_us Int32,
    latency_us Int64,
    receive_time_us Int64,
    interval_event_us Int32,
    size_out_bytes UInt32,
    size_in_bytes UInt32,
    net_code Int16,
    proto_code Int16
"""


def create_sql(table: str, id_type: str) -> str:
    return f"""
CREATE TABLE IF NOT EXISTS {table} (
    test_id {id_type},
    upload_id {id_type},{COLUMNS_AFTER_IDS}) ENGINE = MergeTree()
PARTITION BY toYYYYMM(toDateTime(receive_sec))
ORDER BY (test_id, upload_id, receive_sec)
"""


def copied_into(table: str, id_type: str) -> list[str]:
    """`table` copied into a new one whose ids have `id_type`, swapped in under its name."""
    new, old = f"{table}_m0003_new", f"{table}_m0003_old"
    return [
        f"DROP TABLE IF EXISTS {new}",
        create_sql(new, id_type),
        f"INSERT INTO {new} SELECT * FROM {table}",
        f"DROP TABLE IF EXISTS {old}",
        f"RENAME TABLE {table} TO {old}, {new} TO {table}",
        f"DROP TABLE {old}",
    ]


def forwards(table: str) -> list[str]:
    too_big = f"test_id > {ID_MAX} OR upload_id > {ID_MAX}"
    return [f"SELECT throwIf(count() > 0) FROM {table} WHERE {too_big}", *copied_into(table, "UInt32")]


def backwards(table: str) -> list[str]:
    return copied_into(table, "UInt64")


FORWARDS = forwards(samples.NAME)
BACKWARDS = backwards(samples.NAME)


def forwards_for(shape: Shape) -> list[str]:
    """Nothing to do on a cluster: m0001 creates `samples_local` with UInt32 ids already (see m0002's reason).

    The copy-and-RENAME above would not carry over anyway: a Replicated table's ZooKeeper path names the table
    it was created as, so the copy would keep `samples_m0003_new`'s path under the name `samples_local`.
    """
    return [] if shape.is_cluster else FORWARDS


def backwards_for(shape: Shape) -> list[str]:
    return [] if shape.is_cluster else BACKWARDS
