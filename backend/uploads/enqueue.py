"""What an upload's ingestion tells the rest: its data landed (backend/core/pipeline.py queues what follows)."""

from __future__ import annotations

from backend.core import pipeline


def postprocess_after_commit(test_id: int) -> None:
    """Tell the pipeline the test's data landed (post-processing, diagnosis, ...) once the transaction commits."""
    pipeline.after_commit(pipeline.LANDED, test_id)
