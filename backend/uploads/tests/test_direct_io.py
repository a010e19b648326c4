"""The upload staging file's direct I/O (backend/uploads/direct_io.py): the same bytes as ordinary I/O would store
and read, whatever the piece sizes, offsets and file system (tmpfs has no O_DIRECT: the fallback is taken)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from backend.uploads import direct_io
from backend.uploads.direct_io import ALIGN_BYTES, BUFFER_BYTES, DirectReader, DirectWriter

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


def _write_in_pieces(path: Path, data: bytes, offset: int, rng: random.Random) -> list[int]:
    """Write `data` at `offset` in random pieces, committing now and then; return the committed offsets."""
    writer = DirectWriter(path, offset)
    commits = []
    pos = 0
    while pos < len(data):
        size = rng.choice([1, 17, 4095, 4096, 65_537, 1 << 20, BUFFER_BYTES + 3])
        writer.write(data[pos : pos + size])
        pos += min(size, len(data) - pos)
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
