"""URLs of the projects app (included from backend/urls.py)."""

from django.urls import URLPattern, URLResolver

from backend.core.routes import api_routes
from backend.projects import api

urlpatterns: list[URLPattern | URLResolver] = api_routes(
    "projects/",
    ("", api.ProjectsView, "projects"),
    ("<str:slug>/members/", api.MembersView, "project-members"),
    ("<str:slug>/members/<str:username>/", api.MemberDetailView, "project-member"),
    ("<str:slug>/membership/", api.MembershipView, "project-membership"),
    ("<str:slug>/audit/", api.AuditView, "project-audit"),
)
