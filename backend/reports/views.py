"""Thin views of the reports API: check access (backend.loadtests.permissions), parse, call service, respond.

Errors are JSON `{"error": ...}` (backend.core.errors): 400 for a bad parameter (named), 401 without
credentials where they are needed, 403 when the user may not, 404 for a missing test or chart.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.http.response import HttpResponseBase
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import NotAuthenticated, NotFound, PermissionDenied, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from analytics.numbers import is_digits
from backend.accounts import throttling
from backend.clickhouse.queries import purge
from backend.core import schema
from backend.loadtests import permissions
from backend.loadtests.models import Test, TestStatus
from backend.loadtests.permissions import can_create, test_or_404
from backend.projects.access import is_authenticated
from backend.projects.service import audit
from backend.reports import cache, listing, notes, serializers, service
from backend.reports.window import Window, WindowError, parse_window

WINDOW_PARAMETERS = [
    OpenApiParameter("from", schema.UNIX_SECONDS, description="window start, unix s (response second), inclusive"),
    OpenApiParameter("to", schema.UNIX_SECONDS, description="window end, unix s, exclusive; to <= from is empty"),
    OpenApiParameter("case", schema.CASES, explode=True, description="case (tag), repeatable; none = overall"),
    OpenApiParameter(
        "q", schema.PERCENTS, style="form", explode=False, description="quantile levels in percent, e.g. 50,99,99.9"
    ),
]
CHART_PARAMETERS = [
    *WINDOW_PARAMETERS,
    OpenApiParameter(
        "compress_ratio", schema.COMPRESS_RATIO, description="seconds per chart point, or 'auto' (default)"
    ),
]


def window_of(request: Request) -> Window:
    try:
        return parse_window(request.query_params)
    except WindowError as exc:
        raise ValidationError(str(exc)) from exc


# ── tests CRUD ──────────────────────────────────────────────────────────────────────────────────────────


class TestPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request: Request) -> int:
        # DRF falls back to the default on a bad page_size; the schema says it is a number from 1, so refuse.
        raw = request.query_params.get(self.page_size_query_param)
        if raw is not None and not (is_digits(raw) and int(raw) >= 1):
            raise ValidationError({"page_size": f"a whole number from 1, got {raw!r}"})
        return int(super().get_page_size(request) or self.page_size)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
                parameter["description"] = f"results per page (at most {self.max_page_size})"
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1}
        return parameters


def _time_bound(name: str, raw: str) -> datetime:
    """`since`/`until`: unix seconds or an ISO date/datetime (naive = UTC)."""
    raw = raw.strip()
    parsed: datetime | None = None
    try:
        if is_digits(raw):
            parsed = datetime.fromtimestamp(int(raw), tz=UTC)
        else:
            parsed = parse_datetime(raw)
            day = parse_date(raw) if parsed is None else None
            if day is not None:
                parsed = datetime(day.year, day.month, day.day)
    except (ValueError, OverflowError, OSError):  # well-formed but impossible: 2020-13-45, year 10^12
        parsed = None
    if parsed is None:
        raise ValidationError({name: f"expected unix seconds or an ISO date, got {raw!r}"})
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)  # PostgreSQL takes offsets below 16 h only; ISO allows up to 24
    except OverflowError:  # 0001-01-01T00:00+01:00: before any datetime, so before every test
        return datetime.min.replace(tzinfo=UTC)


def readable_tests(user: Any) -> QuerySet[Test]:
    """The queryset form of permissions.can_read, so a list never shows what a detail would refuse."""
    if not permissions.may_browse(user):
        raise NotAuthenticated("this instance is private: log in or send an API token")
    return permissions.readable_tests(user).select_related("owner", "project")


TIME_BOUND = {
    "anyOf": [
        {"type": "integer", "minimum": 0, "maximum": 253402300799},  # up to 9999-12-31
        {"type": "string", "format": "date"},
        {"type": "string", "format": "date-time"},
    ]
}
LIST_PARAMETERS = [
    OpenApiParameter("search", OpenApiTypes.STR, description="in id, name, description, task, component, person"),
    OpenApiParameter("component", OpenApiTypes.STR),
    OpenApiParameter("project", OpenApiTypes.STR, description="the project's slug (the tests of it you may read)"),
    OpenApiParameter("person", OpenApiTypes.STR, description="author: the tank's person or the owner, any case"),
    OpenApiParameter("status", OpenApiTypes.STR, enum=[s.value for s in TestStatus]),
    OpenApiParameter("starred", OpenApiTypes.BOOL),
    OpenApiParameter("since", TIME_BOUND, description="created at or after (unix s, or an ISO date or datetime)"),
    OpenApiParameter("until", TIME_BOUND, description="created before (unix s, or an ISO date: that whole day)"),
    OpenApiParameter("tag", OpenApiTypes.STR, many=True, description="has this tag; repeatable (all of them)"),
    OpenApiParameter(
        "ordering",
        OpenApiTypes.STR,
        enum=[f"{sign}{key}" for key in listing.ORDERINGS for sign in ("", "-")],
        description="sort key, '-' for descending (default -created_at)",
    ),
]


class TestListCreateView(generics.ListCreateAPIView[Test]):
    serializer_class = serializers.TestSerializer
    pagination_class = TestPagination

    def get_queryset(self) -> QuerySet[Test]:
        qs = readable_tests(self.request.user)
        params = self.request.query_params
        for key, value in params.items():
            if "\x00" in value:  # PostgreSQL refuses NUL in text: a 400 here, not a 500 there
                raise ValidationError({key: "must not contain NUL characters"})
        search = (params.get("search") or "").strip()
        if search:
            qs = qs.filter(listing.matching(search))
        if params.get("component"):
            qs = qs.filter(component=params["component"])
        if params.get("project"):
            # Within what the caller may read already: an unknown slug, or one the caller may not see, lists nothing.
            qs = qs.filter(project__slug=params["project"])
        person = (params.get("person") or "").strip()
        if person:
            # The author is the tank's `person`, or the owner of the token when the tank sent none (uploads,
            # the admin's own token): both count, in any case of letters.
            qs = qs.filter(Q(person__iexact=person) | Q(owner__username__iexact=person))
        for tag in params.getlist("tag"):
            if tag.strip():
                qs = qs.filter(tags__name=tag.strip())
        if "status" in params:
            if params["status"] not in TestStatus.values:
                raise ValidationError({"status": f"one of {', '.join(TestStatus.values)}"})
            qs = qs.filter(status=params["status"])
        if "starred" in params:
            value = params["starred"].lower()
            if value not in ("1", "0", "true", "false"):
                raise ValidationError({"starred": "true or false"})
            qs = qs.filter(starred=value in ("1", "true"))
        if "since" in params:
            qs = qs.filter(created_at__gte=_time_bound("since", params["since"]))
        if "until" in params:
            until = _time_bound("until", params["until"])
            if parse_date(params["until"].strip()) is not None:
                # A date names a whole day: until 2026-11-22 includes that day (and 9999-12-31, everything).
                until = until + timedelta(days=1) if until.date() < date.max else datetime.max.replace(tzinfo=UTC)
            qs = qs.filter(created_at__lt=until)
        qs = listing.with_list_fields(qs).prefetch_related("tags")
        try:
            return listing.ordered(qs, (params.get("ordering") or listing.DEFAULT_ORDERING).strip())
        except listing.UnknownOrdering as exc:
            raise ValidationError({"ordering": str(exc)}) from exc

    @extend_schema(parameters=LIST_PARAMETERS, summary="Tests, newest first, filtered and paginated")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Create a test from metadata (owner: the caller); upload phout into it next")
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if not is_authenticated(request.user):
            raise NotAuthenticated("creating a test needs an API token (Authorization: Token ...)")
        return super().post(request, *args, **kwargs)

    def perform_create(self, serializer: Any) -> None:
        project = permissions.project_for_new_test(self.request.user)
        if project is None or not can_create(self.request.user, project):
            raise PermissionDenied("creating a test needs the uploader role in the project")
        fields: dict[str, Any] = {"owner": self.request.user, "project": project}
        if "visibility" not in serializer.validated_data:
            fields["visibility"] = project.default_visibility
        # Created empty, waiting for its data (a phout upload): not `online`, which means a tank is streaming.
        serializer.save(**fields, status=TestStatus.PROCESSING)


class TestDetailView(generics.RetrieveUpdateDestroyAPIView[Test]):
    serializer_class = serializers.TestSerializer
    http_method_names = ["get", "patch", "delete", "head", "options"]

    def get_object(self) -> Test:
        write = self.request.method not in ("GET", "HEAD", "OPTIONS")
        return test_or_404(self.request, int(self.kwargs["test_id"]), write=write)

    def perform_destroy(self, instance: Test) -> None:
        # ClickHouse first: if it is down the request fails with 503 and the test stays whole, to be retried.
        purge.delete_test_rows(int(instance.pk))
        with transaction.atomic():
            audit(self.request.user, instance.project, "test.delete", f"test {instance.pk}", name=instance.name)
            instance.delete()

    def perform_update(self, serializer: Any) -> None:
        before = serializer.instance.visibility
        test = serializer.save()
        if test.visibility != before:
            audit(
                self.request.user, test.project, "test.visibility", f"test {test.pk}", to=test.visibility, before=before
            )


class StarView(APIView):
    @extend_schema(request=None, responses=serializers.StarSerializer, summary="Star a test")
    def post(self, request: Request, test_id: int) -> Response:
        return self._set(request, test_id, True)

    @extend_schema(request=None, responses={200: serializers.StarSerializer}, summary="Unstar a test")
    def delete(self, request: Request, test_id: int) -> Response:
        return self._set(request, test_id, False)

    def _set(self, request: Request, test_id: int, starred: bool) -> Response:
        test = test_or_404(request, test_id, write=True)
        Test.objects.filter(pk=test.pk).update(starred=starred)
        return Response({"id": test.pk, "starred": starred})


class NotesView(APIView):
    """Notes on the test's timeline: anyone who may read the test sees them; whoever may change it adds them."""

    @extend_schema(responses=serializers.NoteSerializer(many=True), summary="Notes on the test's timeline")
    def get(self, request: Request, test_id: int) -> Response:
        test = test_or_404(request, test_id)
        return Response(notes.listed(request.user, test))

    @extend_schema(
        request=serializers.NoteSerializer,
        responses={201: serializers.NoteSerializer},
        summary="Mark a second with a text",
    )
    def post(self, request: Request, test_id: int) -> Response:
        test = test_or_404(request, test_id, write=True)
        return Response(notes.add(request.user, test, request.data), status=status.HTTP_201_CREATED)


