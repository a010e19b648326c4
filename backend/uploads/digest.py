"""The content digest of an upload: how the same file sent again into the same test is recognised.

xxh3-128 rather than SHA-256: the digest is taken of every byte of every upload, on the path of the upload itself,
and SHA-256 costs it an order of magnitude more CPU (bench/phout_upload/README.md). It only has to tell one file
from another among a test's own uploads: 128 bits leave accidental collisions out of reach, and a forged one could
only make its sender's own upload into their own test be taken for one already there. Values name their algorithm
("xxh3-128:<hex>"); digests taken before (SHA-256) were renamed "sha256:<hex>" by the migration and never match a
new one, so such a file sent again is ingested again and replaces the old upload (still not counted twice).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import xxhash

from backend.fastpaths.direct_io import DirectReader

ALGORITHM = "xxh3-128"
READ_BYTES = 4 * 1024 * 1024


class Hasher(Protocol):
    def update(self, data: bytes | bytearray | memoryview, /) -> None: ...
    def hexdigest(self) -> str: ...


def new_hasher() -> Hasher:
    return xxhash.xxh3_128()


def digest_of(hasher: Hasher) -> str:
    return f"{ALGORITHM}:{hasher.hexdigest()}"


def digest_of_file(path: Path) -> str:
    hasher = new_hasher()
    with DirectReader(path) as f:
        buffer = bytearray(READ_BYTES)
        view = memoryview(buffer)
        while n := f.readinto(view):
            hasher.update(view[:n])
    return digest_of(hasher)


def digest_of_bytes(data: bytes) -> str:
    hasher = new_hasher()
    hasher.update(data)
    return digest_of(hasher)
