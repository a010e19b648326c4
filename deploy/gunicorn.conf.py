"""gunicorn settings for the local stack and the production image (variables in deploy/env.example)."""

import gc
import multiprocessing
from typing import Any

from backend import env

# The ASGI entry (backend/asgi.py) under uvicorn's worker: HTTP parsed in C on one event loop per process, the
# tank's pushes answered on it, Django's requests in GUNICORN_THREADS threads per process (read by backend/asgi.py),
# so that long phout uploads never block the pushes. gthread's worker costs several times the CPU per request
# (bench/tank_push/README.md).
wsgi_app = "backend.asgi:application"
workers = env.get_int("GUNICORN_WORKERS", max(2, multiprocessing.cpu_count()))
worker_class = "uvicorn_worker.UvicornWorker"
timeout = env.get_int("GUNICORN_TIMEOUT", 3600)  # multi-GB uploads stream for a long time
graceful_timeout = 20
keepalive = 30  # the tank keeps one connection open for the whole test
accesslog = "-" if env.get_bool("GUNICORN_ACCESS_LOG", False) else None
errorlog = "-"


def post_worker_init(worker: Any) -> None:
    """Move what the worker loaded at start (Django, the URLconf, the libraries) out of the garbage collector's
    reach. Without it each full collection walks those few hundred thousand long-lived objects, a pause that lands
    on the pushes being served at that moment (bench/tank_push/README.md has the figure)."""
    try:
        from django.urls import get_resolver

        get_resolver().url_patterns  # noqa: B018  (imports every app's views now rather than at the first request)
    except Exception as exc:  # a broken view module must not stop the worker: Django reports it per request
        worker.log.warning("URLconf not loaded before gc.freeze(): %s", exc)
    from backend.warm import import_slow_modules

    import_slow_modules()  # pandas, which pyarrow would import inside the first phout upload
    gc.collect()
    gc.freeze()
