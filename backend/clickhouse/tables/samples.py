"""Raw phout samples, one row per request.

ORDER BY (test_id, upload_id, receive_sec): every read names one test and its active upload, then usually a
window of response seconds, so the primary key skips everything else and the cost of a query does not grow
with the number of tests stored. `upload_id` makes an ingestion atomic from the reader's side: rows of an
upload become visible only when PostgreSQL marks that upload active, and a failed or superseded upload is
deleted by a mutation without ever having been read.
PARTITION BY month of the response second keeps parts few and old months cheap to drop.

Columns are as narrow as the values they hold (compressing and writing the parts of an upload's INSERT is the
server's largest cost of an upload, and it grows with the uncompressed bytes per row): their names, types and
ranges are those of analytics/schema/samples.py, the one description of a sample, which the parsers check every
value against, so no value is ever wrapped by the INSERT's cast. Existing installs are narrowed by migration m0002.
The test and upload ids are UInt32 (migration m0003; PostgreSQL's ids are far below 4,294,967,295 and ingestion
refuses one beyond it): the ids are a large share of a narrow row (bench/phout_upload/README.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from analytics.schema import samples as sample
from backend.clickhouse.engines import Shape, TableSpec, create
from backend.clickhouse.native import CodedStrings, ColumnData

# The largest test or upload id the UInt32 key columns hold.
ID_MAX = 2**32 - 1

NAME = "samples"

# The columns before the sample's own: every row names its test and upload.
ID_COLUMNS = (("test_id", "UInt32"), ("upload_id", "UInt32"))
_TYPED = (*ID_COLUMNS, *((c.stored_as, c.clickhouse) for c in sample.COLUMNS))
COLUMNS = tuple(name for name, _ in _TYPED)

SPEC = TableSpec(
    name=NAME,
    columns="".join(f"\n    {name} {type_}," for name, type_ in _TYPED).rstrip(","),
    engine="MergeTree",
    keys="""
PARTITION BY toYYYYMM(toDateTime(receive_sec))
ORDER BY (test_id, upload_id, receive_sec)""",
)

# The single-server statement (what migration m0001 runs on one server; tests copy it for scratch tables).
CREATE_SQL = create(SPEC, Shape())[0]


def columns_of(
    test_ids: npt.NDArray[np.uint32], upload_ids: npt.NDArray[np.uint32], batch: sample.PhoutBatch, cases: Sequence[str]
) -> dict[str, ColumnData]:
    """The rows of a batch as the INSERT sends them (COLUMNS): its columns as they are, the case names for the codes."""
    columns: dict[str, ColumnData] = {"test_id": test_ids, "upload_id": upload_ids}
    columns |= {c.stored_as: getattr(batch, c.name) for c in sample.COLUMNS}
    columns["tag"] = CodedStrings(batch.case_codes, [case.encode() for case in cases])
    return columns
