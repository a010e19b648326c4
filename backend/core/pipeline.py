"""What happens to a test after its data lands: post-process, then diagnose, then notify.

Each stage's app registers its step here (in its AppConfig.ready): the dotted path of the Celery task that runs
after a named stage, imported when the stage is done (so that starting Django imports no task module and what they
load). The app upstream says only that its stage is done (`after(LANDED, test_id)`), never which task comes next.
So the ingest apps sit below the report, the report below the diagnosis, the diagnosis below the notifications,
and none of them imports another's tasks:

    tank close (tankapi.finish_test, after its flush) ┐
    upload activated (uploads.activation)             ┴ LANDED → reports.postprocess_test
    POSTPROCESSED → diagnosis.diagnose_test
    DIAGNOSED → notify.notify_test

Steps are tasks that take a test id and are safe to run twice (a retried stage queues its next step again). A
stage with no step registered (its app not installed) ends the chain there.
"""

from __future__ import annotations

from typing import Protocol, cast

from django.db import transaction
from django.utils.module_loading import import_string

LANDED = "landed"  # a test's data is all in ClickHouse: a tank test closed and flushed, an upload activated
POSTPROCESSED = "postprocessed"  # its default views are cached and it is ready
DIAGNOSED = "diagnosed"  # its analysis is stored (or marked failed)
STAGES = (LANDED, POSTPROCESSED, DIAGNOSED)


class Step(Protocol):
    """A Celery task taking a test id (what `@shared_task` gives)."""

    def delay(self, test_id: int) -> object: ...


_steps: dict[str, list[str]] = {stage: [] for stage in STAGES}


def register(stage: str, task_path: str) -> None:
    """Run the task at `task_path` (`backend.<app>.tasks.<name>`) after `stage`; registering it again (ready() run
    twice) changes nothing."""
    if stage not in _steps:
        raise ValueError(f"unknown pipeline stage {stage!r}: one of {', '.join(STAGES)}")
    if task_path not in _steps[stage]:
        _steps[stage].append(task_path)


def steps_after(stage: str) -> list[str]:
    """The tasks queued after `stage`, in registration order."""
    return list(_steps[stage])


def after(stage: str, test_id: int) -> None:
    """`stage` is done for the test: queue each step registered after it."""
    for task_path in _steps[stage]:
        cast(Step, import_string(task_path)).delay(test_id)


def after_commit(stage: str, test_id: int) -> None:
    """As `after`, once the current transaction commits (the step must see what the transaction wrote)."""
    transaction.on_commit(lambda: after(stage, test_id))
