"""gunicorn settings for the local stack and the production image (variables in deploy/env.example)."""

import multiprocessing

from backend import env

# Threads, not only processes: tank pushes are short I/O-bound requests (Redis append), and phout uploads are
# long streaming requests that must not block the pushes.
workers = env.get_int("GUNICORN_WORKERS", max(2, multiprocessing.cpu_count()))
threads = env.get_int("GUNICORN_THREADS", 8)
worker_class = "gthread"
timeout = env.get_int("GUNICORN_TIMEOUT", 3600)  # multi-GB uploads stream for a long time
graceful_timeout = 20
keepalive = 30  # the tank keeps one connection open for the whole test
accesslog = "-" if env.get_bool("GUNICORN_ACCESS_LOG", False) else None
errorlog = "-"
