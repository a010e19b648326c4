"""URLs of the accounts app (included from backend/urls.py)."""

from django.urls import URLPattern, URLResolver

urlpatterns: list[URLPattern | URLResolver] = []
