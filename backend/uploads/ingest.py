"""Ingestion of one stored phout upload into ClickHouse: raw samples, then the per-second aggregates derived from them.

The file is read ahead in pieces (and inflated on a thread of its own when gzipped), parsed by analytics.phout into
numpy batches and aggregated by analytics.aggregate, so memory stays bounded whatever the file size. Inserts run
in threads of their own behind queues of two pieces: parsing and sending overlap, and a slow ClickHouse slows the
reader down instead of piling batches up in memory.

All-or-nothing from the reader's side: every row carries the upload id, and readers see only `Test.active_upload`,
which is switched in one PostgreSQL transaction after the last row is written. A failed or superseded upload has
its rows deleted. Re-running an upload (a retried task) first deletes what an earlier attempt left behind, so the
task is idempotent. The same file (same content digest, backend/uploads/digest.py) uploaded again into the same
test is recognised and not ingested twice.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import gc
import io
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from django.db import connection, transaction
from django.utils import timezone

from analytics.aggregate import SampleColumns, SecondTable, aggregate_table
from analytics.formats.locust import LocustParser
from analytics.phout import DEFAULT_BLOCK_BYTES, NotPhout, PhoutBatch
from analytics.second_window import SecondWindow
from backend.celery_app import app as celery_app
from backend.clickhouse import client, native
from backend.clickhouse.tables import samples, second_aggregates
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.uploads import formats, instances, outcome
from backend.uploads.digest import digest_of_file
from backend.uploads.direct_io import ReadAhead
from backend.uploads.follow import Abandoned, GrowingFile
from backend.uploads.storage import (
    DamagedGzip,
    InflatesTooMuch,
    max_inflated_bytes,
    open_decoded,
    open_stored,
    upload_path,
)

log = logging.getLogger(__name__)

POSTPROCESS_TASK = "backend.reports.tasks.postprocess_test"
PROGRESS_EVERY_BYTES = 32 * 1024 * 1024
READ_BUFFER_BYTES = 1024 * 1024
PARSE_BLOCK_BYTES = DEFAULT_BLOCK_BYTES  # a module constant so tests can make seconds straddle blocks
# Judge "is this phout at all" early, once this many lines are in, instead of after gigabytes of garbage.
EARLY_VERDICT_LINES = 5_000
LATE_SECONDS_PER_QUERY = 200
# Samples go to ClickHouse in this many INSERTs at once, each fed by a thread of its own with every other piece.
# The server squashes and writes an INSERT's blocks on one thread: with one INSERT that thread was the last stage
# still busy when parsing ended (~1.5 s of a 10M-line upload with the worker idle). Two keep both cores on it; each
# INSERT's blocks stay in sort-key order, and costs the server a squash buffer of its own (SAMPLE_PART_SETTINGS).
SAMPLE_STREAMS = 2
# The server squashes each sample INSERT's blocks into parts of this many rows (its default: 1,048,576). 10M rows
# made ten parts, which it merged during the upload itself (~1.3 CPU-s, a quarter of its work); parts of 2.1M (~190
# MB of squash buffer per INSERT on the server) are too few for its merge selector to touch soon, and later merges
# have one level fewer to go through.
SAMPLE_PART_SETTINGS = {"min_insert_block_size_rows": 2_100_000}
AGGREGATE_ROWS = 20_000  # per-second rows per INSERT (_AggregateWriter)
MUTATION_WAIT_S = 120.0
ADVISORY_LOCK_NAMESPACE = 4020  # pg advisory locks are (namespace, id) pairs: this one is "phout ingestion"


class IngestError(Exception):
    """The upload cannot be ingested for a reason the uploader must be told (shown as the upload's error)."""


@dataclass
class IngestResult:
    lines_total: int = 0
    lines_bad: int = 0
    bad_examples: list[dict[str, Any]] = field(default_factory=list)
    rows: int = 0
    first_ts: int | None = None
    last_ts: int | None = None


# ── entry point ─────────────────────────────────────────────────────────────────────────────────────────────
def ingest_upload(upload_id: int, *, follow: bool = False, hashed_by_receiver: bool = False) -> str:
    """Ingest one upload; returns its final status. Safe to run again for the same id (see the module docstring).

    Two runs of the same upload at once (the broker redelivers a task still running after its visibility timeout,
    or the upload completes while a follow is under way) would delete each other's rows: a PostgreSQL advisory
    lock, released by the server if the worker dies, lets only one of them work; the other answers "busy".
    With `follow`, an upload still arriving is read as it grows (backend/uploads/follow.py), and hashed on the
    way unless `hashed_by_receiver`.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [ADVISORY_LOCK_NAMESPACE, upload_id])
        (locked,) = cursor.fetchone() or (False,)
    if not locked:
        return "busy"
    try:
        if follow:
            return _ingest_following(upload_id, hashed_by_receiver)
        return _ingest_locked(upload_id)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [ADVISORY_LOCK_NAMESPACE, upload_id])


def ingestion_running(upload_id: int) -> bool:
    """Whether some process ingests this upload now (holds its advisory lock; see ingest_upload)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [ADVISORY_LOCK_NAMESPACE, upload_id])
        (locked,) = cursor.fetchone() or (False,)
        if locked:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [ADVISORY_LOCK_NAMESPACE, upload_id])
    return not locked


