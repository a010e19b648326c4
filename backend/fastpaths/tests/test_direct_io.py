"""The upload staging file's direct I/O (backend/fastpaths/direct_io.py): the same bytes as ordinary I/O would store
and read, whatever the piece sizes, offsets and file system (tmpfs has no O_DIRECT: the fallback is taken)."""

from __future__ import annotations

import io
import os
import random
import threading
from pathlib import Path
from typing import Any

import pytest

from backend.fastpaths import direct_io
from backend.fastpaths.direct_io import (
    ALIGN_BYTES,
    BUFFER_BYTES,
    DirectReader,
    DirectWriter,
    PositionedReader,
    ReadAhead,
)

SHM = Path("/dev/shm")


def _places(tmp_path: Path) -> list[Path]:
    places = [tmp_path]
    if SHM.is_dir() and os.access(SHM, os.W_OK):
        places.append(SHM)
    return places


@pytest.fixture(params=["disk", "tmpfs"])
def folder(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    places = _places(tmp_path)
    if request.param == "tmpfs" and len(places) < 2:
        pytest.skip("no writable /dev/shm")
    return places[0] if request.param == "disk" else places[1]


def _write_in_pieces(path: Path, data: bytes, offset: int, rng: random.Random, fill_share: float = 0.0) -> list[int]:
    """Write `data` at `offset` in random pieces, given to `write` or, `fill_share` of them, read in by `fill`;
    commit now and then; return the committed offsets."""
    writer = DirectWriter(path, offset)
    source = io.BytesIO(data)
    commits = []
    pos = 0
    while pos < len(data):
        size = rng.choice([1, 17, 4095, 4096, 65_537, 1 << 20, BUFFER_BYTES + 3])
        if rng.random() < fill_share:
            with writer.fill(source.readinto, size) as filled:  # as much as the buffer has room for
                assert 0 < len(filled) <= size and bytes(filled) == data[pos : pos + len(filled)]
        else:
            writer.write(source.read(size))
        pos = source.tell()
        if rng.random() < 0.3:
            committed = writer.commit()
            assert offset <= committed <= offset + pos  # never past what was given
            with path.open("rb") as check:  # and what it says is in the file, is
                check.seek(offset)
                assert check.read(committed - offset) == data[: committed - offset]
            commits.append(committed)
    writer.close()
    return commits


def test_pieces_of_any_size_land_as_written(folder: Path) -> None:
    rng = random.Random(7)
    data = rng.randbytes(3 * BUFFER_BYTES + 12_345)
    path = folder / f"direct-{os.getpid()}-a.bin"
    try:
        commits = _write_in_pieces(path, data, 0, rng)
        assert commits  # the random walk committed at least once
        assert path.read_bytes() == data
    finally:
        path.unlink(missing_ok=True)


@pytest.mark.parametrize("fill_share", [1.0, 0.5])
def test_pieces_read_in_by_fill_land_as_written(folder: Path, fill_share: float) -> None:
    rng = random.Random(17)
    data = rng.randbytes(3 * BUFFER_BYTES + 54_321)
    path = folder / f"direct-{os.getpid()}-fill.bin"
    try:
        _write_in_pieces(path, data, 0, rng, fill_share)
        _write_in_pieces(path, data[:99_999], len(data), rng, fill_share)  # resumed at an unaligned offset
        assert path.read_bytes() == data + data[:99_999]
    finally:
        path.unlink(missing_ok=True)


def test_fill_at_the_end_of_its_source_reads_nothing(tmp_path: Path) -> None:
    writer = DirectWriter(tmp_path / "empty.bin", 0)
    with writer.fill(io.BytesIO(b"").readinto, 4096) as filled:
        assert len(filled) == 0
    writer.close()
    assert (tmp_path / "empty.bin").read_bytes() == b""


def test_a_resumed_piece_at_an_unaligned_offset_continues_the_file(folder: Path) -> None:
    rng = random.Random(11)
    first, second = rng.randbytes(ALIGN_BYTES * 5 + 77), rng.randbytes(BUFFER_BYTES + 999)
    path = folder / f"direct-{os.getpid()}-b.bin"
    try:
        _write_in_pieces(path, first, 0, rng)
        _write_in_pieces(path, second, len(first), rng)  # starts mid-block: ordinary writes
        assert path.read_bytes() == first + second
    finally:
        path.unlink(missing_ok=True)


def test_a_dropped_writer_keeps_exactly_what_it_committed(tmp_path: Path) -> None:
    data = random.Random(3).randbytes(BUFFER_BYTES // 2 + 100)
    path = tmp_path / "dropped.bin"
    writer = DirectWriter(path, 0)
    writer.write(data)
    committed = writer.commit()
    writer.write(b"x" * 10)
    writer.close(drop=True)
    assert path.read_bytes()[:committed] == data[:committed]
    assert committed == len(data) - len(data) % ALIGN_BYTES or path.stat().st_size == len(data)


def test_reads_at_any_position_and_size(folder: Path) -> None:
    rng = random.Random(5)
    data = rng.randbytes(2 * BUFFER_BYTES + 4321)
    path = folder / f"direct-{os.getpid()}-c.bin"
    path.write_bytes(data)
    try:
        with DirectReader(path) as reader:
            for _ in range(200):
                pos = rng.randrange(len(data) + 10)
                size = rng.choice([1, 100, 4096, 70_000, BUFFER_BYTES, BUFFER_BYTES + 5000])
                reader.seek(pos)
                buffer = bytearray(size)
                n = reader.readinto(buffer)
                assert bytes(buffer[:n]) == data[pos : pos + n]
                assert (0 < n <= size) if pos < len(data) else n == 0  # short reads allowed, never empty mid-file
                assert reader.tell() == pos + n
            reader.seek(0)
            whole = bytearray()
            view = memoryview(bytearray(1 << 20))
            while n := reader.readinto(view):
                whole += view[:n]
            assert bytes(whole) == data
    finally:
        path.unlink(missing_ok=True)


def test_direct_io_is_used_where_the_file_system_has_it(tmp_path: Path) -> None:
    """Where a file opens with O_DIRECT, the staging file is written and read that way (the tests above cover the
    fallback on tmpfs)."""
    probe = tmp_path / "probe.bin"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | direct_io._O_DIRECT))
    except (OSError, TypeError):
        pytest.skip("this file system has no O_DIRECT")
    if not direct_io._O_DIRECT:
        pytest.skip("no O_DIRECT on this platform")
    writer = DirectWriter(probe, 0)
    try:
        assert writer._direct
    finally:
        writer.close()
    reader = DirectReader(probe)
    try:
        assert reader._direct
    finally:
        reader.close()


