"""How the process's memory is managed while an upload is ingested: scoped, and put back when it ends.

Every stage of an ingestion makes and drops numpy columns of a few MB per batch, and a few Python objects per piece.
Two process-wide defaults cost it much CPU (bench/phout_upload/README.md has the profiles): glibc's malloc serving
blocks that size with a fresh mmap (or giving the top of its heap back as soon as they are freed), so each new column
is first-touched page by page again; and the cycle collector walking every object made since the worker started.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import functools
import gc
import threading
from collections.abc import Iterator

# glibc's malloc(3) options (mallopt), as numbered in <malloc.h>.
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# Blocks below this come from the heap: glibc's own ceiling for its dynamic mmap threshold on 64-bit
# (DEFAULT_MMAP_THRESHOLD_MAX), the value it climbs to by itself once a block that size has been freed.
MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024
# While an upload is ingested, up to this much freed heap is kept for the next batches' columns.
INGEST_TRIM_THRESHOLD_BYTES = 512 * 1024 * 1024
# Afterwards: twice the mmap threshold, what glibc's dynamic rule sets along with it.
TRIM_THRESHOLD_BYTES = 2 * MMAP_THRESHOLD_BYTES

_lock = threading.Lock()
_ingesting = 0  # ingestions in this process now (the tuning is undone when the last one ends)


@contextlib.contextmanager
def freed_memory_reused() -> Iterator[None]:
    """Let malloc keep freed blocks for reuse while an upload is ingested; give them back afterwards.

    Within: blocks below MMAP_THRESHOLD_BYTES come from the heap, and up to INGEST_TRIM_THRESHOLD_BYTES of freed heap
    is kept. When the last ingestion of the process ends, `malloc_trim` returns what is left over and the trim
    threshold goes back to TRIM_THRESHOLD_BYTES. glibc cannot tell the values it had, nor take up its dynamic
    thresholds again once one is set: it is left where its dynamic rule leads after the first 32 MB block is freed,
    which every ingestion frees. Elsewhere than glibc (no `mallopt`), nothing changes.
    """
    global _ingesting
    libc = _libc()
    if libc is None:
        yield
        return
    with _lock:
        _ingesting += 1
        libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
        libc.mallopt(_M_TRIM_THRESHOLD, INGEST_TRIM_THRESHOLD_BYTES)
    try:
        yield
    finally:
        with _lock:
            _ingesting -= 1
            if _ingesting == 0:
                libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
                libc.malloc_trim(0)


@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """No garbage collection (of reference cycles) while an upload is ingested; one collection afterwards.

    The stages make a few Python objects per piece and no cycles, but the collector would still run every 700
    allocations and, now and then, walk everything made since the worker started (after gc.freeze(),
    backend/celery_app.py). Reference counting frees what the stages drop as before.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
            gc.collect()


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