def _ingest_locked(upload_id: int) -> str:
    upload = Upload.objects.select_related("test").filter(pk=upload_id).first()
    if upload is None:
        return "missing"
    if upload.status != UploadStatus.PARSING:
        return str(upload.status)  # not complete yet, or already finished: nothing to do
    path = Path(upload.file_path)
    try:
        if not path.is_file():
            raise IngestError("the uploaded file is no longer on the server; upload it again")
        if not upload.content_digest:
            upload.content_digest = digest_of_file(path)
            upload.save(update_fields=["content_digest"])
        original = _same_file_already_active(upload)
        if original is not None:
            return _finish_as_duplicate(upload, original, path)
        delete_upload_rows(upload.test_id, upload.pk)  # what a crashed earlier attempt may have left
        with open_stored(path) as raw:
            result = _load(upload, raw)
        return _activate(upload, result, path)
    except IngestError as exc:
        _fail(upload, str(exc))  # the file itself is the problem: it is removed with the failure
        return UploadStatus.FAILED
    except client.ClickHouseUnavailable:
        raise  # the task retries later; the upload stays `parsing` and the next attempt starts clean
    except Exception:
        log.exception("ingestion of upload %s failed", upload_id)
        _fail(upload, internal_error(upload_id))
        return UploadStatus.FAILED


def _ingest_following(upload_id: int, hashed_by_receiver: bool) -> str:
    """Ingest an upload whose body is still arriving; "abandoned" leaves it to the ordinary ingestion."""
    upload = Upload.objects.select_related("test").filter(pk=upload_id).first()
    if upload is None or upload.status not in (UploadStatus.RECEIVING, UploadStatus.PARSING):
        return "missing" if upload is None else str(upload.status)
    path = upload_path(upload.pk)
    try:
        delete_upload_rows(upload.test_id, upload.pk)
        growing = GrowingFile(path, upload.pk, upload.size_bytes, hashing=not hashed_by_receiver)
        # Read ahead in a thread (which also hashes, unless the receiver does): it waits for the transfer while this
        # one parses. Its waits query PostgreSQL, on a connection of its own, closed as it ends.
        ahead = ReadAhead(growing, thread_exit=lambda: connection.close())  # looked up on the reading thread
        with io.BufferedReader(ahead, READ_BUFFER_BYTES) as raw:
            result = _load(upload, raw)
        read_digest = growing.digest
        upload.refresh_from_db()
        changed = read_digest and upload.content_digest and upload.content_digest != read_digest
        if upload.status != UploadStatus.PARSING or changed:
            raise Abandoned(f"the upload changed while it was read ({upload.status})")
        if not upload.content_digest:
            upload.content_digest = read_digest or digest_of_file(path)
            upload.save(update_fields=["content_digest"])
        original = _same_file_already_active(upload)
        if original is not None:
            delete_upload_rows(int(upload.test_id), int(upload.pk))
            return _finish_as_duplicate(upload, original, path)
        return _activate(upload, result, path)
    except (Abandoned, FileNotFoundError) as exc:
        log.info("stopped following upload %s: %s", upload_id, exc)
        try:
            delete_upload_rows(int(upload.test_id), int(upload.pk))
        except client.ClickHouseUnavailable:
            log.warning("could not delete the rows of upload %s's follow; they stay invisible", upload_id)
        return "abandoned"
    except IngestError as exc:
        _fail(upload, str(exc))  # the receiver sees the failure and refuses the rest of the body
        return UploadStatus.FAILED
    except client.ClickHouseUnavailable:
        raise  # not the upload's fault: the ordinary ingestion retries it, deleting what this left first
    except Exception:
        log.exception("following upload %s failed", upload_id)
        _fail(upload, internal_error(upload_id))
        return UploadStatus.FAILED


