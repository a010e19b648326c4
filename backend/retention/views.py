"""Retention API: the site's policy and the jobs (staff start one now; everyone signed in sees their progress).
Thin: check access, call one function, answer JSON."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import NotAuthenticated, NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.loadtests import quota, storage
from backend.loadtests.permissions import test_or_404
from backend.projects.access import readable_projects, require
from backend.projects.models import Project, Role
from backend.retention import project_settings, tasks
from backend.retention import serializers as s
from backend.retention.models import RetentionJob
from backend.retention.policy import site_policy

ERRORS = {401: s.ErrorSerializer, 403: s.ErrorSerializer, 404: s.ErrorSerializer, 409: s.ErrorSerializer}
LISTED = 20


def _signed_in(request: Request) -> None:
    if not getattr(request.user, "is_authenticated", False):
        raise NotAuthenticated("log in or send an API token (Authorization: Token ...)")


class JobsView(APIView):
    @extend_schema(responses={200: s.RetentionJobsSerializer, **ERRORS}, summary="The retention policy and recent jobs")
    def get(self, request: Request) -> Response:
        _signed_in(request)
        jobs = RetentionJob.objects.select_related("started_by")[:LISTED]
        return Response({"policy": site_policy().as_dict(), "jobs": s.RetentionJobSerializer(jobs, many=True).data})

    @extend_schema(
        request=None, responses={202: s.RetentionJobSerializer, **ERRORS}, summary="Run the retention job now"
    )
    def post(self, request: Request) -> Response:
        _signed_in(request)
        if not request.user.is_staff:
            raise PermissionDenied("only staff may start the retention job")
        job = tasks.create_job("manual", int(request.user.pk))
        if job is None:
            active = RetentionJob.objects.filter(active=True).first()
            return Response({"error": f"retention job {active.pk if active else '?'} is running already"}, status=409)
        job_id = int(job.pk)
        transaction.on_commit(lambda: tasks.run_job.delay(job_id))
        return Response(s.RetentionJobSerializer(job).data, status=202)


class JobView(APIView):
    @extend_schema(
        operation_id="v1_retention_job_retrieve",
        responses={200: s.RetentionJobSerializer, **ERRORS},
        summary="One retention job and its progress",
    )
    def get(self, request: Request, job_id: int) -> Response:
        _signed_in(request)
        job = RetentionJob.objects.select_related("started_by").filter(pk=job_id).first()
        if job is None:
            raise NotFound(f"retention job {job_id} not found")
        return Response(s.RetentionJobSerializer(job).data)


class StorageView(APIView):
    @extend_schema(
        responses={200: s.StorageSerializer, **ERRORS},
        summary="Bytes on disk: tables, the largest tests, the rate, the projection and the quota (staff)",
    )
    def get(self, request: Request) -> Response:
        _signed_in(request)
        if not request.user.is_staff:
            raise PermissionDenied("only staff may see the whole site's storage")
        answer = storage.overview()
        site_quota = quota.quota_for(None)
        limit = site_quota.limit_bytes
        answer["quota"] = {
            "name": site_quota.name,
            "limit_bytes": limit,
            "used_share": answer["total_bytes"] / limit if limit else None,
        }
        answer["policy"] = site_policy().as_dict()
        return Response(answer)


class TestStorageView(APIView):
    @extend_schema(responses={200: s.TestStorageSerializer, **ERRORS}, summary="A test's rows and bytes on disk")
    def get(self, request: Request, test_id: int) -> Response:
        return Response(storage.usage_of_test(test_or_404(request, test_id)))


class ProjectRetentionView(APIView):
    """A project's own retention days and quota (null: the site's default); its admins and site admins only."""

    def _project(self, request: Request, slug: str) -> Project:
        _signed_in(request)
        project = readable_projects(request.user).filter(slug=slug).first()
        if project is None:
            raise NotFound(f"project {slug!r} not found")
        require(request.user, project, Role.ADMIN)
        return project

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, **ERRORS}, summary="A project's retention and quota overrides (admins)"
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(project_settings.describe(self._project(request, slug)))

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={200: OpenApiTypes.OBJECT, 400: s.ErrorSerializer, **ERRORS},
        summary="Set a project's retention days and quota (null: the site's default; 0: keep / no quota); audited",
    )
    def patch(self, request: Request, slug: str) -> Response:
        project = self._project(request, slug)
        try:
            updated = project_settings.update(project, request.data, request.user)
        except project_settings.SettingsError as exc:
            return Response({"error": str(exc)}, status=400)
        return Response(project_settings.describe(updated))
