"""Web and workers on several hosts: a phout upload is ingested by a worker of the host that received it.

An upload's body is a file on the receiving host's disk (`VAR_DIR/uploads`, written and read with direct I/O,
parsed while it arrives by `follow`). Rather than move it (a shared file system, or object storage and a second
copy of every byte), its tasks are sent by `route` (a Celery router) to a queue only that host's workers consume:
`uploads.<host>`, where <host> is `settings.HOST_NAME` (env `TANKODROM_HOST_NAME`, default the machine's name).
Every worker that consumes `uploads` also consumes its own host's queue (backend/celery_app.py), so one Celery
deployment serves any number of hosts, and a retried task keeps its host. On one host nothing changes but the
queue's name. docs/scaling.md says why not object storage.

What it asks of a deployment: each web host runs at least one uploads worker with the same TANKODROM_HOST_NAME
(docker-compose.cluster.yml pairs them), and the pieces of a resumable upload reach the host that received its
first piece (a proxy that hashes on the URI `/api/v1/tests/<id>/phout` keeps them together).
"""

from __future__ import annotations

import socket
from typing import Any

from django.conf import settings

PREFIX = "uploads."
# The tasks that read an upload's file.
UPLOAD_TASKS = frozenset({"backend.uploads.tasks.ingest_upload", "backend.uploads.tasks.follow_upload"})


def host_name() -> str:
    return str(settings.HOST_NAME or socket.gethostname())


def upload_queue(host: str | None = None) -> str:
    """The queue of the ingestion tasks of uploads received on `host` (default: this one)."""
    return f"{PREFIX}{host or host_name()}"


def route(name: str, args: Any, kwargs: Any, options: Any, task: Any = None, **_kw: Any) -> dict[str, str] | None:
    """Celery router, ahead of the routes by name (backend/celery_app.py): uploads to this host's queue.

    It runs where the task is sent: in the web process that received the upload, or in that host's worker when
    the task is retried, so both name the same host.
    """
    return {"queue": upload_queue()} if name in UPLOAD_TASKS else None


def consume_own_queue(worker: Any) -> None:
    """Make a worker that consumes `uploads` consume this host's upload queue too (Celery's celeryd_after_setup)."""
    queues = worker.app.amqp.queues
    if "uploads" in queues.consume_from:
        queues.select_add(upload_queue())