def fail_upload(upload_id: int, error: str) -> None:
    """Give up on an upload (e.g. ClickHouse stayed down through every retry)."""
    upload = Upload.objects.select_related("test").filter(pk=upload_id).first()
    if upload is not None and upload.status == UploadStatus.PARSING:
        _fail(upload, error)


def internal_error(upload_id: int) -> str:
    """What the uploader is told of a failure that is not the file's: never the exception's own text (it may hold
    SQL, paths or a driver's internals); the server's log has it, under the upload's id."""
    return (
        f"internal error while ingesting upload {upload_id}: nothing of it was stored; the server's log has the "
        "details. Upload the file again, or tell the administrator if it fails again"
    )


# ── loading ─────────────────────────────────────────────────────────────────────────────────────────────────
def _load(upload: Upload, raw: io.BufferedIOBase) -> IngestResult:
    """Parse the file, release its samples second by second in order, store them and their per-second rows.

    This thread parses (the C path of analytics.phout, mostly) and orders the samples; two threads stream them
    into two INSERTs (SAMPLE_STREAMS); one aggregates whole seconds. The C kernels, numpy and the socket release
    the GIL in their heavy loops, so the stages overlap, and at most two items wait per stage, so memory stays
    bounded.
    """
    with _freed_memory_reused(), _no_cycle_collection():
        return _load_reusing_memory(upload, raw)


def _load_reusing_memory(upload: Upload, raw: io.BufferedIOBase) -> IngestResult:
    with _decoded_ahead(raw, int(upload.size_bytes)) as decoded:
        return _load_decoded(upload, raw, decoded)


@contextlib.contextmanager
def _decoded_ahead(raw: io.BufferedIOBase, stored_bytes: int) -> Iterator[io.BufferedIOBase | ReadAhead]:
    """The upload's phout bytes. A gzipped one is inflated on a thread of its own, ahead of the parser: on the
    parsing thread, inflating (~2.5 CPU-s for 10M lines) made the one stage every other waits for twice as long.
    It may inflate to `max_inflated_bytes(stored_bytes)` at most (storage.py)."""
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
            return cast(IngestResult, formats.load_aggregates(upload, parser, decoded, EARLY_VERDICT_LINES))
    except (NotPhout, DamagedGzip, InflatesTooMuch) as exc:
        raise IngestError(str(exc)) from exc
    window = SecondWindow()
    result = IngestResult()
    received_at_us = _now_us()
    test_id, upload_id = int(upload.test_id), int(upload.pk)
    sample_stage = _SampleStreams(test_id, upload_id, SAMPLE_STREAMS)
    aggregate_stage = _Stage("phout-aggregates", _AggregateWriter(test_id, upload_id, received_at_us))
    try:
        next_progress = PROGRESS_EVERY_BYTES
        for batch in parser.read_from(decoded, early_verdict_lines=EARLY_VERDICT_LINES):
            result.rows += batch.rows
            low, high = int(batch.receive_sec.min()), int(batch.receive_sec.max())
            result.first_ts = low if result.first_ts is None else min(result.first_ts, low)
            result.last_ts = high if result.last_ts is None else max(result.last_ts, high)
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
        _recompute_seconds(test_id, upload_id, sorted(window.late_seconds))
    instances.store(test_id, upload_id, parser)  # threads/VUs/users per second, where the file states them
    result.lines_total = parser.stats.lines_total
    result.lines_bad = parser.stats.lines_bad
    result.bad_examples = [{"line": b.line, "reason": b.reason, "text": b.text} for b in parser.stats.bad_examples]
    return result


