"""How the process's memory is managed while an upload is ingested (backend/fastpaths/memory.py)."""

from __future__ import annotations

import gc

import pytest

from backend.fastpaths import memory
from backend.fastpaths.memory import no_cycle_collection


def test_cycle_collection_is_off_while_ingesting_and_as_it_was_after() -> None:
    assert gc.isenabled()
    with no_cycle_collection():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), no_cycle_collection():
        raise RuntimeError("a failed ingestion")
    assert gc.isenabled()
    gc.disable()
    try:
        with no_cycle_collection():
            pass
        assert not gc.isenabled()  # someone else's choice is kept
    finally:
        gc.enable()


def test_malloc_tuning_is_undone_when_the_last_ingestion_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, int, int]] = []

    class Libc:
        def mallopt(self, option: int, value: int) -> int:
            calls.append(("mallopt", option, value))
            return 1

        def malloc_trim(self, pad: int) -> int:
            calls.append(("trim", pad, 0))
            return 1

    monkeypatch.setattr(memory, "_libc", lambda: Libc())
    with memory.freed_memory_reused():
        with memory.freed_memory_reused():  # another ingestion of the same process
            pass
        assert ("trim", 0, 0) not in calls  # the first one still runs
        assert ("mallopt", memory._M_TRIM_THRESHOLD, memory.INGEST_TRIM_THRESHOLD_BYTES) in calls
    assert calls[-2:] == [("mallopt", memory._M_TRIM_THRESHOLD, memory.TRIM_THRESHOLD_BYTES), ("trim", 0, 0)]
    with pytest.raises(RuntimeError), memory.freed_memory_reused():
        raise RuntimeError("a failed ingestion")
    assert calls[-1] == ("trim", 0, 0) and memory._ingesting == 0