class NoteDetailView(APIView):
    @extend_schema(responses={204: None}, summary="Delete a note (whoever may change the test)")
    def delete(self, request: Request, test_id: int, note_id: int) -> Response:
        test = test_or_404(request, test_id, write=True)
        notes.delete(request.user, test, note_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# ── report ──────────────────────────────────────────────────────────────────────────────────────────────


def windowed_answer(
    request: Request, test: Test, name: str, compute: Callable[[Test, Window], dict[str, Any]]
) -> HttpResponseBase:
    """A report answer for the request's window: from the cache when it is the default view, with validators. A
    window of one's own is computed on ClickHouse: anonymous clients get so many of those a minute (throttling)."""
    window = window_of(request)

    def build() -> Response:
        if not window.is_default:
            throttling.anonymous_heavy_read(request)
        return Response(cache.cached(test, name, window, lambda: compute(test, window)))

    return cache.conditional(request, [test], build)


def windowed_view(
    name: str,
    compute: Callable[[Test, Window], dict[str, Any]],
    *,
    responses: type[Serializer[Any]],
    summary: str,
    parameters: list[OpenApiParameter] = WINDOW_PARAMETERS,
) -> type[APIView]:
    """A view whose GET is `compute` over the request's window (windowed_answer), documented as given: the report
    calls that are one service function each share this one body (`compute` looks the function up when called, so
    what the service module holds then is what runs). `parameters`: the query's, the window's unless
    the answer takes more (a chart's point spacing)."""

    @extend_schema(parameters=parameters, responses=responses, summary=summary)
    def get(self: APIView, request: Request, test_id: int) -> HttpResponseBase:
        return windowed_answer(request, test_or_404(request, test_id), name, compute)

    view_name = f"{name.title()}View"
    return type(view_name, (APIView,), {"get": get, "__module__": __name__, "__qualname__": view_name})


SummaryView = windowed_view(
    "summary",
    lambda test, window: service.summary(test, window),
    responses=serializers.SummarySerializer,
    summary="Cumulative figures of a window and cases (contract.md)",
)


class ChartView(APIView):
    @extend_schema(
        parameters=[
            *CHART_PARAMETERS,
            OpenApiParameter("log", OpenApiTypes.BOOL, description="distribution: logarithmic count axis"),
            OpenApiParameter("name", OpenApiTypes.STR, OpenApiParameter.PATH, enum=list(service.CHART_NAMES)),
        ],
        responses=serializers.ChartSerializer,
        summary="One chart as a Plotly figure: " + ", ".join(service.CHART_NAMES),
    )
    def get(self, request: Request, test_id: int, name: str) -> HttpResponseBase:
        test = test_or_404(request, test_id)
        if name not in service.CHART_NAMES:
            raise NotFound(f"unknown chart {name!r}; charts: {', '.join(service.CHART_NAMES)}")
        return windowed_answer(request, test, f"chart:{name}", lambda t, window: service.chart(t, name, window))


TablesView = windowed_view(
    "tables",
    lambda test, window: service.tables(test, window),
    responses=serializers.TablesSerializer,
    summary="Cumulative quantiles per case, HTTP and net codes, per-case summary (never downsampled)",
)
MonitoringView = windowed_view(
    "monitoring",
    lambda test, window: service.monitoring(test, window),
    parameters=CHART_PARAMETERS,
    responses=serializers.MonitoringSerializer,
    summary="Monitoring per host, grouped (cpu, memory, load, network, disk, custom), as figures",
)


class ReportView(APIView):
    @extend_schema(responses=serializers.ReportSerializer, summary="What the report has: cases, span, sources")
    def get(self, request: Request, test_id: int) -> HttpResponseBase:
        test = test_or_404(request, test_id)

        def build() -> Response:
            report = dict(cache.cached(test, "report", Window(), lambda: service.report(test)))
            report["status"] = test.status  # the cache outlives the status (post-processing sets ready after it)
            return Response(report)

        return cache.conditional(request, [test], build)


class ConfigView(APIView):
    @extend_schema(responses=serializers.ConfigSerializer, summary="The tank configs uploaded with the test")
    def get(self, request: Request, test_id: int) -> HttpResponseBase:
        test = test_or_404(request, test_id)
        return cache.conditional(request, [test], lambda: Response(service.config(test), status=status.HTTP_200_OK))