# glibc's malloc(3) options (mallopt), as numbered in <malloc.h>.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024  # the largest glibc accepts
_TRIM_THRESHOLD_BYTES = 512 * 1024 * 1024


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """No garbage collection (of reference cycles) while an upload is ingested; one collection afterwards.

    The stages make a few Python objects per piece and no cycles, but the collector still ran every 700
    allocations and, now and then, walked everything made since the worker started: ~6% of the parsing thread's
    CPU in perf after gc.freeze() (backend/celery_app.py). Reference counting frees what the stages drop as before.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
            gc.collect()


@contextlib.contextmanager
def _freed_memory_reused() -> Iterator[None]:
    """Let malloc keep freed blocks for reuse while an upload is ingested, and give them back afterwards.

    Every stage makes and drops numpy columns of a few MB per batch. By default glibc serves blocks that size with
    a fresh mmap, or gives the top of its heap back to the kernel as soon as they are freed, so each new column is
    first-touched page by page again: in a 10M-line ingestion those page faults were ~40% of the parsing thread's
    CPU and ~20% of the whole worker's (bench/phout_upload/README.md). Blocks below 32 MB now come from the heap
    and up to 512 MB of freed heap is kept; `malloc_trim` returns what is left over once the upload is done.
    Elsewhere than glibc (no `mallopt`), nothing changes.
    """
    libc = _libc()
    if libc is not None:
        libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD_BYTES)
        libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD_BYTES)
    try:
        yield
    finally:
        if libc is not None:
            libc.malloc_trim(0)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    if libc is None or not hasattr(libc, "mallopt") or not hasattr(libc, "malloc_trim"):
        return None
    return libc


class _SampleWriter:
    """The sample stage's work: every released piece goes into one INSERT, opened on the stage's own thread."""

    def __init__(self, test_id: int, upload_id: int) -> None:
        self._ids = _IdColumns(test_id, upload_id)
        self._insert: client.NativeInsert | None = None
        self._opened: contextlib.ExitStack | None = None

    def __call__(self, item: tuple[PhoutBatch, tuple[str, ...]]) -> None:
        if self._insert is None:
            self._opened = contextlib.ExitStack()
            self._insert = self._opened.enter_context(
                client.native_insert(
                    samples.NAME, samples.COLUMNS, tag="uploads.insert_samples", settings_=SAMPLE_PART_SETTINGS
                )
            )
        batch, cases = item
        self._insert.send(_sample_columns(self._ids, batch, cases))

    def close(self, error: BaseException | None) -> None:
        # The INSERT is ended properly even when ingestion failed: the server confirms that every block sent is
        # written, so the failed upload's rows are all there when `_fail` deletes them. A dropped connection
        # would let the server write its last blocks after that deletion. (If ClickHouse itself is the failure,
        # ending fails too and the connection is dropped; those rows stay invisible: the upload is not active.)
        if self._opened is not None:
            self._opened.close()


class _SampleStreams:
    """The samples' INSERT stages, fed in turn: `put`, `close` and `abort` as one _Stage."""

    def __init__(self, test_id: int, upload_id: int, streams: int) -> None:
        self._stages = [_Stage(f"phout-samples-{i}", _SampleWriter(test_id, upload_id)) for i in range(max(1, streams))]
        self._turn = 0

    def put(self, item: tuple[PhoutBatch, tuple[str, ...]]) -> None:
        self._stages[self._turn].put(item)
        self._turn = (self._turn + 1) % len(self._stages)

    def close(self) -> None:
        errors = []
        for stage in self._stages:  # every INSERT ends (see _SampleWriter.close), then the first error is raised
            try:
                stage.close()
            except BaseException as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def abort(self) -> None:
        for stage in self._stages:
            stage.abort()


class _IdColumns:
    """The test and upload id columns of a piece: views of arrays filled once (every row of an upload has both)."""

    def __init__(self, test_id: int, upload_id: int) -> None:
        for name, value in (("test", test_id), ("upload", upload_id)):
            if not 0 <= value <= samples.ID_MAX:  # the column would wrap it into another test's rows
                raise IngestError(f"{name} id {value} is beyond what samples stores ({samples.ID_MAX})")
        self._test_id, self._upload_id = test_id, upload_id
        self._test_ids = self._upload_ids = np.zeros(0, dtype=np.uint32)

    def of(self, rows: int) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
        if rows > self._test_ids.size:
            self._test_ids = np.full(rows, self._test_id, dtype=np.uint32)
            self._upload_ids = np.full(rows, self._upload_id, dtype=np.uint32)
        return self._test_ids[:rows], self._upload_ids[:rows]


