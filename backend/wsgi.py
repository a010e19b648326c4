"""WSGI entry point (WSGI_APPLICATION): Django alone, for runserver and WSGI servers. Production serves
backend/asgi.py, whose door answers the tank's pushes in front of Django (backend/fastpaths/asgi_door.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
application = get_wsgi_application()
