"""ASGI entry point for gunicorn (uvicorn's worker, deploy/gunicorn.conf.py): the tank's push endpoints on the
event loop, everything else to Django's WSGI application in a thread pool (backend/fastpaths/asgi_door.py).
backend/wsgi.py is Django alone, for runserver."""

import os

from django.core.wsgi import get_wsgi_application

from backend import env

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
django_application = get_wsgi_application()

# Imported after get_wsgi_application(), which sets Django up: the door imports models.
from backend.fastpaths.asgi_door import TankPushASGI  # noqa: E402

# Django's requests run in this many threads per process (GUNICORN_THREADS, as under the threaded worker): a long
# phout upload holds one for its whole transfer.
application = TankPushASGI(django_application, threads=env.get_int("GUNICORN_THREADS", 8))
