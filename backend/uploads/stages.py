"""The threads an upload's samples go through after parsing (backend/uploads/load.py): each stage one thread behind a
queue of two pieces, so parsing, aggregating and sending overlap, and a slow ClickHouse slows the reader down instead
of piling batches up in memory.

- `SampleStreams`: the samples, into SAMPLE_STREAMS INSERTs at once, each fed by a thread of its own with every
  other piece;
- `AggregateWriter` (on a `Stage`): each piece aggregated per second, the rows inserted AGGREGATE_ROWS at a time.
The C kernels, numpy and the socket release the GIL in their heavy loops, which is what lets the threads overlap.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from analytics.aggregate import SecondTable, aggregate_table
from analytics.schema.samples import PhoutBatch
from backend.clickhouse import client, native
from backend.clickhouse.tables import samples, second_aggregates
from backend.uploads.result import IngestError

# Samples go to ClickHouse in this many INSERTs at once. The server squashes and writes an INSERT's blocks on one
# thread; two keep both cores on it. Each INSERT's blocks stay in sort-key order, and each costs the server a squash
# buffer of its own (SAMPLE_PART_SETTINGS).
SAMPLE_STREAMS = 2
# The server squashes each sample INSERT's blocks into parts of this many rows (its default: 1,048,576): parts this
# big are too few for its merge selector to merge them during the upload itself, and later merges have one level
# fewer to go through (~190 MB of squash buffer per INSERT on the server).
SAMPLE_PART_SETTINGS = {"min_insert_block_size_rows": 2_100_000}
# Per-second rows per INSERT: a few large INSERTs rather than one small one (and a part to merge) per piece.
AGGREGATE_ROWS = 20_000

# What a stage is handed: released samples, and the case names their case codes index.
Piece = tuple[PhoutBatch, tuple[str, ...]]


class Stage:
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


class IdColumns:
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


def sample_columns(ids: IdColumns, batch: PhoutBatch, cases: tuple[str, ...]) -> dict[str, native.ColumnData]:
    """A piece's rows of `samples`, as the INSERT sends them."""
    return samples.columns_of(*ids.of(batch.rows), batch, cases)


class SampleWriter:
    """The sample stage's work: every released piece goes into one INSERT, opened on the stage's own thread."""

    def __init__(self, test_id: int, upload_id: int) -> None:
        self._ids = IdColumns(test_id, upload_id)
        self._insert: client.NativeInsert | None = None
        self._opened: contextlib.ExitStack | None = None

    def __call__(self, item: Piece) -> None:
        if self._insert is None:
            self._opened = contextlib.ExitStack()
            self._insert = self._opened.enter_context(
                client.native_insert(
                    samples.NAME, samples.COLUMNS, tag="uploads.insert_samples", settings_=SAMPLE_PART_SETTINGS
                )
            )
        batch, cases = item
        self._insert.send(sample_columns(self._ids, batch, cases))

    def close(self, error: BaseException | None) -> None:
        # The INSERT is ended properly even when ingestion failed: the server confirms that every block sent is
        # written, so the failed upload's rows are all there when they are deleted. A dropped connection would let
        # the server write its last blocks after that deletion. (If ClickHouse itself is the failure, ending fails
        # too and the connection is dropped; those rows stay invisible: the upload is not active.)
        if self._opened is not None:
            self._opened.close()


class SampleStreams:
    """The samples' INSERT stages, fed in turn: `put`, `close` and `abort` as one Stage."""

    def __init__(self, test_id: int, upload_id: int, streams: int = SAMPLE_STREAMS) -> None:
        self._stages = [Stage(f"phout-samples-{i}", SampleWriter(test_id, upload_id)) for i in range(max(1, streams))]
        self._turn = 0

    def put(self, item: Piece) -> None:
        self._stages[self._turn].put(item)
        self._turn = (self._turn + 1) % len(self._stages)

    def close(self) -> None:
        errors = []
        for stage in self._stages:  # every INSERT ends (see SampleWriter.close), then the first error is raised
            try:
                stage.close()
            except BaseException as exc:
                errors.append(exc)
        if errors:
            raise errors[0]

    def abort(self) -> None:
        for stage in self._stages:
            stage.abort()


class AggregateWriter:
    """The aggregate stage's work: each released piece aggregated, the rows inserted AGGREGATE_ROWS at a time.

    Rows wait here (a few KB each) and the last ones go in when the stage closes without error. They stay columns
    all the way (analytics.aggregate.SecondTable, native.py), never a Python tuple per row.
    """

    def __init__(self, test_id: int, upload_id: int, received_at_us: int) -> None:
        self._test_id = test_id
        self._upload_id = upload_id
        self._received_at_us = received_at_us
        self._tables: list[SecondTable] = []
        self._rows = 0

    def __call__(self, item: Piece) -> None:
        batch, cases = item
        table = aggregate_table(batch, cases)
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
        insert_aggregates(self._test_id, self._upload_id, table, self._received_at_us, tag="uploads.insert_aggregates")


def insert_aggregates(test_id: int, upload_id: int, table: SecondTable, received_at_us: int, *, tag: str) -> None:
    if table.size:
        with client.native_insert(second_aggregates.NAME, second_aggregates.COLUMNS, tag=tag) as insert:
            insert.send(second_aggregates.columns_of(test_id, upload_id, table, received_at_us))
