"""Loading an upload's file into ClickHouse: parsed into batches, released second by second, stored as samples and
per-second aggregates (backend/uploads/stages.py), in bounded memory whatever the file's size.

The file is read ahead in pieces (and inflated on a thread of its own when gzipped), parsed by analytics.phout (or
another format's parser, backend/uploads/formats.py) into numpy batches, and cut into whole seconds by
analytics.second_window. Seconds that get rows after they were aggregated are aggregated again at the end, from
the stored samples.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from datetime import UTC, datetime

from analytics.aggregate import aggregate_table
from analytics.formats.locust import LocustParser
from analytics.phout import DEFAULT_BLOCK_BYTES, NotPhout
from analytics.second_window import SecondWindow
from backend.clickhouse.queries import uploads as q_uploads
from backend.clickhouse.tables import second_aggregates
from backend.fastpaths.direct_io import ReadAhead
from backend.fastpaths.memory import freed_memory_reused, no_cycle_collection
from backend.loadtests.models import Upload, UploadStatus
from backend.uploads import formats, instances
from backend.uploads.result import IngestError, IngestResult
from backend.uploads.stages import AggregateWriter, SampleStreams, Stage, insert_aggregates
from backend.uploads.storage import DamagedGzip, InflatesTooMuch, max_inflated_bytes, open_decoded

PROGRESS_EVERY_BYTES = 32 * 1024 * 1024
PARSE_BLOCK_BYTES = DEFAULT_BLOCK_BYTES  # a module constant so tests can make seconds straddle blocks
# Judge "is this phout at all" early, once this many lines are in, instead of after gigabytes of garbage.
EARLY_VERDICT_LINES = 5_000
LATE_SECONDS_PER_QUERY = 200


def load(upload: Upload, raw: io.BufferedIOBase) -> IngestResult:
    """Parse the file, release its samples second by second in order, store them and their per-second rows.

    This thread parses (the C path of analytics.phout, mostly) and orders the samples; the stages store them. The
    process's memory is managed for that meanwhile (backend/fastpaths/memory.py).
    """
    with freed_memory_reused(), no_cycle_collection(), _decoded_ahead(raw, int(upload.size_bytes)) as decoded:
        return _load_decoded(upload, raw, decoded)


@contextlib.contextmanager
def _decoded_ahead(raw: io.BufferedIOBase, stored_bytes: int) -> Iterator[io.BufferedIOBase | ReadAhead]:
    """The upload's decoded bytes. A gzipped one is inflated on a thread of its own, ahead of the parser, so that
    the one stage every other waits for does not inflate too. It may inflate to `max_inflated_bytes(stored_bytes)`
    at most (storage.py)."""
    decoded = open_decoded(raw, max_inflated_bytes(stored_bytes))
    if decoded is raw:
        yield raw
        return
    with ReadAhead(decoded) as ahead:  # zlib inflates with the GIL released, beside the C parser
        yield ahead


def _load_decoded(upload: Upload, raw: io.BufferedIOBase, decoded: io.BufferedIOBase | ReadAhead) -> IngestResult:
    try:  # the format is recognised from the first bytes: a damaged or inflating gzip may fail there already
        parser, decoded = formats.open_parser(upload, decoded, PARSE_BLOCK_BYTES)  # phout, JTL, k6, Gatling, Locust
        if isinstance(parser, LocustParser):  # per-second aggregates only: no samples to stream
            return formats.load_aggregates(upload, parser, decoded, EARLY_VERDICT_LINES)
    except (NotPhout, DamagedGzip, InflatesTooMuch) as exc:
        raise IngestError(str(exc)) from exc
    window = SecondWindow()
    result = IngestResult()
    test_id, upload_id = int(upload.test_id), int(upload.pk)
    sample_stage = SampleStreams(test_id, upload_id)
    aggregate_stage = Stage("phout-aggregates", AggregateWriter(test_id, upload_id, _now_us()))
    try:
        next_progress = PROGRESS_EVERY_BYTES
        for batch in parser.read_from(decoded, early_verdict_lines=EARLY_VERDICT_LINES):
            result.rows += batch.rows
            result.cover(int(batch.receive_sec.min()), int(batch.receive_sec.max()))
            cases = tuple(parser.cases)
            released = window.add(batch)
            if released.late is not None:
                sample_stage.put((released.late, cases))  # stored now, aggregated again at the end
            if released.in_order is not None:
                sample_stage.put((released.in_order, cases))
                aggregate_stage.put((released.in_order, cases))
            position = raw.tell()
            if position >= next_progress:
                next_progress = position + PROGRESS_EVERY_BYTES
                counted = Upload.objects.filter(pk=upload_id)
                counted.update(lines_total=parser.stats.lines_total, lines_bad=parser.stats.lines_bad)
                # While the body still arrives (a follow), progress_bytes is the receiver's: the bytes committed
                # so far, where a broken transfer resumes. The read position is behind it and must not replace it.
                counted.filter(status=UploadStatus.PARSING).update(progress_bytes=position)
        error = formats.refusal(parser)
        if error:
            raise IngestError(error)
        last = window.finish().in_order
        if last is not None:
            cases = tuple(parser.cases)
            sample_stage.put((last, cases))
            aggregate_stage.put((last, cases))
        aggregate_stage.close()
        sample_stage.close()
    except (NotPhout, DamagedGzip, InflatesTooMuch) as exc:
        aggregate_stage.abort()
        sample_stage.abort()
        raise IngestError(str(exc)) from exc
    except BaseException:
        aggregate_stage.abort()
        sample_stage.abort()
        raise
    if window.late_seconds:
        recompute_seconds(test_id, upload_id, sorted(window.late_seconds))
    instances.store(test_id, upload_id, parser)  # threads/VUs/users per second, where the file states them
    result.count(parser)
    return result


def recompute_seconds(test_id: int, upload_id: int, seconds: list[int]) -> None:
    """Seconds that got rows after they were aggregated: aggregate them again from the stored samples.

    The first rows of those seconds are deleted (and the deletion awaited) before the exact ones are written, so no
    reader ever sees a second twice, with or without FINAL.
    """
    for start in range(0, len(seconds), LATE_SECONDS_PER_QUERY):
        part = tuple(seconds[start : start + LATE_SECONDS_PER_QUERY])
        q_uploads.delete_seconds(test_id, upload_id, part)
        stored, cases = q_uploads.samples_of_seconds(test_id, upload_id, part)
        q_uploads.wait_for_mutations(second_aggregates.NAME)
        insert_aggregates(
            test_id, upload_id, aggregate_table(stored, cases), _now_us(), tag="uploads.insert_late_seconds"
        )


def _now_us() -> int:
    return int(datetime.now(UTC).timestamp() * 1_000_000)
