"""The Celery application: tasks take ids, are idempotent and are routed to named queues."""

from __future__ import annotations

import gc
import os
from typing import Any

from celery import Celery
from celery.app.routes import MapRoute
from celery.signals import celeryd_after_setup, worker_init
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")


def route_by_name(name: str, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
    """Celery router: settings.CELERY_TASK_ROUTES, read when a task is sent. Importing this module (which any
    `import backend...` does) reads no setting, so a script may still set the environment the settings read."""
    route: dict[str, Any] | None = MapRoute(settings.CELERY_TASK_ROUTES)(name)
    return route


app = Celery("tankodrom")
app.config_from_object("django.conf:settings", namespace="CELERY")
# A phout upload's tasks go to the receiving host's queue (backend/core/host_queues.py); then the routes by name.
app.conf.task_routes = ("backend.core.host_queues.route", route_by_name)
app.autodiscover_tasks()


@worker_init.connect
def _warm_up(**_kwargs: Any) -> None:
    """In the worker's main process, before it forks its pool: each child then starts with it.

    Then what is loaded (Django, numpy, pyarrow, pandas: several hundred thousand long-lived objects) is moved out
    of the garbage collector's reach, as gunicorn's workers do (deploy/gunicorn.conf.py). Otherwise every full
    collection walks all of it, and a phout ingestion's threads, which allocate small objects all along, set off
    many (bench/phout_upload/README.md has the cost).
    """
    from backend.warm import import_slow_modules

    import_slow_modules()
    gc.collect()
    gc.freeze()


@celeryd_after_setup.connect
def _consume_host_queue(sender: str, instance: Any, **_kwargs: Any) -> None:
    """An uploads worker also takes the uploads its own host received (backend/core/host_queues.py)."""
    from backend.core.host_queues import consume_own_queue

    consume_own_queue(instance)
