"""Regressions API, the component routes: a component's dashboard, its KPIs and thresholds, its baseline, its
trend and the CI check (its notification subscriptions: backend/notify). Thin: validate, check access, call one
function, answer JSON (errors `{"error": ...}` through the project's exception handler)."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import APIException, NotAuthenticated, NotFound, PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analytics.regressions import KpiError, kpi_spec
from backend.core.fields import ErrorSerializer
from backend.diagnosis import service as diagnosis
from backend.diagnosis.serializers import TrendAnswerSerializer
from backend.loadtests.permissions import can_manage_component, test_or_404
from backend.projects.access import acting_token, refusal
from backend.projects.models import SLUG_PATTERN, Project, Role, default_project
from backend.projects.service import audit
from backend.regressions import baselines, kpis, service
from backend.regressions import serializers as s

MAX_COMPONENT = 256
ERRORS = {400: ErrorSerializer, 401: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer}


def component_name(name: str) -> str:
    """The component of the URL, refused when no test could carry it (PostgreSQL stores no NUL)."""
    if "\x00" in name or len(name) > MAX_COMPONENT or not name.strip():
        raise ValidationError(f"name: not a component name (1..{MAX_COMPONENT} characters, no NUL)")
    return name


def component_project(request: Request) -> Project:
    """The project of a component route: `?project=<slug>`, else the API token's project, else "default"."""
    slug = request.query_params.get("project")
    if slug:
        project = Project.objects.filter(slug=slug).first() if re.match(SLUG_PATTERN, slug) else None
        if project is None:
            raise NotFound(f"project: no project {slug[:64]!r}")
        return project
    token = acting_token(request.user)
    if token is not None and token.project_id is not None:
        return token.project  # type: ignore[no-any-return]
    return default_project()


def require_manager(request: Request, project: Project, component: str) -> None:
    """Baselines, KPIs and subscriptions of a component: its project's maintainers."""
    if not getattr(request.user, "is_authenticated", False):
        raise NotAuthenticated("log in or send an API token (Authorization: Token ...)")
    if not can_manage_component(request.user, component, project):
        raise PermissionDenied(refusal(request.user, project, Role.MAINTAINER))


def managed_component(request: Request, name: str) -> tuple[str, Project]:
    """The component of the URL and its project, for a change only that project's maintainers may make."""
    component = component_name(name)
    project = component_project(request)
    require_manager(request, project, component)
    return component, project


class DashboardView(APIView):
    @extend_schema(
        responses={200: s.DashboardSerializer, **ERRORS},
        summary="A component's KPIs across its tests: thresholds, points past them, change points, baseline",
    )
    def get(self, request: Request, name: str) -> Response:
        return Response(service.dashboard(component_project(request).pk, component_name(name), request.user))


class KpisView(APIView):
    @extend_schema(responses={200: s.KpisAnswerSerializer, **ERRORS}, summary="A component's KPIs and thresholds")
    def get(self, request: Request, name: str) -> Response:
        return Response(service.settings_json(component_project(request).pk, component_name(name)))

    @extend_schema(
        request=s.KpisSerializer,
        responses={200: s.KpisAnswerSerializer, **ERRORS, 409: ErrorSerializer},
        summary="Replace a component's KPIs and thresholds (maintainers of its project)",
    )
    def put(self, request: Request, name: str) -> Response:
        component, project = managed_component(request, name)
        body: Any = request.data
        if not isinstance(body, dict) or "kpis" not in body:
            raise ValidationError("kpis: required, a list of {kpi, threshold} objects")
        _refuse_repeated(body["kpis"])
        try:
            saved = kpis.save_configs(project.pk, component, body["kpis"], request.user)
        except KpiError as exc:
            raise ValidationError(str(exc)) from exc
        audit(request.user, project, "kpis.set", component, kpis=[c.as_dict() for c in saved])
        return Response(service.settings_json(project.pk, component))


class Conflict(APIException):
    status_code = 409
    default_detail = "conflict"


