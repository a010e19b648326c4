"""The apps' JSON API routes from a table: a prefix under /api/v1/ written once, then a row a route."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path
from django.views import View


def api_routes(prefix: str, *rows: tuple[str, type[View], str]) -> list[URLPattern | URLResolver]:
    """The routes `api/v1/<prefix><rest>`, one row each: (rest of the path, view class, the route's name)."""
    # URLResolver too: the list a urls module assigns to `urlpatterns` (of that type) may be this one itself.
    return [path(f"api/v1/{prefix}{rest}", view.as_view(), name=name) for rest, view, name in rows]
