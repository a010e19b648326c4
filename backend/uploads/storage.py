"""Where uploaded phout bodies live on disk (settings.VAR_DIR / "uploads"), how they are written and read back.

The body of a PUT is copied to disk in fixed-size pieces as it arrives, never held in memory, and hashed on the
way. A file is read back through `open_decoded`, which recognises gzip by its magic bytes (not by a header or a
file name: curl and the CLI may or may not say what they send).

Gzip is inflated by ISA-L (the `isal` package: the same stream format, members and checks as the standard
library's gzip, and the same exceptions), a fraction of `gzip.GzipFile`'s CPU: inflating is otherwise the largest
part of a gzipped upload's ingestion (bench/phout_upload/README.md).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol, cast, runtime_checkable

from django.conf import settings
from isal import igzip, isal_zlib

from analytics.phout import PhoutParser, not_phout_error
from backend.fastpaths.direct_io import DirectReader, DirectWriter, ReadAhead
from backend.uploads.digest import Hasher

GZIP_MAGIC = b"\x1f\x8b"
COPY_BYTES = 1024 * 1024
# A request body is read in pieces of up to this much: the direct-I/O write buffer's size (direct_io.BUFFER_BYTES),
# which one read from the socket fills (fastpaths/socket_body.py); a body smaller than that comes through the event
# loop and is taken in one read.
BODY_READ_BYTES = 4 * 1024 * 1024
COMMIT_BYTES = 16 * 1024 * 1024
# The head of a body that is checked before the rest is accepted: enough for a few hundred phout lines.
HEAD_BYTES = 64 * 1024
# A head with fewer lines than this is judged only when it is the whole file.
HEAD_MIN_LINES = 10


class Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


@runtime_checkable
class Fillable(Protocol):
    """A body that reads into memory it is given: `readinto(view)` returns how many bytes it put there, 0 at its
    end, and never reads past the body."""

    def readinto(self, buffer: memoryview, /) -> int: ...


class BodyIncomplete(Exception):
    """The client sent fewer bytes than it announced (it disconnected, or lied in Content-Length)."""


class BodyRefused(Exception):
    """The head of the body shows it is not phout: the rest is not read."""


def upload_dir() -> Path:
    path = Path(settings.VAR_DIR) / "uploads"
    path.mkdir(parents=True, exist_ok=True)
    return path


def upload_path(upload_id: int) -> Path:
    return upload_dir() / f"{upload_id}.phout"


def write_body(
    stream: Readable | Fillable,
    path: Path,
    *,
    offset: int,
    length: int,
    hasher: Hasher | None = None,
    check_head: Callable[[bytes, bool], None] | None = None,
    on_commit: Callable[[int], None] | None = None,
) -> None:
    """Copy exactly `length` bytes of `stream` into `path` at `offset`; `check_head(head, is_whole)` may refuse.

    About every COMMIT_BYTES, `on_commit(end)` is told that the bytes before `end` (an offset in the file) are
    written: they stay if the body breaks off later, and a follow may read them. The file is written with direct
    I/O where it can be (direct_io.py: an upload is written once and read once, and must not churn the page cache).
    """
    head = bytearray()
    remaining = length
    uncommitted = 0
    out = DirectWriter(path, offset)
    next_piece = _pieces_into(out, stream)
    try:
        while remaining > 0:
            piece = next_piece(min(BODY_READ_BYTES, remaining))
            if not piece:
                raise BodyIncomplete(f"the body ended after {length - remaining} of {length} bytes")
            remaining -= len(piece)
            uncommitted += len(piece)
            if check_head is not None and len(head) < HEAD_BYTES:
                head += piece[: HEAD_BYTES - len(head)]
                if len(head) >= HEAD_BYTES or remaining == 0:
                    check_head(bytes(head), remaining == 0)
                    check_head = None
            if hasher is not None:
                hasher.update(piece)
            if on_commit is not None and uncommitted >= COMMIT_BYTES and remaining > 0:
                on_commit(out.commit())
                uncommitted = 0
    except BaseException:
        out.close(drop=True)  # bytes after the last commit are not kept: a resumed piece starts there
        raise
    out.close()


def _pieces_into(out: DirectWriter, stream: Readable | Fillable) -> Callable[[int], bytes | memoryview]:
    """A function that moves the next piece of `stream` (at most so many bytes) into `out` and returns it: read
    straight into the write buffer when the stream can (tankapi.socket_body.SocketBody), else read, then copied."""
    if isinstance(stream, Fillable):
        readinto = stream.readinto
        return lambda size: out.fill(readinto, size)
    read = stream.read

    def read_and_write(size: int) -> bytes:
        piece = read(size)
        out.write(piece)
        return piece

    return read_and_write


def head_error(head: bytes, is_whole: bool) -> str | None:
    """Why the start of a body (plain or gzip) shows it is not phout, or None when it may well be."""
    if head[:2] == GZIP_MAGIC:
        try:
            text = zlib.decompressobj(wbits=31).decompress(head, HEAD_BYTES * 4)
        except zlib.error as exc:
            return f"the body starts like gzip but does not decompress: {exc}"
        is_whole = is_whole and len(text) < HEAD_BYTES * 4
    else:
        text = head
    if not is_whole:
        cut = text.rfind(b"\n")
        text = text[: cut + 1] if cut >= 0 else b""
    parser = PhoutParser()
    parser.feed(text)
    parser.finish()
    if not is_whole and parser.stats.lines_total < HEAD_MIN_LINES:
        return None
    return not_phout_error(parser.stats)


class DamagedGzip(Exception):
    """A stored body that starts like gzip but does not inflate to its end: cut short, corrupted, or not gzip."""


# What inflating raises for a damaged stream (ISA-L raises the standard library's classes, and its own for deflate;
# its stubs declare that one as an instance, hence the cast).
_INFLATE_ERRORS = (gzip.BadGzipFile, EOFError, zlib.error, cast("type[Exception]", isal_zlib.IsalError))


class InflatesTooMuch(Exception):
    """A gzip body that inflates beyond what its size allows (`max_inflated_bytes`): a bomb, or not a phout log."""


def max_inflated_bytes(stored_bytes: int) -> int:
    """How far a gzip body of this size may inflate: TANKODROM_MAX_INFLATE_RATIO times its size (phout compresses
    3-10x), never less than INFLATE_FREE_BYTES, never more than TANKODROM_MAX_INFLATED_BYTES."""
    by_ratio = max(int(settings.TANKODROM_MAX_INFLATE_RATIO) * stored_bytes, INFLATE_FREE_BYTES)
    return min(by_ratio, int(settings.TANKODROM_MAX_INFLATED_BYTES))


# A gzip body may always inflate to this much, whatever its ratio: small test files of repeated lines compress far
# better than real logs.
INFLATE_FREE_BYTES = 256 * 1024 * 1024


class _Inflating(io.BufferedIOBase):
    """A gzip stream's inflated bytes, a damaged stream's error raised as DamagedGzip with what went wrong, and
    InflatesTooMuch once more than `limit` bytes came out (the inflating stops there: memory and time stay bounded)."""

    def __init__(self, raw: io.BufferedIOBase, limit: int | None = None) -> None:
        super().__init__()
        self._gzip = igzip.IGzipFile(fileobj=raw, mode="rb")  # type: ignore[no-untyped-call]
        self._limit = limit
        self._out = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1, /) -> bytes:
        with _damage_named():
            data = self._gzip.read(size)
        self._count(len(data))
        return data

    def readinto(self, buffer: memoryview | bytearray, /) -> int:  # type: ignore[override]
        with _damage_named():
            n = self._gzip.readinto(buffer)
        self._count(n)
        return n

    def _count(self, n: int) -> None:
        self._out += n
        if self._limit is not None and self._out > self._limit:
            raise InflatesTooMuch(
                f"the gzip file inflates to more than {self._limit} bytes, more than its size allows "
                "(TANKODROM_MAX_INFLATE_RATIO, TANKODROM_MAX_INFLATED_BYTES): refused"
            )

    def tell(self) -> int:
        return self._gzip.tell()

    def close(self) -> None:
        self._gzip.close()
        super().close()


@contextlib.contextmanager
def _damage_named() -> Iterator[None]:
    """Inflating's errors as DamagedGzip, saying what is wrong with the file."""
    try:
        yield
    except _INFLATE_ERRORS as exc:
        what = "it ends before its end-of-stream marker" if isinstance(exc, EOFError) else str(exc)
        message = f"the gzip file is damaged ({what}): nothing was stored; `gzip -t` on the file shows where it breaks"
        raise DamagedGzip(message) from exc


def open_decoded(raw: io.BufferedIOBase, max_inflated: int | None = None) -> io.BufferedIOBase:
    """The decompressed view of a stored body: gzip when it starts with gzip's magic bytes, else the file itself.
    Reads of a gzip body that does not inflate raise DamagedGzip; past `max_inflated` bytes, InflatesTooMuch."""
    magic = raw.read(2)
    raw.seek(0)
    if magic == GZIP_MAGIC:
        return _Inflating(raw, max_inflated)
    return raw


def open_stored(path: Path) -> io.BufferedReader:
    """A stored body for reading: direct I/O where possible, read ahead in a thread (see direct_io.py)."""
    return io.BufferedReader(ReadAhead(DirectReader(path)), COPY_BYTES)
