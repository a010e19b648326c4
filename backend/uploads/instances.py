"""The active instances an upload's file states (threads, VUs, users), stored per second as the tank's are.

A parser that reads them (JMeter, k6, Gatling: analytics/formats/instances.py) keeps them beside its samples;
once the upload's per-second rows are all written, each overall row gets its second's count in `threads`, the
column the tank's stream fills, so the report's instances charts and the diagnosis read them alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from analytics.formats.instances import ActiveInstances
from backend.clickhouse.queries import instances as q_instances


def store(test_id: int, upload_id: int, parser: Any) -> None:
    """Set the upload's per-second instances from what its parser gathered (nothing if it gathered none)."""
    active = getattr(parser, "instances", None)
    if not isinstance(active, ActiveInstances) or not active:
        return
    seconds = np.array(q_instances.overall_seconds(test_id, upload_id), dtype=np.int64)
    counts = active.at(seconds)
    known = counts > 0
    if known.any():
        q_instances.set_overall_threads(test_id, upload_id, seconds[known].tolist(), counts[known].tolist())
