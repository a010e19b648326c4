"""The Celery application: tasks take ids, are idempotent and are routed to named queues."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")

app = Celery("tankodrom")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