def _refuse_repeated(raw: Any) -> None:
    """A KPI named twice (`q99` and `q99.0` alike) is a 409: each item may be valid, the list contradicts itself
    (and the schema, which lists KPI names by pattern, cannot say that they must differ)."""
    seen: set[str] = set()
    for index, item in enumerate(raw if isinstance(raw, list) else []):
        try:
            key = kpi_spec(item["kpi"]).key if isinstance(item, dict) and isinstance(item.get("kpi"), str) else None
        except KpiError:
            continue  # parse_kpis names it
        if key in seen:
            raise Conflict(f"kpis[{index}].kpi: {key} is listed twice")
        if key is not None:
            seen.add(key)


class BaselineView(APIView):
    def _answer(self, request: Request, project: Project, component: str) -> Response:
        return Response(
            {
                "component": component,
                "baseline": service.baseline_json(project.pk, component, request.user),
                "history": baselines.history(project.pk, component, request.user),
            }
        )

    @extend_schema(responses={200: s.BaselineAnswerSerializer, **ERRORS}, summary="A component's baseline and history")
    def get(self, request: Request, name: str) -> Response:
        return self._answer(request, component_project(request), component_name(name))

    @extend_schema(
        request=s.BaselineRequestSerializer,
        responses={200: s.BaselineAnswerSerializer, **ERRORS},
        summary="Mark a test of the component as its baseline (one at a time; the history is kept)",
    )
    def post(self, request: Request, name: str) -> Response:
        component, project = managed_component(request, name)
        body = s.BaselineRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        test = test_or_404(request, int(body.validated_data["test"]))
        if test.component != component:  # as a missing test, like the check: the pair names nothing
            raise NotFound(f"test: test {test.pk} belongs to component {test.component!r}, not {component!r}")
        if test.project_id != project.pk:  # nothing outside the project judges into its component
            raise NotFound(f"test: test {test.pk} is not a test of project {project.slug!r}")
        try:
            baselines.set_baseline(project.pk, component, test, request.user)
        except baselines.BaselineError as exc:
            raise ValidationError(str(exc)) from exc
        audit(request.user, project, "baseline.set", component, test=test.pk)
        return self._answer(request, project, component)

    @extend_schema(
        request=None, responses={200: s.BaselineAnswerSerializer, **ERRORS}, summary="Clear a component's baseline"
    )
    def delete(self, request: Request, name: str) -> Response:
        component, project = managed_component(request, name)
        if baselines.clear_baseline(project.pk, component, request.user) is not None:
            audit(request.user, project, "baseline.clear", component)
        return self._answer(request, project, component)


class TrendView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "figure",
                OpenApiTypes.STR,
                enum=list(diagnosis.FIGURE_FIELDS),
                description="figure to follow; q99 by default",
            )
        ],
        responses={200: TrendAnswerSerializer},
        summary="A figure across a component's tests, with change points and thresholds",
    )
    def get(self, request: Request, name: str) -> Response:
        figure = request.query_params.get("figure", "q99")
        try:
            project_id = component_project(request).pk
            body: dict[str, Any] = diagnosis.component_trend(project_id, component_name(name), figure, request.user)
        except diagnosis.UnknownFigure as exc:
            raise ValidationError(str(exc)) from exc
        return Response(body)


class CheckView(APIView):
    @extend_schema(
        responses={
            200: OpenApiTypes.OBJECT,
            400: OpenApiTypes.OBJECT,
            401: OpenApiTypes.OBJECT,
            404: OpenApiTypes.OBJECT,
            409: OpenApiTypes.OBJECT,
        },
        summary="CI check: does the test pass its component's thresholds, and is it not worse than the baseline? "
        "409 while the test is still running or being processed",
    )
    def get(self, request: Request, name: str, test_id: int) -> Response:
        component = component_name(name)
        test = test_or_404(request, test_id)
        if test.component != name:  # as a missing test: the pair (component, test) names nothing
            raise NotFound(f"test {test_id} is not a test of component {name!r}")
        try:
            body = service.check(component, test, request.user)
        except service.CheckError as exc:
            if exc.status == 409:
                raise Conflict(exc.message) from exc
            raise ValidationError(exc.message) from exc
        return Response(body)
