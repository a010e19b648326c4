"""Request and answer shapes of the notifications API. Addresses and secrets are write-only."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiSerializerExtension
from rest_framework import serializers

from backend.core.fields import ErrorSerializer, StrictBooleanField, StrictCharField
from backend.core.schema import NO_NUL, NON_BLANK
from backend.notify.channels import TARGET_URL, TELEGRAM_CHAT, TELEGRAM_TOKEN
from backend.notify.models import Event, TargetKind

__all__ = ["ErrorSerializer"]


class TargetCreateSerializer(serializers.Serializer[Any]):
    """The fields each kind needs are checked by backend/notify/actions.py; the schema says which (below).
    Addresses are taken as sent (no trimming), so that the server refuses what the schema's patterns refuse."""

    kind = serializers.ChoiceField(choices=TargetKind.choices)
    name = StrictCharField(min_length=1, max_length=128)
    url = StrictCharField(max_length=2000, required=False, trim_whitespace=False)
    token = StrictCharField(max_length=200, required=False, trim_whitespace=False)
    chat_id = StrictCharField(max_length=64, required=False, trim_whitespace=False)
    secret = StrictCharField(min_length=1, max_length=200, required=False, trim_whitespace=False)
    for_tank_notify = StrictBooleanField(required=False, default=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # Keys of another kind are refused, as the schema says (additionalProperties: false): a Telegram target sent
        # with a `url` is a mistake to name, not to ignore.
        allowed = {"kind", "name", "for_tank_notify", *_KIND_FIELDS[attrs["kind"] == TargetKind.TELEGRAM]}
        unknown = sorted(set(self.initial_data) - allowed)
        if unknown:
            raise serializers.ValidationError(f"{', '.join(unknown)}: not a field of a {attrs['kind']} target")
        return attrs


_KIND_FIELDS = {False: ("url", "secret"), True: ("token", "chat_id")}


def _target_kind(kinds: list[str], required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    common = {
        # A pattern, not an enum: drf-spectacular would merge the two branches' enums into one component.
        "kind": {"type": "string", "pattern": f"^({'|'.join(kinds)})\\Z"},
        "name": {"type": "string", "minLength": 1, "maxLength": 128, "pattern": NON_BLANK},
        "for_tank_notify": {"type": "boolean", "default": True},
    }
    return {
        "type": "object",
        "properties": {**common, **properties},
        "required": ["kind", "name", *required],
        "additionalProperties": False,
    }


class TargetCreateSchema(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    """One shape per kind of target: a URL for the webhooks, a bot token and a chat for Telegram."""

    target_class = TargetCreateSerializer

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        url = {
            "type": "string",
            "maxLength": 2000,
            "pattern": TARGET_URL.pattern.replace("\\x00", "\\u0000"),
            "description": "slack, teams, teams_workflow, webhook: the URL to POST",
        }
        secret = {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "pattern": NO_NUL,
            "description": "webhook: the HMAC-SHA256 key (generated when omitted)",
        }
        token = {"type": "string", "maxLength": 200, "pattern": TELEGRAM_TOKEN.pattern, "description": "bot token"}
        chat = {"type": "string", "maxLength": 64, "pattern": TELEGRAM_CHAT.pattern, "description": "chat or @channel"}
        webhooks = [str(kind) for kind in TargetKind.values if kind != TargetKind.TELEGRAM]
        return {
            "oneOf": [
                _target_kind(webhooks, ["url"], url=url, secret=secret),
                _target_kind([str(TargetKind.TELEGRAM)], ["token", "chat_id"], token=token, chat_id=chat),
            ]
        }


class TargetSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    name = serializers.CharField()
    address_hint = serializers.CharField()
    chat_id = serializers.CharField()
    for_tank_notify = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class TargetCreatedSerializer(TargetSerializer):
    secret = serializers.CharField(required=False, help_text="webhook: the signing key, shown this once")


class SubscriptionCreateSerializer(serializers.Serializer[Any]):
    target = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
    events = serializers.ListField(child=serializers.ChoiceField(choices=Event.choices), min_length=1, max_length=3)


class SubscriptionSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    component = serializers.CharField()
    target = TargetSerializer()
    events = serializers.ListField(child=serializers.CharField())


class DeliverySerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    test_id = serializers.IntegerField()
    event = serializers.CharField()
    via = serializers.CharField()
    target = serializers.CharField()
    target_kind = serializers.CharField()
    status = serializers.CharField()
    attempts = serializers.IntegerField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    created_at = serializers.DateTimeField()
    sent_at = serializers.DateTimeField(allow_null=True)
    title = serializers.CharField()
