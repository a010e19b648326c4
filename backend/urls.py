"""URL map. The tank protocol lives at the host root (tank-protocol.md §10); the JSON API under /api/v1/.

Order matters: the SPA's catch-all (`backend.web`, which serves `/<id>`, `/compare/...` and the other pages)
comes last.
"""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from backend.core import views as core_views

urlpatterns = [
    path("healthz", core_views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # drf-spectacular's pages with the app's navigation (backend/web/templates/web/).
    path(
        "api/docs/", SpectacularSwaggerView.as_view(url_name="schema", template_name="web/swagger_ui.html"), name="docs"
    ),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema", template_name="web/redoc.html"), name="redoc"),
    path("", include("backend.tankapi.urls")),
    path("", include("backend.uploads.urls")),
    path("", include("backend.reports.urls")),
    path("", include("backend.compare.urls")),
    path("", include("backend.diagnosis.urls")),
    path("", include("backend.accounts.urls")),
    path("", include("backend.sharing.urls")),
    path("", include("backend.web.urls")),
]
