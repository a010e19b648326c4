"""Projects API: the caller's projects, a project's members (its admins change them), the caller's own membership
(whether a tank's `notify:` may reach him) and its audit log.

A project the caller holds no role in answers like a missing one. Errors are `{"error": ...}`.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotAuthenticated, NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.core.fields import ErrorSerializer, StrictBooleanField, StrictCharField
from backend.projects.access import is_authenticated, is_site_admin, readable_projects, require, role_of
from backend.projects.models import SLUG_PATTERN, AuditEvent, Membership, Project, Role
from backend.projects.service import audit, remove_member, set_member, set_tank_notify

AUDIT_PAGE = 200
ROLE_NAMES = [str(r.label) for r in Role]


class ProjectAnswer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    name = serializers.CharField()
    role = serializers.CharField(allow_null=True)
    default_visibility = serializers.CharField()


class ProjectMemberAnswer(serializers.Serializer[Any]):
    username = serializers.CharField()
    role = serializers.CharField()


class MembershipAnswer(serializers.Serializer[Any]):
    project = serializers.CharField()
    username = serializers.CharField()
    role = serializers.CharField()
    tank_notify = serializers.BooleanField(help_text="a tank's `notify:` naming you reaches your targets")


class MembershipPatch(serializers.Serializer[Any]):
    tank_notify = StrictBooleanField(
        required=False, help_text="let a tank's `notify:` naming you reach your targets for this project's tests"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(self.initial_data) - set(self.fields)) if isinstance(self.initial_data, dict) else []
        if unknown:
            raise serializers.ValidationError(
                f"{', '.join(unknown)}: not a field of your membership ({', '.join(self.fields)})"
            )
        return attrs


class AuditEventAnswer(serializers.Serializer[Any]):
    at = serializers.DateTimeField()
    actor = serializers.CharField(allow_null=True)
    action = serializers.CharField()
    target = serializers.CharField()
    details = serializers.DictField()


class StrictSlugField(StrictCharField, serializers.RegexField):
    """A slug that is a JSON string already (RegexField alone would take `0` as "0")."""


class ProjectCreateSerializer(serializers.Serializer[Any]):
    slug = StrictSlugField(SLUG_PATTERN, max_length=64)
    name = StrictCharField(min_length=1, max_length=256)


class MemberSerializer(serializers.Serializer[Any]):
    username = StrictCharField(min_length=1, max_length=150)
    role = serializers.ChoiceField(choices=ROLE_NAMES)


class RoleSerializer(serializers.Serializer[Any]):
    role = serializers.ChoiceField(choices=ROLE_NAMES)


def _user(request: Request) -> Any:
    if not is_authenticated(request.user):
        raise NotAuthenticated("log in or send an API token (Authorization: Token ...)")
    return request.user


def _project(request: Request, slug: str) -> Project:
    project = readable_projects(_user(request)).filter(slug=slug).first()
    if project is None:
        raise NotFound(f"project {slug[:64]!r} not found")
    return project


def _role(name: str) -> Role:
    return next(r for r in Role if r.label == name)


def project_json(project: Project, user: Any) -> dict[str, Any]:
    role = role_of(user, project)
    return {
        "slug": project.slug,
        "name": project.name,
        "role": role.label if role is not None else None,
        "default_visibility": project.default_visibility,
    }


class ProjectsView(APIView):
    @extend_schema(
        responses={200: ProjectAnswer(many=True)}, summary="The projects you hold a role in (site admins: all), with it"
    )
    def get(self, request: Request) -> Response:
        user = _user(request)
        return Response([project_json(p, user) for p in readable_projects(user)])

    @extend_schema(
        request=ProjectCreateSerializer,
        responses={201: ProjectAnswer, 409: ErrorSerializer},
        summary="Create a project (site admins)",
    )
    def post(self, request: Request) -> Response:
        user = _user(request)
        if not is_site_admin(user):
            raise PermissionDenied("only site admins create projects")
        body = ProjectCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if Project.objects.filter(slug=body.validated_data["slug"]).exists():
            return Response({"error": f"slug: project {body.validated_data['slug']!r} exists"}, status=409)
        project = Project.objects.create(**body.validated_data)
        audit(user, project, "project.create", project.slug, name=project.name)
        return Response(project_json(project, user), status=201)


class MembersView(APIView):
    @extend_schema(
        responses={200: ProjectMemberAnswer(many=True)}, summary="A project's members and their roles (its members)"
    )
    def get(self, request: Request, slug: str) -> Response:
        project = _project(request, slug)
        rows = Membership.objects.filter(project=project).select_related("user").order_by("-role", "user__username")
        return Response([{"username": m.user.username, "role": Role(m.role).label} for m in rows])

    @extend_schema(
        request=MemberSerializer, responses={201: ProjectMemberAnswer}, summary="Add a member or change a role (admins)"
    )
    def post(self, request: Request, slug: str) -> Response:
        project = _project(request, slug)
        require(request.user, project, Role.ADMIN)
        body = MemberSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        member = User.objects.filter(username=body.validated_data["username"]).first()
        if member is None:
            raise NotFound(f"username: no user {body.validated_data['username']!r}")
        set_member(project, member, _role(body.validated_data["role"]), request.user)
        return Response({"username": member.username, "role": body.validated_data["role"]}, status=201)


class MemberDetailView(APIView):
    def _member(self, request: Request, slug: str, username: str) -> tuple[Project, User]:
        project = _project(request, slug)
        require(request.user, project, Role.ADMIN)
        member = User.objects.filter(username=username, memberships__project=project).first()
        if member is None:
            raise NotFound(f"{username[:150]!r} is not a member of {project.slug!r}")
        return project, member

    @extend_schema(
        request=RoleSerializer, responses={200: ProjectMemberAnswer}, summary="Change a member's role (admins)"
    )
    def patch(self, request: Request, slug: str, username: str) -> Response:
        project, member = self._member(request, slug, username)
        body = RoleSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        if "role" in body.validated_data:  # a PATCH without a role changes nothing
            set_member(project, member, _role(body.validated_data["role"]), request.user)
        current = Membership.objects.get(project=project, user=member)
        return Response({"username": member.username, "role": Role(current.role).label})

    @extend_schema(request=None, responses={204: None}, summary="Remove a member (admins)")
    def delete(self, request: Request, slug: str, username: str) -> Response:
        project, member = self._member(request, slug, username)
        remove_member(project, member, request.user)
        return Response(status=204)


class MembershipView(APIView):
    """Your own membership of a project: your role, and whether a tank's `notify:` may reach you for its tests."""

    def _membership(self, request: Request, slug: str) -> tuple[Project, Membership]:
        project = _project(request, slug)  # a token of another project: not found, as elsewhere
        membership = Membership.objects.filter(project=project, user=_user(request)).first()
        if membership is None:  # a site admin who is no member
            raise NotFound(f"you are not a member of project {project.slug!r}")
        return project, membership

    @staticmethod
    def _answer(project: Project, membership: Membership, user: Any) -> Response:
        return Response(
            {
                "project": project.slug,
                "username": user.username,
                "role": Role(membership.role).label,
                "tank_notify": membership.tank_notify,
            }
        )

    @extend_schema(
        responses={200: MembershipAnswer, 401: ErrorSerializer, 404: ErrorSerializer},
        summary="Your membership of a project: role, and whether a tank's notify: may reach you (members)",
    )
    def get(self, request: Request, slug: str) -> Response:
        project, membership = self._membership(request, slug)
        return self._answer(project, membership, request.user)

    @extend_schema(
        request=MembershipPatch,
        responses={200: MembershipAnswer, 400: ErrorSerializer, 401: ErrorSerializer, 404: ErrorSerializer},
        summary="Allow or refuse a tank's notify: naming you for this project's tests (members, for themselves)",
    )
    def patch(self, request: Request, slug: str) -> Response:
        project, membership = self._membership(request, slug)
        body = MembershipPatch(data=request.data)
        body.is_valid(raise_exception=True)
        if "tank_notify" in body.validated_data:  # a PATCH without it changes nothing
            membership = set_tank_notify(project, request.user, body.validated_data["tank_notify"])
        return self._answer(project, membership, request.user)


class AuditView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("action", str, description='e.g. "member.add", "baseline.set", "test.delete"'),
            OpenApiParameter("actor", str, description="username"),
        ],
        responses={200: AuditEventAnswer(many=True)},
        summary="A project's audit log, newest first (its admins)",
    )
    def get(self, request: Request, slug: str) -> Response:
        project = _project(request, slug)
        require(request.user, project, Role.ADMIN)
        events = AuditEvent.objects.filter(project=project).select_related("actor")
        for key, field in (("action", "action"), ("actor", "actor__username")):
            value = request.query_params.get(key)
            if value:
                events = events.filter(**{field: value})
        return Response(
            [
                {
                    "at": e.at,
                    "actor": e.actor.username if e.actor else None,
                    "action": e.action,
                    "target": e.target,
                    "details": e.details,
                }
                for e in events[:AUDIT_PAGE]
            ]
        )
