"""URL map. The tank protocol lives at the host root (tank-protocol.md §10); the JSON API under /api/v1/.

Order matters: the SPA's catch-all (`backend.web`, which serves `/<id>`, `/compare/...` and the other pages)
comes last.
"""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from backend.core import views as core_views

urlpatterns = [
    path("healthz", core_views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # drf-spectacular's pages with the app's navigation (backend/web/templates/web/). The split view serves its
    # script from a URL, not inline: the Content-Security-Policy allows no inline script.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="web/swagger_ui.html"),
        name="docs",
    ),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema", template_name="web/redoc.html"), name="redoc"),
    path("", include("backend.tankapi.urls")),
    path("", include("backend.uploads.urls")),
    path("", include("backend.reports.urls")),
    path("", include("backend.live.urls")),
    path("", include("backend.compare.urls")),
    path("", include("backend.diagnosis.urls")),
    path("", include("backend.regressions.urls")),
    path("", include("backend.notify.urls")),
    path("", include("backend.accounts.urls")),
    path("", include("backend.projects.urls")),
    path("", include("backend.sharing.urls")),
    path("", include("backend.retention.urls")),
    path("", include("backend.web.urls")),
]

# JSON answers under /api/ for what no view handles (backend/core/errors.py).
handler404 = "backend.core.errors.not_found"
handler500 = "backend.core.errors.server_error"
