"""Imports a long-running process makes at start rather than in its first request or task.

pyarrow imports pandas the first time it turns a column into numpy (`Array.to_numpy`), which the phout parser does
for every block, the upload view's check of a body's first 64 KB included: a noticeable pause (figure in
bench/tank_push/README.md) paid inside the first phout upload after a restart, while the body waits unread, and
again by the Celery worker's first ingestion. gunicorn's post_worker_init and Celery's worker_init call this instead.
"""

from __future__ import annotations


def import_slow_modules() -> None:
    import pandas  # noqa: F401  (what pyarrow would import lazily)
