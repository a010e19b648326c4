"""The pipeline after a test's data lands: each app registers its step, and a stage queues the next app's task."""

from __future__ import annotations

import pytest

from backend.core import pipeline


class _Step:
    def __init__(self, name: str) -> None:
        self.name = name
        self.queued: list[int] = []

    def delay(self, test_id: int) -> None:
        self.queued.append(test_id)


def test_the_apps_register_close_postprocess_diagnose_notify() -> None:
    assert pipeline.steps_after(pipeline.LANDED) == ["backend.reports.tasks.postprocess_test"]
    assert pipeline.steps_after(pipeline.POSTPROCESSED) == ["backend.diagnosis.tasks.diagnose_test"]
    assert pipeline.steps_after(pipeline.DIAGNOSED) == ["backend.notify.tasks.notify_test"]


def test_a_stage_queues_its_steps_once_however_often_they_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "_steps", {stage: {} for stage in pipeline.STAGES})
    step = _Step("app.tasks.step")
    pipeline.register(pipeline.LANDED, step)
    pipeline.register(pipeline.LANDED, step)  # ready() run twice
    pipeline.after(pipeline.LANDED, 7)
    pipeline.after(pipeline.DIAGNOSED, 8)  # nothing registered: the chain ends there
    assert step.queued == [7]


def test_an_unknown_stage_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown pipeline stage"):
        pipeline.register("closed", _Step("app.tasks.step"))
