"""URLs of the regressions app (included from backend/urls.py): the component routes. A component's notification
subscriptions and deliveries are the notify app's (backend/notify/urls.py), which sits above this one."""

from django.urls import URLPattern, URLResolver

from backend.core.routes import api_routes
from backend.regressions import views

urlpatterns: list[URLPattern | URLResolver] = api_routes(
    "components/<str:name>/",
    ("dashboard", views.DashboardView, "component-dashboard"),
    ("kpis", views.KpisView, "component-kpis"),
    ("baseline", views.BaselineView, "component-baseline"),
    ("trend", views.TrendView, "component-trend"),
    ("check/<int:test_id>", views.CheckView, "component-check"),
)
