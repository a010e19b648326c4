"""URLs of the projects app (included from backend/urls.py)."""

from django.urls import URLPattern, URLResolver, path

from backend.projects import api

urlpatterns: list[URLPattern | URLResolver] = [
    path("api/v1/projects/", api.ProjectsView.as_view(), name="projects"),
    path("api/v1/projects/<str:slug>/members/", api.MembersView.as_view(), name="project-members"),
    path("api/v1/projects/<str:slug>/members/<str:username>/", api.MemberDetailView.as_view(), name="project-member"),
    path("api/v1/projects/<str:slug>/membership/", api.MembershipView.as_view(), name="project-membership"),
    path("api/v1/projects/<str:slug>/audit/", api.AuditView.as_view(), name="project-audit"),
]
