"""A pipeline stage's step as a Celery task (backend/core/pipeline.py has the stages and who runs after which).

Apart from pipeline.py because it needs the ClickHouse client (a task retries while ClickHouse is away), which
loads clickhouse-driver, numpy and pandas: pipeline.py is imported by the apps' ready(), in every process, and must
not load them (backend/core/tests/test_worker_start.py); only the task modules import this one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from celery import Task, shared_task
from django.apps import apps

from backend.clickhouse.client import ClickHouseUnavailable
from backend.core.pipeline import after

if TYPE_CHECKING:
    from backend.loadtests.models import Test


def step_task(name: str, done: str) -> Callable[[Callable[[Test], dict[str, Any]]], Task[[int], dict[str, Any]]]:
    """A stage's step as the Celery task `name` taking a test id, from a function of the test: retried while
    ClickHouse is unreachable, skipped for a test deleted since it was queued; once the function returns, stage
    `done` is done for the test (`after`) and its answer is the task's."""

    def decorate(work: Callable[[Test], dict[str, Any]]) -> Task[[int], dict[str, Any]]:
        log = logging.getLogger(work.__module__)

        def run(test_id: int) -> dict[str, Any]:
            # Looked up by label: the base's models sit beside core, which imports none of them.
            test = apps.get_model("loadtests", "Test").objects.filter(pk=test_id).first()
            if test is None:
                log.info("%s: test %s is gone", work.__name__, test_id)
                return {"test": test_id, "skipped": "deleted"}
            answer = work(test)
            after(done, test_id)
            return answer

        run.__module__, run.__name__, run.__qualname__, run.__doc__ = (
            work.__module__,
            work.__name__,
            work.__qualname__,
            work.__doc__,
        )
        return shared_task(name=name, autoretry_for=(ClickHouseUnavailable,), retry_backoff=True, max_retries=10)(run)

    return decorate
