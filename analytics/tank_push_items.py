"""Per-second rows made into the `push_data.json` items a tank sends (tank-protocol.md §4.4): analytics.tank_push
reads them, this writes them.

A generator followed live (tankodrom_cli/follow.py, the Locust listener) streams its seconds exactly as
yandex-tank's uploader does, so the server takes them through the one door and the online pages read them as a
tank's: per second, one item per case sorted by case, then the overall item (`overall: 1`, case ''). The trail's
numbers are the row's fields under their tank keys (analytics.schema.seconds.TRAIL_FIELDS), the histogram is
`time_intervals` on the tank's grid (`to` = the bin's upper edge in ms), and `threads` the generator's active
instances of that second.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from analytics.aggregate import SecondTable
from analytics.histogram import BIN_EDGES_US
from analytics.schema.seconds import TRAIL_FIELDS
from analytics.tank_push import OVERALL_CASE

PushItem = dict[str, Any]
# The tank's names of the row's code-count pairs (analytics.schema.seconds.CODE_COUNTS), and of an entry's code.
_PUSHED_AS = {
    "net_codes": ("net_codes", "code"),
    "http_codes": ("http_codes", "code"),
    "hist_bins": ("time_intervals", "to"),
}
_EDGE_MS = (BIN_EDGES_US / 1000).tolist()


def push_bodies(table: SecondTable, threads: npt.NDArray[np.integer[Any]] | None = None) -> dict[int, list[PushItem]]:
    """The push_data body of each second of `table` (rows in second order, each second's overall row last, as
    analytics.aggregate makes them); `threads`: the active instances per row (0 where None)."""
    scalars = table.scalars()
    if threads is not None:
        scalars["threads"] = threads
    columns = {field.trail: np.asarray(scalars[field.name]).tolist() for field in TRAIL_FIELDS}
    entries: dict[str, list[list[dict[str, Any]]]] = {}
    for (codes_name, _counts), sparse in table.code_counts().items():
        key, code_key = _PUSHED_AS[codes_name]
        per_row: list[list[dict[str, Any]]] = [[] for _ in range(table.size)]
        for row, code, count in zip(sparse.group.tolist(), sparse.code.tolist(), sparse.count.tolist(), strict=True):
            if code_key == "to":
                per_row[row].append({"from": 0, "to": _EDGE_MS[code], "count": count})
            else:
                per_row[row].append({"code": code, "count": count})
        entries[key] = per_row
    bodies: dict[int, list[PushItem]] = {}
    for row, (ts, case) in enumerate(zip(table.ts.tolist(), table.case, strict=True)):
        trail: dict[str, Any] = {"time": str(ts), "disper": 0, "self_load": 0}
        trail.update((key, values[row]) for key, values in columns.items())
        item: PushItem = {"overall": int(case == OVERALL_CASE), "case": case, "trail": trail}
        item.update((key, per_row[row]) for key, per_row in entries.items())
        bodies.setdefault(int(ts), []).append(item)
    return bodies
