"""gunicorn settings for the local stack and the production image."""

import multiprocessing
import os

# Threads, not only processes: tank pushes are short I/O-bound requests (Redis append), and phout uploads are
# long streaming requests that must not block the pushes.
workers = int(os.environ.get("GUNICORN_WORKERS", max(2, multiprocessing.cpu_count())))
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
worker_class = "gthread"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "3600"))  # multi-GB uploads stream for a long time
graceful_timeout = 20
keepalive = 30  # the tank keeps one connection open for the whole test
accesslog = "-" if os.environ.get("GUNICORN_ACCESS_LOG", "0") == "1" else None
errorlog = "-"
