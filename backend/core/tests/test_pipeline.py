"""The pipeline after a test's data lands: each app registers its step, and a stage queues the next app's task."""

from __future__ import annotations

import pytest

from backend.core import pipeline


class _Step:
    def __init__(self) -> None:
        self.queued: list[int] = []

    def delay(self, test_id: int) -> None:
        self.queued.append(test_id)


STEP = _Step()


def test_the_apps_register_close_postprocess_diagnose_notify() -> None:
    assert pipeline.steps_after(pipeline.LANDED) == ["backend.reports.tasks.postprocess_test"]
    assert pipeline.steps_after(pipeline.POSTPROCESSED) == ["backend.diagnosis.tasks.diagnose_test"]
    assert pipeline.steps_after(pipeline.DIAGNOSED) == ["backend.notify.tasks.notify_test"]


def test_a_stage_queues_its_steps_once_however_often_they_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "_steps", {stage: [] for stage in pipeline.STAGES})
    monkeypatch.setattr(STEP, "queued", [])
    pipeline.register(pipeline.LANDED, f"{__name__}.STEP")
    pipeline.register(pipeline.LANDED, f"{__name__}.STEP")  # ready() run twice
    pipeline.after(pipeline.LANDED, 7)
    pipeline.after(pipeline.DIAGNOSED, 8)  # nothing registered: the chain ends there
    assert STEP.queued == [7]


def test_an_unknown_stage_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown pipeline stage"):
        pipeline.register("closed", f"{__name__}.STEP")
