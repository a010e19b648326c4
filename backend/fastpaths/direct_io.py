"""The staging file of an upload written and read with direct I/O (O_DIRECT), past the kernel's page cache.

Why: an uploaded phout is written once and read once (by the ingestion, often while it still arrives), and then
deleted. Through the page cache every byte of it takes a fresh page of memory: a 5 GB upload evicts as much of
what ClickHouse and PostgreSQL keep cached, and each new page costs the writer CPU to obtain, most of all on a
virtual machine whose freed memory goes back to its host (virtio balloon page reporting). Direct writes and reads
move the bytes between our buffer and the disk without those pages (bench/phout_upload/README.md has the figures).

Direct I/O wants offsets, lengths and memory aligned to the disk's blocks, so bytes go through a page-aligned
buffer (an anonymous mmap). Whatever cannot be done that way falls back to ordinary I/O on the same descriptor: a
file system without O_DIRECT (tmpfs), a write starting at an unaligned offset (a resumed piece), and the tail of
a body that does not end on a block boundary. Mixing the two is safe: Linux writes cached pages of a range back
before it reads that range directly.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import mmap
import os
import queue
import threading
from collections.abc import Callable
from pathlib import Path

# Offsets and lengths of direct I/O are multiples of this (4 KiB covers the logical block size of every disk we run
# on; a file system that wants more refuses with EINVAL, and we fall back).
ALIGN_BYTES = 4096
BUFFER_BYTES = 4 * 1024 * 1024

_O_DIRECT = getattr(os, "O_DIRECT", 0)  # Linux; elsewhere everything is ordinary I/O


def _open(path: Path, flags: int, *, direct: bool) -> tuple[int, bool]:
    """A descriptor for `path`, with O_DIRECT when asked and the file system allows it; (fd, direct)."""
    if direct and _O_DIRECT:
        try:
            return os.open(path, flags | _O_DIRECT, 0o644), True
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
    return os.open(path, flags, 0o644), False


def _unmap(buffer: mmap.mmap | None) -> None:
    """Unmap an aligned buffer now, unless something still views it (the traceback of a failed write may, and
    BufferError would then hide that failure): the garbage collector unmaps it later."""
    if buffer is not None:
        with contextlib.suppress(BufferError):
            buffer.close()


def _without_direct(fd: int) -> None:
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~_O_DIRECT)


class DirectWriter:
    """Writes consecutive bytes into a file from `offset` on (creating it if needed, never truncating it).

    `write` takes pieces of any size (`fill` reads them into the buffer instead); `commit` puts what can be written
    now into the file and returns the offset before which every byte is in the file; `close` writes the rest.
    Bytes given after the last `commit` are not in the file until `close`: a caller that stops early (a broken
    body) may simply close it with `drop=True`.
    """

    def __init__(self, path: Path, offset: int) -> None:
        self._fd, self._direct = _open(path, os.O_WRONLY | os.O_CREAT, direct=offset % ALIGN_BYTES == 0)
        self._written_to = offset  # file offset of the first byte still in the buffer
        self._buffer = mmap.mmap(-1, BUFFER_BYTES) if self._direct else None
        self._filled = 0
        self._scratch: bytearray | None = None  # fill's buffer when the file is not direct

    def write(self, piece: bytes | memoryview) -> None:
        if self._buffer is None:
            self._pwrite_all(memoryview(piece))
            return
        view = memoryview(piece)
        while view:
            take = min(len(view), BUFFER_BYTES - self._filled)
            self._buffer[self._filled : self._filled + take] = view[:take]
            self._filled += take
            view = view[take:]
            if self._filled == BUFFER_BYTES:
                self._flush_aligned()

    def fill(self, readinto: Callable[[memoryview], int], limit: int) -> memoryview:
        """Read up to `limit` bytes with `readinto` (a socket's, say) straight into the write buffer, sparing the
        copy `write` makes. Returns the bytes read, a view that is valid until the next call (empty at the end)."""
        if self._buffer is None:
            if self._scratch is None:
                self._scratch = bytearray(BUFFER_BYTES)
            view = memoryview(self._scratch)[: min(limit, BUFFER_BYTES)]
            n = readinto(view)
            self._pwrite_all(view[:n])
            return view[:n]
        if self._filled == BUFFER_BYTES:
            self._flush_aligned()
        room = memoryview(self._buffer)[self._filled : self._filled + min(limit, BUFFER_BYTES - self._filled)]
        n = readinto(room)
        self._filled += n
        return room[:n]

    def commit(self) -> int:
        """Write every whole block given so far; the offset up to which the file now holds the body."""
        if self._buffer is not None:
            self._flush_aligned()
        return self._written_to

    def close(self, *, drop: bool = False) -> None:
        """Write what is left (unless `drop`) and close the file."""
        try:
            if not drop and self._buffer is not None:
                self._flush_aligned()
                if self._filled:
                    _without_direct(self._fd)  # a tail shorter than a block: an ordinary write
                    self._direct = False
                    self._pwrite_all(memoryview(self._buffer)[: self._filled])
                    self._filled = 0
        finally:
            os.close(self._fd)
            _unmap(self._buffer)

    def _flush_aligned(self) -> None:
        assert self._buffer is not None
        whole = self._filled - self._filled % ALIGN_BYTES
        if not whole:
            return
        self._pwrite_all(memoryview(self._buffer)[:whole])
        rest = self._filled - whole
        if rest:
            self._buffer.move(0, whole, rest)
        self._filled = rest

    def _pwrite_all(self, view: memoryview) -> None:
        while view:
            try:
                n = os.pwrite(self._fd, view, self._written_to)
            except OSError as exc:
                if exc.errno != errno.EINVAL or not self._direct:
                    raise
                _without_direct(self._fd)  # the file system refused this direct write after all
                self._direct = False
                continue
            self._written_to += n
            view = view[n:]
            if view and self._direct and n % ALIGN_BYTES:
                _without_direct(self._fd)  # a short write left us unaligned: the rest the ordinary way
                self._direct = False


class PositionedReader(io.RawIOBase):
    """A readable, seekable raw file that keeps its position in `_pos` (the staging file's readers)."""

    _pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos


class DirectReader(PositionedReader):
    """A file read with direct I/O where possible; seekable, with reads of any size at any position."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._fd, self._direct = _open(path, os.O_RDONLY, direct=True)
        self._buffer = mmap.mmap(-1, BUFFER_BYTES) if self._direct else None
        self._pos = 0

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            self._pos = offset
        elif whence == io.SEEK_CUR:
            self._pos += offset
        else:
            self._pos = os.fstat(self._fd).st_size + offset
        return self._pos

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        if not view:
            return 0
        if self._buffer is None:
            n = os.preadv(self._fd, [view], self._pos)
            self._pos += n
            return n
        start = self._pos - self._pos % ALIGN_BYTES
        skip = self._pos - start
        span = min(BUFFER_BYTES, -(-(skip + len(view)) // ALIGN_BYTES) * ALIGN_BYTES)
        aligned = memoryview(self._buffer)[:span]
        try:
            got = os.preadv(self._fd, [aligned], start)
        except OSError as exc:
            if exc.errno != errno.EINVAL:
                raise
            aligned.release()  # (an mmap with views of it cannot be closed)
            _without_direct(self._fd)
            _unmap(self._buffer)
            self._buffer = None
            return self.readinto(view)
        n = max(0, min(got - skip, len(view)))
        view[:n] = aligned[skip : skip + n]
        self._pos += n
        return n

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
            _unmap(self._buffer)
        super().close()


class ReadAhead(PositionedReader):
    """Sequential reads of another file object done ahead of the reader, in a thread of its own.

    Direct reads skip the page cache, and with it the kernel's readahead: each read waits for the disk, on the parsing
    thread. Here a thread keeps up to `depth` chunks read ahead while
    the caller parses the previous ones; the bytes, their order and any error of `inner` (raised where the caller
    would have met it) are those of reading `inner` directly. `thread_exit` runs on the reading thread as it ends
    (e.g. closing its database connection, when `inner` queries one while it waits for a growing upload).
    """

    def __init__(
        self,
        inner: io.RawIOBase | io.BufferedIOBase,
        *,
        chunk_bytes: int = BUFFER_BYTES,
        depth: int = 4,
        thread_exit: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self._inner = inner
        self._chunk_bytes = chunk_bytes
        self._depth = depth
        self._thread_exit = thread_exit
        self._pos = inner.tell()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._free: queue.Queue[bytearray] = queue.Queue()
        self._ready: queue.Queue[tuple[bytearray, int] | BaseException] = queue.Queue()
        self._serving: bytearray | None = None  # the chunk being handed out, its bytes [_start, _end)
        self._start = self._end = 0
        self._eof = False

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence != io.SEEK_SET:
            raise io.UnsupportedOperation("read-ahead seeks to absolute positions only")
        self._halt()
        self._inner.seek(offset)
        self._pos = offset
        return offset

    def readinto(self, buffer: memoryview | bytearray) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        if not view:
            return 0
        if self._start == self._end:
            if self._eof:
                return 0
            if self._thread is None:
                self._launch()
            if self._serving is not None:
                self._free.put(self._serving)
                self._serving = None
            item = self._ready.get()
            if isinstance(item, BaseException):
                self._halt()
                raise item
            chunk, n = item
            if n == 0:
                self._eof = True
                self._free.put(chunk)
                return 0
            self._serving, self._start, self._end = chunk, 0, n
        assert self._serving is not None
        k = min(len(view), self._end - self._start)
        view[:k] = memoryview(self._serving)[self._start : self._start + k]
        self._start += k
        self._pos += k
        return k

    def close(self) -> None:
        if not self.closed:
            try:
                self._halt()
            finally:
                self._inner.close()
        super().close()

    def _launch(self) -> None:
        self._stop.clear()
        self._free = queue.Queue()
        self._ready = queue.Queue()
        for _ in range(self._depth):
            self._free.put(bytearray(self._chunk_bytes))
        self._thread = threading.Thread(target=self._read_ahead, name="read-ahead", daemon=True)
        self._thread.start()

    def _halt(self) -> None:
        """Stop the reading thread (the next read starts it again from the inner file's position)."""
        if self._thread is not None:
            self._stop.set()
            self._free.put(bytearray(0))  # wakes it if it waits for a free buffer
            self._thread.join()
            self._thread = None
        self._serving = None
        self._start = self._end = 0
        self._eof = False

    def _read_ahead(self) -> None:
        try:
            while not self._stop.is_set():
                chunk = self._free.get()
                if self._stop.is_set():
                    return
                # One read per chunk, handed over at once: a growing upload's reader returns what is committed so
                # far, and the parser should have it now rather than when a whole chunk has arrived.
                with memoryview(chunk) as view:
                    n = self._inner.readinto(view) or 0
                self._ready.put((chunk, n))
                if not n:
                    return  # the end of the file
        except BaseException as exc:  # handed to the reader, who meets it where it would have
            self._ready.put(exc)
        finally:
            if self._thread_exit is not None:
                self._thread_exit()
