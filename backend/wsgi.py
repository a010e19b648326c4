"""WSGI entry point for gunicorn: the tank's push endpoints on a fast path in front of Django (see
backend/tankapi/fastpath.py for why and what it keeps of Django's request cycle), everything else to Django."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
django_application = get_wsgi_application()

# Imported after get_wsgi_application(), which sets Django up: the fast path imports models.
from backend.tankapi.fastpath import TankPushApp  # noqa: E402

application = TankPushApp(django_application)