def _sample_columns(ids: _IdColumns, batch: PhoutBatch, cases: tuple[str, ...]) -> dict[str, native.ColumnData]:
    n = batch.rows
    test_ids, upload_ids = ids.of(n)
    return {
        "test_id": test_ids,
        "upload_id": upload_ids,
        "receive_sec": batch.receive_sec,
        "send_ts_us": batch.send_ts_us,
        "tag": native.CodedStrings(batch.case_codes, [c.encode() for c in cases]),
        "interval_real_us": batch.interval_real_us,
        "connect_time_us": batch.connect_time_us,
        "send_time_us": batch.send_time_us,
        "latency_us": batch.latency_us,
        "receive_time_us": batch.receive_time_us,
        "interval_event_us": batch.interval_event_us,
        "size_out_bytes": batch.size_out_bytes,
        "size_in_bytes": batch.size_in_bytes,
        "net_code": batch.net_code,
        "proto_code": batch.proto_code,
    }


class _AggregateWriter:
    """The aggregate stage's work: each released piece aggregated, the rows inserted AGGREGATE_ROWS at a time.

    One INSERT per piece made ~40 small INSERTs (and parts to merge) for a 10M-line file, ~0.4 s of the server's
    CPU; rows wait here instead (a few KB each), and the last ones go in when the stage closes without error.
    They stay columns all the way (analytics.aggregate.SecondTable, native.py): a Python tuple per row and the
    driver's encoding of each histogram count were a third of this stage's CPU.
    """

    def __init__(self, test_id: int, upload_id: int, received_at_us: int) -> None:
        self._test_id = test_id
        self._upload_id = upload_id
        self._received_at_us = received_at_us
        self._tables: list[SecondTable] = []
        self._rows = 0

    def __call__(self, item: tuple[PhoutBatch, tuple[str, ...]]) -> None:
        batch, cases = item
        table = aggregate_table(_aggregation_columns(batch), cases)
        self._tables.append(table)
        self._rows += table.size
        if self._rows >= AGGREGATE_ROWS:
            self._flush()

    def close(self, error: BaseException | None) -> None:
        if error is None:
            self._flush()

    def _flush(self) -> None:
        tables, self._tables, self._rows = self._tables, [], 0
        table = SecondTable.concat(tables)
        _insert_aggregates(self._test_id, self._upload_id, table, self._received_at_us, tag="uploads.insert_aggregates")


def _insert_aggregates(test_id: int, upload_id: int, table: SecondTable, received_at_us: int, *, tag: str) -> None:
    if table.size:
        with client.native_insert(second_aggregates.NAME, second_aggregates.COLUMNS, tag=tag) as insert:
            insert.send(second_aggregates.columns_of(test_id, upload_id, table, received_at_us))


def _aggregation_columns(batch: PhoutBatch) -> SampleColumns:
    return SampleColumns(
        receive_sec=batch.receive_sec,
        case_codes=batch.case_codes,
        interval_real_us=batch.interval_real_us,
        connect_time_us=batch.connect_time_us,
        send_time_us=batch.send_time_us,
        latency_us=batch.latency_us,
        receive_time_us=batch.receive_time_us,
        size_out_bytes=batch.size_out_bytes,
        size_in_bytes=batch.size_in_bytes,
        net_code=batch.net_code,
        proto_code=batch.proto_code,
    )


class _Stage:
    """One thread applying `work` to items in order; at most two items wait, so memory stays bounded.

    An error in `work` is re-raised to the producer at its next `put` or at `close`. If `work` has a
    `close(error)` method, the thread calls it after the last item (error is None after a clean `close`).
    """

    def __init__(self, name: str, work: Callable[[Any], None]) -> None:
        self._work = work
        self._queue: queue.Queue[tuple[Any] | None] = queue.Queue(maxsize=2)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def put(self, item: Any) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put((item,))

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error

    def abort(self) -> None:
        if self._thread.is_alive():
            self._error = self._error or RuntimeError("aborted")
            while True:  # unblock a full queue, then stop the thread
                try:
                    self._queue.get_nowait()
                except queue.Empty:
                    break
            self._queue.put(None)
            self._thread.join()

    def _run(self) -> None:
        try:
            while (item := self._queue.get()) is not None:
                if self._error is not None:
                    continue  # drain after a failure; the producer sees the error
                try:
                    self._work(item[0])
                except BaseException as exc:
                    self._error = exc
            finish = getattr(self._work, "close", None)
            if finish is not None:
                try:
                    finish(self._error)
                except BaseException as exc:
                    self._error = self._error or exc
        finally:
            client.reset_connections()  # this thread's connection dies with it


