"""Which parser reads an upload: phout, or another generator's result file (analytics/formats, docs/formats.md).

The format is recognised from the first bytes of the decompressed content (analytics.formats.detect); the
`format` query parameter of the first PUT overrides it for the rare ambiguous file, and is kept in
`UploadFormat` so that the ingestion, run later by a worker, reads the file the same way. Sample formats go
through the phout pipeline unchanged (their parsers give the same batches); Locust's stats history has no single
request and is stored here as per-second rows of the upload, which the report then reads as not exact.
"""

from __future__ import annotations

import io
import zlib
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np
from django.conf import settings

from analytics.formats import ALIASES, FORMAT_NAMES, detect, parser_class, resolve
from analytics.formats.base import NotThisFormat, RecordParser
from analytics.formats.detect import PHOUT
from analytics.formats.locust import LocustParser
from analytics.phout import PhoutParser, not_phout_error
from backend.clickhouse import client
from backend.clickhouse.tables import second_aggregates
from backend.loadtests.models import Upload
from backend.uploads import storage
from backend.uploads.models import UploadFormat
from backend.uploads.result import IngestError, IngestResult

# How much of the decompressed start of a file detection looks at.
DETECT_BYTES = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"
HEAD_MIN_RECORDS = storage.HEAD_MIN_LINES  # a head with fewer records is judged only when it is the whole file
HEAD_BLOCK_BYTES = 4096


class FormatError(ValueError):
    """A `format` parameter that names no format."""


def requested_format(raw: str | None) -> str:
    """The `format` parameter checked ('' when absent)."""
    if raw is None or raw == "":
        return ""
    name = raw.strip().lower()
    if name not in FORMAT_NAMES and name not in ALIASES:
        names = ", ".join((*FORMAT_NAMES, *ALIASES))
        raise FormatError(f"format {raw[:40]!r} is not one of: {names}")
    return name


def remember(upload: Upload, requested: str) -> None:
    """Record the format asked for with the upload's first piece (read again by the ingestion)."""
    if requested:
        UploadFormat.objects.update_or_create(upload=upload, defaults={"requested": requested})


def format_of(upload_id: int) -> str:
    """The format an upload was read as ('phout' for uploads from before formats were told apart)."""
    row = UploadFormat.objects.filter(upload_id=upload_id).values_list("detected", "requested").first()
    if row is None:
        return PHOUT
    return row[0] or row[1] or PHOUT


# ── receiving: the head of a body ───────────────────────────────────────────────────────────────────────────
def head_error(head: bytes, is_whole: bool, requested: str) -> str | None:
    """Why the start of a body (plain or gzip) shows it is not a result file of a known format (None: it may be)."""
    if head[:2] == GZIP_MAGIC:
        try:
            text = zlib.decompressobj(wbits=31).decompress(head, len(head) * 4)
        except zlib.error as exc:
            return f"the body starts like gzip but does not decompress: {exc}"
        is_whole = is_whole and len(text) < len(head) * 4
    else:
        text = head
    name = resolve(requested, detect(text[:DETECT_BYTES]))
    if name == PHOUT:
        return storage.head_error(head, is_whole)  # phout's own judgement, as before formats were told apart
    if not is_whole:
        cut = text.rfind(b"\n")
        text = text[: cut + 1] if cut >= 0 else b""
    record_parser: RecordParser = parser_class(name)(block_bytes=HEAD_BLOCK_BYTES)
    try:
        record_parser.feed(text)
        if is_whole:
            record_parser.finish()
    except NotThisFormat as exc:
        return str(exc)
    if record_parser.fatal:
        return record_parser.fatal
    if not is_whole and record_parser.stats.lines_total < HEAD_MIN_RECORDS:
        return None
    if not is_whole and record_parser.stats.lines_total == 0:
        return None
    return record_parser.refusal()


# ── ingesting ───────────────────────────────────────────────────────────────────────────────────────────────
class _Readable(Protocol):
    def readinto(self, buffer: Any, /) -> int | None: ...


class _Replayed(io.RawIOBase):
    """A stream whose first bytes were read already (to detect the format): they are given again first."""

    def __init__(self, head: bytes, rest: _Readable) -> None:
        super().__init__()
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head.nbytes:
            n = min(len(buffer), self._head.nbytes)
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._rest.readinto(buffer) or 0


def open_parser(upload: Upload, decoded: Any, block_bytes: int) -> tuple[Any, Any]:
    """The parser for an upload's decompressed content and the stream to give it (the content from its start)."""
    head = bytearray()
    piece = bytearray(DETECT_BYTES)
    while len(head) < DETECT_BYTES:
        n = decoded.readinto(memoryview(piece)[: DETECT_BYTES - len(head)])
        if not n:
            break
        head += piece[:n]
    row = UploadFormat.objects.filter(upload_id=upload.pk).first()
    name = resolve(row.requested if row is not None else "", detect(bytes(head)))
    UploadFormat.objects.update_or_create(
        upload=upload, defaults={"detected": name, "samples": not getattr(parser_class(name), "aggregates_only", False)}
    )
    parser = parser_class(name)(block_bytes=block_bytes)
    parser.label_max_chars = settings.TANKODROM_LABEL_MAX_CHARS
    parser.cases_max = settings.TANKODROM_CASES_MAX
    return parser, _Replayed(bytes(head), decoded)


def refusal(parser: Any) -> str | None:
    """Why the parsed file is refused as a whole (phout's judgement for phout)."""
    if isinstance(parser, PhoutParser):
        return not_phout_error(parser.stats)
    error: str | None = parser.refusal()
    return error


def load_aggregates(upload: Upload, parser: LocustParser, stream: Any, early_verdict_lines: int) -> IngestResult:
    """Store a stats history as the upload's per-second rows (source_id = the upload, as for derived rows)."""
    result = IngestResult()
    received_at_us = int(datetime.now(UTC).timestamp() * 1_000_000)
    try:
        blocks = list(parser.read_tables(stream, early_verdict_lines))
    except NotThisFormat as exc:
        raise IngestError(str(exc)) from exc
    error = parser.refusal()
    if error:
        raise IngestError(error)
    for block in blocks:
        table = block.table
        if not table.size:
            continue
        columns = second_aggregates.columns_of(int(upload.test_id), int(upload.pk), table, received_at_us)
        columns["threads"] = np.array([block.users_by_second.get(int(ts), 0) for ts in table.ts], dtype=np.uint32)
        with client.native_insert(
            second_aggregates.NAME, second_aggregates.COLUMNS, tag="uploads.insert_locust"
        ) as ins:
            ins.send(columns)
        result.rows += int(table.resps[np.array([c == "" for c in table.case], dtype=bool)].sum())
        result.cover(int(table.ts.min()), int(table.ts.max()))
    if result.first_ts is None:
        raise IngestError("the Locust stats history holds no second with requests")
    result.count(parser)
    return result
