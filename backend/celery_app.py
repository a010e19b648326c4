"""The Celery application: tasks take ids, are idempotent and are routed to named queues."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")

app = Celery("tankodrom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _warm_up(**_kwargs: Any) -> None:
    """In the worker's main process, before it forks its pool: each child then starts with it."""
    from backend.warm import import_slow_modules

    import_slow_modules()
