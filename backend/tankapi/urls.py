"""URLs of the tankapi app (included from backend/urls.py)."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
