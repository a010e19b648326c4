"""The accounts JSON API: who am I, and the caller's API tokens (list, create, rename, revoke).

Thin views: validation in serializers, every token write through backend.loadtests.tokens. A token belongs to
one user; another user's token answers 403 (staff included: a token is a personal secret, revoking someone
else's is done in the admin site, where it is logged).
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.models import User
from django.utils.cache import add_never_cache_headers
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from backend.accounts.serializers import (
    CreatedTokenSerializer,
    MeSerializer,
    TokenCreateSerializer,
    TokenNameSerializer,
    TokenSerializer,
)
from backend.loadtests.models import ApiToken
from backend.loadtests.tokens import create_token, rename_token, revoke_token
from backend.projects.access import token_scope
from backend.projects.service import audit


class MeView(APIView):
    @extend_schema(responses=MeSerializer, summary="The user of this session or token")
    def get(self, request: Request) -> Response:
        user = request.user
        authenticated = bool(user and user.is_authenticated)
        return Response(
            {
                "authenticated": authenticated,
                "username": user.get_username() if authenticated else "",
                "is_staff": bool(authenticated and user.is_staff),
            }
        )


class TokenListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=TokenSerializer(many=True), summary="The caller's API tokens, newest first")
    def get(self, request: Request) -> Response:
        tokens = ApiToken.objects.filter(user=cast(User, request.user)).select_related("project")
        return Response(TokenSerializer(tokens, many=True).data)

    @extend_schema(
        request=TokenCreateSerializer,
        responses={201: CreatedTokenSerializer},
        summary="Create a token (scoped to a project, capped at a role, if asked); the answer holds it in clear, once",
    )
    def post(self, request: Request) -> Response:
        form = TokenCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        project, role = token_scope(request.user, data["project"], data["role"])
        token, raw = create_token(cast(User, request.user), name=str(data["name"]), project=project, role=role)
        audit(
            request.user,
            token.project,
            "token.create",
            token.key_prefix,
            name=token.name,
            project=project.slug if project is not None else None,
            role=role.label if role is not None else None,
        )
        body: dict[str, Any] = dict(TokenSerializer(token).data)
        body["token"] = raw
        response = Response(body, status=status.HTTP_201_CREATED)
        add_never_cache_headers(response)  # the token in clear must not be kept by any cache
        return response


def _own_token(request: Request, pk: int) -> ApiToken:
    token = ApiToken.objects.filter(pk=pk).first()
    if token is None:
        raise NotFound(f"no API token {pk}")
    if token.user_id != request.user.pk:
        raise PermissionDenied(f"API token {pk} belongs to another user")
    return token


class TokenDetailView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=TokenNameSerializer, responses=TokenSerializer, summary="Rename a token")
    def patch(self, request: Request, pk: int) -> Response:
        token = _own_token(request, pk)
        form = TokenNameSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        rename_token(token, str(form.validated_data["name"]))
        return Response(TokenSerializer(token).data)

    @extend_schema(responses={204: None}, summary="Revoke a token (it stops working at once; the row stays)")
    def delete(self, request: Request, pk: int) -> Response:
        token = _own_token(request, pk)
        revoke_token(token)
        audit(request.user, token.project, "token.revoke", token.key_prefix, name=token.name)
        return Response(status=status.HTTP_204_NO_CONTENT)
