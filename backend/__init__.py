"""Tankodrom's Django project: settings, URLs, the Celery app and the apps that serve tests."""

from backend.celery_app import app as celery_app

__all__ = ["celery_app"]
