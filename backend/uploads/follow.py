"""Reading an upload's file while it is still arriving, so parsing overlaps the transfer of a big file.

When a big body arrives fast (receive.py decides), ingestion starts before its last byte is in and reads the file
through `GrowingFile`: only bytes the receiver has committed (flushed to the file and recorded as the upload's
`progress_bytes`) are read, and those never change again, because every later piece must start where they end.
While it has caught up with the transfer the reader waits; the upload failing or vanishing, or the transfer
being too slow to be worth following (waits adding up to `MAX_WAIT_S`), ends the follow with `Abandoned`, and
the ordinary ingestion runs once the file is complete. Unless the receiver hashes the body (a whole one), the
reader hashes what it reads, so the file's content digest (for the same-file check) costs no second pass.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

from backend.fastpaths.direct_io import DirectReader, PositionedReader
from backend.loadtests.models import Upload, UploadStatus
from backend.uploads import digest

POLL_S = 0.05
MAX_WAIT_S = 10.0


class Abandoned(Exception):
    """Following this upload stopped; the reason says why (its ordinary ingestion takes over, if it completes)."""


class GrowingFile(PositionedReader):
    """The committed bytes of an upload's file, blocking for more until the upload is complete."""

    def __init__(self, path: Path, upload_id: int, size_bytes: int, *, hashing: bool = True) -> None:
        super().__init__()
        self._file = DirectReader(path)  # committed bytes were written with direct I/O: read them the same way
        self._upload_id = upload_id
        self._size = size_bytes
        self._pos = 0
        self._committed = 0
        self._complete = False
        self._waited_s = 0.0
        self._hasher = digest.new_hasher() if hashing else None
        self._hashed_to = 0

    # ── io.RawIOBase ────────────────────────────────────────────────────────────────────────────────────────
    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence != io.SEEK_SET or offset < 0:
            raise io.UnsupportedOperation("a growing file is only re-read from a known position")
        self._pos = offset
        return offset

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        while self._committed <= self._pos:
            if self._complete:
                return 0
            self._wait_for_more()
        self._file.seek(self._pos)
        n = self._file.readinto(view[: min(len(view), self._committed - self._pos)])
        if not n:
            raise Abandoned(f"the file ends at byte {self._pos}, before its committed {self._committed} bytes")
        end = self._pos + n
        if self._hasher is not None and end > self._hashed_to:  # bytes read again after a seek back: hashed once
            self._hasher.update(view[self._hashed_to - self._pos : n])
            self._hashed_to = end
        self._pos = end
        return n

    def close(self) -> None:
        self._file.close()
        super().close()

    # ── following ───────────────────────────────────────────────────────────────────────────────────────────
    @property
    def digest(self) -> str | None:
        """The whole file's content digest (None when not hashing); only meaningful once everything was read."""
        return None if self._hasher is None else digest.digest_of(self._hasher)

    def _wait_for_more(self) -> None:
        state = Upload.objects.filter(pk=self._upload_id).values_list("status", "progress_bytes").first()
        if state is None:
            raise Abandoned("the upload was deleted")
        status, progress = state
        if status == UploadStatus.PARSING:
            self._committed, self._complete = self._size, True  # the receiver has all of it
            return
        if status != UploadStatus.RECEIVING:
            raise Abandoned(f"the upload is {status}")
        if progress > self._committed:
            self._committed = progress
            return
        if self._waited_s >= MAX_WAIT_S:
            raise Abandoned(f"the transfer stalled (waited {self._waited_s:.0f} s for more bytes)")
        time.sleep(POLL_S)
        self._waited_s += POLL_S
