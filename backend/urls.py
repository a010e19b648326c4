"""URL map. The tank protocol lives at the host root (tank-protocol.md §10); the JSON API under /api/v1/.

Order matters: the SPA's catch-all (`backend.web`, which serves `/<id>`, `/compare/...` and the other pages)
comes last.
"""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from backend.core import views as core_views

# The apps whose routes sit at the root (their own prefixes inside); the SPA's catch-all (`web`) last.
APPS_WITH_ROUTES = (
    "tankapi",
    "uploads",
    "reports",
    "live",
    "compare",
    "diagnosis",
    "regressions",
    "notify",
    "accounts",
    "projects",
    "sharing",
    "retention",
    "web",
)

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
    *(path("", include(f"backend.{app}.urls")) for app in APPS_WITH_ROUTES),
]

# JSON answers under /api/ for what no view handles (backend/core/errors.py).
handler404 = "backend.core.errors.not_found"
handler500 = "backend.core.errors.server_error"
