"""Helpers shared by the phout and aggregation tests: parse a golden file and describe the result as JSON."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

from analytics.phout import PhoutParser, parse_stream
from analytics.schema.samples import INTEGER_COLUMNS, PhoutBatch
from analytics.tests.seconds_support import aggregate, named

GOLDEN = Path(__file__).parent / "golden" / "phout"


def read_golden(name: str) -> bytes:
    data = (GOLDEN / name).read_bytes()
    return gzip.decompress(data) if name.endswith(".gz") else data


def parse_bytes(
    data: bytes, piece: int = 7, block_bytes: int = 64, from_file: bool = False
) -> tuple[PhoutParser, list[PhoutBatch]]:
    """Parse in small pieces and small blocks, so chunk boundaries fall inside lines (or read it as a file)."""
    parser = PhoutParser(block_bytes=block_bytes)
    if from_file:
        return parser, list(parser.read_from(io.BytesIO(data)))
    batches = list(parse_stream((data[i : i + piece] for i in range(0, len(data), piece)), parser))
    return parser, batches


def describe(data: bytes, **kwargs: Any) -> dict[str, Any]:
    parser, batches = parse_bytes(data, **kwargs)
    rows = []
    for b in batches:
        for i in range(b.rows):
            rows.append(
                [int(b.send_ts_us[i]), int(b.receive_sec[i]), parser.cases[b.case_codes[i]]]
                + [int(getattr(b, c.name)[i]) for c in INTEGER_COLUMNS]
            )
    aggregates = aggregate(PhoutBatch.concat(batches), parser.cases) if batches else []
    described = {
        "lines_total": parser.stats.lines_total,
        "lines_bad": parser.stats.lines_bad,
        "bad_lines": [[b.line, b.reason] for b in parser.stats.bad_examples],
        "rows": rows,
        "aggregates": [named(a) for a in aggregates],
    }
    result: dict[str, Any] = json.loads(json.dumps(described))  # tuples → lists, as in the expected files
    return result
