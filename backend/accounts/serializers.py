"""JSON shapes of the accounts API (`/api/v1/me`, `/api/v1/tokens/`)."""

from __future__ import annotations

from rest_framework import serializers

from backend.core.fields import StrictCharField
from backend.loadtests.models import ApiToken
from backend.projects.models import Role

ROLE_NAMES = [str(r.label) for r in Role]


class MeSerializer(serializers.Serializer[None]):
    authenticated = serializers.BooleanField()
    username = serializers.CharField(allow_blank=True)
    is_staff = serializers.BooleanField()


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    """A token as lists show it: never the token itself, which exists in clear only in the create answer."""

    revoked = serializers.SerializerMethodField()
    project = serializers.SerializerMethodField(help_text="the project the token acts in only (null: every one)")
    role = serializers.SerializerMethodField(help_text="the most the token may do (null: its user's own roles)")

    class Meta:
        model = ApiToken
        fields = ["id", "name", "key_prefix", "created_at", "last_used_at", "revoked_at", "revoked", "project", "role"]
        read_only_fields = fields

    def get_revoked(self, obj: ApiToken) -> bool:
        return obj.revoked_at is not None

    def get_project(self, obj: ApiToken) -> str | None:
        return obj.project.slug if obj.project is not None else None

    def get_role(self, obj: ApiToken) -> str | None:
        return str(Role(obj.role).label) if obj.role is not None else None


class TokenNameSerializer(serializers.Serializer[None]):
    name = StrictCharField(max_length=128, allow_blank=True, required=False, default="", trim_whitespace=True)


class TokenCreateSerializer(TokenNameSerializer):
    project = StrictCharField(
        min_length=1,
        max_length=64,
        required=False,
        allow_null=True,
        default=None,
        help_text="slug: the token acts in it only",
    )
    role = serializers.ChoiceField(
        choices=ROLE_NAMES,
        required=False,
        allow_null=True,
        default=None,
        help_text="the most the token may do; you must hold it (in `project`, when given)",
    )


class CreatedTokenSerializer(TokenSerializer):
    token = serializers.CharField(help_text="the API token; shown in this answer only, store it now")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]
        read_only_fields = fields