def _recompute_seconds(test_id: int, upload_id: int, seconds: list[int]) -> None:
    """Seconds that got rows after they were aggregated: aggregate them again from the stored samples.

    The first rows of those seconds are deleted (and the deletion awaited) before the exact ones are written, so no
    reader ever sees a second twice, with or without FINAL.
    """
    for start in range(0, len(seconds), LATE_SECONDS_PER_QUERY):
        part = seconds[start : start + LATE_SECONDS_PER_QUERY]
        params = {"test_id": test_id, "upload_id": upload_id, "seconds": tuple(part)}  # a tuple renders as IN (…)
        client.mutate(
            second_aggregates.NAME,
            "DELETE WHERE test_id = %(test_id)s AND source_id = %(upload_id)s AND ts IN %(seconds)s",
            params,
            tag="uploads.delete_late_seconds",
        )
        cols = client.execute_numpy(
            "SELECT receive_sec, tag, interval_real_us, connect_time_us, send_time_us, latency_us, receive_time_us, "
            f"size_out_bytes, size_in_bytes, net_code, proto_code FROM {samples.NAME} "
            "WHERE test_id = %(test_id)s AND upload_id = %(upload_id)s AND receive_sec IN %(seconds)s",
            params,
            tag="uploads.late_seconds_samples",
        )
        cases, codes = np.unique(np.asarray(cols[1], dtype=object).astype(str), return_inverse=True)
        sample_cols = SampleColumns(
            receive_sec=np.asarray(cols[0], dtype=np.int64),
            case_codes=codes.astype(np.int32),
            interval_real_us=np.asarray(cols[2], dtype=np.int64),
            connect_time_us=np.asarray(cols[3], dtype=np.int64),
            send_time_us=np.asarray(cols[4], dtype=np.int64),
            latency_us=np.asarray(cols[5], dtype=np.int64),
            receive_time_us=np.asarray(cols[6], dtype=np.int64),
            size_out_bytes=np.asarray(cols[7], dtype=np.int64),
            size_in_bytes=np.asarray(cols[8], dtype=np.int64),
            net_code=np.asarray(cols[9], dtype=np.int32),
            proto_code=np.asarray(cols[10], dtype=np.int32),
        )
        wait_for_mutations(second_aggregates.NAME)
        table = aggregate_table(sample_cols, [str(c) for c in cases])
        _insert_aggregates(test_id, upload_id, table, _now_us(), tag="uploads.insert_late_seconds")


# ── finishing ───────────────────────────────────────────────────────────────────────────────────────────────
def _same_file_already_active(upload: Upload) -> Upload | None:
    active_id = Test.objects.filter(pk=upload.test_id).values_list("active_upload_id", flat=True).first()
    if active_id is None:
        return None
    active = Upload.objects.filter(
        pk=active_id, status=UploadStatus.READY, content_digest=upload.content_digest
    ).first()
    return active


def _finish_as_duplicate(upload: Upload, original: Upload, path: Path) -> str:
    Upload.objects.filter(pk=upload.pk).update(
        status=UploadStatus.READY,
        error=f"same file as upload {original.pk}, which is already this test's data: nothing ingested twice",
        progress_bytes=upload.size_bytes,
        lines_total=original.lines_total,
        lines_bad=original.lines_bad,
        bad_examples=original.bad_examples,
        finished_at=timezone.now(),
    )
    path.unlink(missing_ok=True)
    Test.objects.filter(pk=upload.test_id, status=TestStatus.PROCESSING, active_upload_id=original.pk).update(
        status=TestStatus.READY
    )
    return UploadStatus.READY


