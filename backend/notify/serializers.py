"""Request and answer shapes of the notifications API. Addresses and secrets are write-only."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from backend.notify.models import Event, TargetKind
from backend.regressions.serializers import ErrorSerializer

__all__ = ["ErrorSerializer"]


class TargetCreateSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=TargetKind.choices)
    name = serializers.CharField(max_length=128)
    url = serializers.CharField(max_length=2000, required=False, help_text="slack, teams, webhook: the URL to POST")
    token = serializers.CharField(max_length=200, required=False, help_text="telegram: the bot token")
    chat_id = serializers.CharField(max_length=64, required=False, help_text="telegram: the chat id or @channel")
    secret = serializers.CharField(
        max_length=200, required=False, help_text="webhook: the HMAC-SHA256 key (generated when omitted)"
    )
    for_tank_notify = serializers.BooleanField(required=False, default=True)


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