class _Source(PositionedReader):
    """Bytes handed out in uneven pieces, failing at `fail_at` when asked for bytes past it."""

    def __init__(self, data: bytes, fail_at: int | None = None) -> None:
        super().__init__()
        self.data, self._pos, self.fail_at = data, 0, fail_at
        self.threads: set[int] = set()

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self._pos = offset
        return offset

    def readinto(self, buffer: Any) -> int:
        self.threads.add(threading.get_ident())
        if self.fail_at is not None and self._pos >= self.fail_at:
            raise RuntimeError(f"broken at {self._pos}")
        end = min(len(self.data), self._pos + min(len(buffer), 10_007))
        if self.fail_at is not None:
            end = min(end, self.fail_at)
        n = end - self._pos
        buffer[:n] = self.data[self._pos : end]
        self._pos = end
        return n


def _read_all(reader: io.RawIOBase, rng: random.Random) -> bytes:
    out = bytearray()
    while True:
        buffer = bytearray(rng.choice([1, 3000, 65_536, 1 << 20]))
        n = reader.readinto(buffer)
        if not n:
            return bytes(out)
        out += buffer[:n]


def test_read_ahead_hands_out_the_bytes_in_order() -> None:
    rng = random.Random(9)
    data = rng.randbytes(300_000)
    source = _Source(data)
    exits: list[int] = []
    with ReadAhead(source, chunk_bytes=50_000, depth=2, thread_exit=lambda: exits.append(threading.get_ident())) as r:
        assert _read_all(r, rng) == data and r.tell() == len(data)
        assert threading.get_ident() not in source.threads  # the source was read on the other thread
        r.seek(1234)  # and again from anywhere
        assert _read_all(r, rng) == data[1234:]
    assert exits and threading.get_ident() not in exits


def test_read_ahead_raises_the_sources_error_where_the_reader_meets_it() -> None:
    data = random.Random(4).randbytes(200_000)
    with ReadAhead(_Source(data, fail_at=120_000), chunk_bytes=30_000, depth=3) as r:
        got = bytearray()
        with pytest.raises(RuntimeError, match="broken at 120000"):
            while True:
                buffer = bytearray(7_000)
                n = r.readinto(buffer)
                got += buffer[:n]
        assert bytes(got) == data[:120_000]  # every byte before the failure, none after


def test_read_ahead_over_a_direct_reader(tmp_path: Path) -> None:
    rng = random.Random(6)
    data = rng.randbytes(3 * BUFFER_BYTES + 555)
    path = tmp_path / "ahead.bin"
    path.write_bytes(data)
    with io.BufferedReader(ReadAhead(DirectReader(path)), 1 << 20) as f:
        assert f.read(2) == data[:2]
        f.seek(0)  # as storage.open_decoded does after sniffing gzip's magic
        assert f.read() == data


def test_a_failed_write_is_what_the_caller_sees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails while closing (a full disk, say) surfaces as itself, not as the buffer's clean-up."""
    writer = DirectWriter(tmp_path / "full.bin", 0)
    writer.write(b"x" * (ALIGN_BYTES + 10))  # a whole block and a tail, both written by close()

    def disk_full(*_args: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "pwrite", disk_full)
    with pytest.raises(OSError, match="No space left"):
        writer.close()