def _activate(upload: Upload, result: IngestResult, path: Path) -> str:
    """Make this upload the test's data, in one transaction; then drop the rows of the one it replaces."""
    stats: dict[str, Any] = {
        "lines_total": result.lines_total,
        "lines_bad": result.lines_bad,
        "bad_examples": result.bad_examples,
        "progress_bytes": upload.size_bytes,
        "finished_at": timezone.now(),
    }
    with transaction.atomic():
        test = Test.objects.select_for_update().get(pk=upload.test_id)
        previous = Upload.objects.filter(pk=test.active_upload_id).first() if test.active_upload_id else None
        if previous is not None and previous.pk > upload.pk:
            # A newer upload finished first: it stays the test's data, this one is superseded at once.
            Upload.objects.filter(pk=upload.pk).update(status=UploadStatus.SUPERSEDED, **stats)
            transaction.on_commit(lambda: delete_upload_rows(int(upload.test_id), int(upload.pk)))
            status: str = UploadStatus.SUPERSEDED
        else:
            Upload.objects.filter(pk=upload.pk).update(status=UploadStatus.READY, error="", **stats)
            test.active_upload_id = upload.pk
            test.first_ts = result.first_ts
            test.last_ts = result.last_ts
            # Ready as soon as its exact data is in: every page answers from the samples and aggregates now.
            # The post-processing queued below only warms the report's cache and runs the diagnosis (the
            # Analysis panel says "pending" meanwhile). A test the tank is still streaming stays online.
            if test.status != TestStatus.ONLINE:
                test.status = TestStatus.READY
            test.error = ""
            test.save(update_fields=["active_upload", "first_ts", "last_ts", "status", "error"])
            if previous is not None:
                Upload.objects.filter(pk=previous.pk).update(status=UploadStatus.SUPERSEDED)
                previous_id = int(previous.pk)
                transaction.on_commit(lambda: delete_upload_rows(int(upload.test_id), previous_id))
            test_id = int(test.pk)
            transaction.on_commit(
                lambda: celery_app.send_task(POSTPROCESS_TASK, args=[test_id]),
            )
            status = UploadStatus.READY
    path.unlink(missing_ok=True)  # the samples are in ClickHouse now
    return status


def _fail(upload: Upload, error: str) -> None:
    """Fail the upload (its file removed, its test released: backend/uploads/outcome.py), its rows deleted."""
    try:
        delete_upload_rows(int(upload.test_id), int(upload.pk))
    except client.ClickHouseUnavailable:
        log.warning("could not delete the rows of failed upload %s (ClickHouse down); they stay invisible", upload.pk)
    outcome.fail_upload(int(upload.pk), error)


def delete_upload_rows(test_id: int, upload_id: int) -> None:
    """Delete an upload's samples and derived aggregates (asynchronous mutations; the rows are never read)."""
    params = {"test_id": test_id, "upload_id": upload_id}
    for table, column in ((samples.NAME, "upload_id"), (second_aggregates.NAME, "source_id")):
        rows = client.execute(
            f"SELECT count() FROM {table} WHERE test_id = %(test_id)s AND {column} = %(upload_id)s",
            params,
            tag="uploads.count_upload_rows",
        )
        if rows and int(rows[0][0]) > 0:
            client.mutate(
                table,
                f"DELETE WHERE test_id = %(test_id)s AND {column} = %(upload_id)s",
                params,
                tag="uploads.delete_upload_rows",
            )


def wait_for_mutations(table: str, timeout_s: float = MUTATION_WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if client.pending_mutations(table) == 0:
            return
        if time.monotonic() > deadline:
            raise client.ClickHouseUnavailable(f"mutations on {table} still running after {timeout_s:.0f} s")
        time.sleep(0.05)


def upload_summary(upload: Upload, active_upload_id: int | None) -> Mapping[str, Any]:
    return {
        "id": upload.pk,
        "test": upload.test_id,
        "status": upload.status,
        "active": upload.pk == active_upload_id,
        "size_bytes": upload.size_bytes,
        "progress_bytes": upload.progress_bytes,
        "content_digest": upload.content_digest,
        "lines_total": upload.lines_total,
        "lines_bad": upload.lines_bad,
        "bad_examples": upload.bad_examples,
        "error": upload.error,
        "format": formats.format_of(int(upload.pk)),
        "created_at": upload.created_at.isoformat(),
        "finished_at": upload.finished_at.isoformat() if upload.finished_at else None,
    }


def _now_us() -> int:
    return int(datetime.now(UTC).timestamp() * 1_000_000)
