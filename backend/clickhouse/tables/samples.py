"""Raw phout samples, one row per request.

ORDER BY (test_id, upload_id, receive_sec): every read names one test and its active upload, then usually a
window of response seconds, so the primary key skips everything else and the cost of a query does not grow
with the number of tests stored. `upload_id` makes an ingestion atomic from the reader's side: rows of an
upload become visible only when PostgreSQL marks that upload active, and a failed or superseded upload is
deleted by a mutation without ever having been read.
PARTITION BY month of the response second keeps parts few and old months cheap to drop.

Columns are as narrow as the values they hold: compressing and writing the parts of an upload's INSERT is the
server's largest cost of an upload, and it grows with the uncompressed bytes per row. Response time and sizes are
UInt32 (71 min, 4 GiB), the send and interval_event phases Int32, codes Int16; connect, latency and receive stay
Int64 for pandora's ±9223372036854775 sentinels. analytics.phout.VALUE_RANGES holds the same ranges: a phout line
with a value that does not fit is a bad line, so no value is ever wrapped by the INSERT's cast (a test checks that
the two agree). Existing installs are narrowed by migration m0002 (10M rows: 2 s).
Measured on 18.16 with the 10M-line bench file sent as ingestion sends it (client.native_insert): 114 -> 90
uncompressed bytes per row, server CPU of the INSERT 4.1 -> 3.0 s, 4.6 -> 3.4 s with the merges that follow.
The test and upload ids are UInt32 (migration m0003; PostgreSQL's ids are far below 4,294,967,295 and ingestion
refuses one beyond it): as UInt64 they were 16 of those 90 bytes, and the server's CPU per 10M-line upload 2.85
-> 2.58 s (in process, 4 runs each, alternating).
"""

from backend.clickhouse.engines import Shape, TableSpec, create

# The largest test or upload id the UInt32 key columns hold.
ID_MAX = 2**32 - 1

NAME = "samples"

# Column order of phout (yandex-tank's `phout_columns`), in our names with units.
COLUMNS = (
    "test_id",
    "upload_id",
    "receive_sec",
    "send_ts_us",
    "tag",
    "interval_real_us",
    "connect_time_us",
    "send_time_us",
    "latency_us",
    "receive_time_us",
    "interval_event_us",
    "size_out_bytes",
    "size_in_bytes",
    "net_code",
    "proto_code",
)

SPEC = TableSpec(
    name=NAME,
    columns="""
    test_id UInt32,
    upload_id UInt32,
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
    proto_code Int16""",
    engine="MergeTree",
    keys="""
PARTITION BY toYYYYMM(toDateTime(receive_sec))
ORDER BY (test_id, upload_id, receive_sec)""",
)

# The single-server statement (what migration m0001 runs on one server; tests copy it for scratch tables).
CREATE_SQL = create(SPEC, Shape())[0]
