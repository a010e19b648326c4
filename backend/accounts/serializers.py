"""JSON shapes of the accounts API (`/api/v1/me`, `/api/v1/tokens/`)."""

from __future__ import annotations

from rest_framework import serializers

from backend.core.fields import StrictCharField
from backend.loadtests.models import ApiToken


class MeSerializer(serializers.Serializer[None]):
    authenticated = serializers.BooleanField()
    username = serializers.CharField(allow_blank=True)
    is_staff = serializers.BooleanField()


class TokenSerializer(serializers.ModelSerializer[ApiToken]):
    """A token as lists show it: never the token itself, which exists in clear only in the create answer."""

    revoked = serializers.SerializerMethodField()

    class Meta:
        model = ApiToken
        fields = ["id", "name", "key_prefix", "created_at", "last_used_at", "revoked_at", "revoked"]
        read_only_fields = fields

    def get_revoked(self, obj: ApiToken) -> bool:
        return obj.revoked_at is not None


class TokenNameSerializer(serializers.Serializer[None]):
    name = StrictCharField(max_length=128, allow_blank=True, required=False, default="", trim_whitespace=True)


class CreatedTokenSerializer(TokenSerializer):
    token = serializers.CharField(help_text="the API token; shown in this answer only, store it now")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]
        read_only_fields = fields
