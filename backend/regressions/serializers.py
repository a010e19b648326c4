"""Request and answer shapes of the regressions API, for validation and the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class ErrorSerializer(serializers.Serializer[Any]):
    error = serializers.CharField()


class ThresholdSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=["absolute", "relative"])
    value = serializers.FloatField(min_value=0, help_text="absolute: the limit in the KPI's unit; relative: percent")


class KpiSerializer(serializers.Serializer[Any]):
    kpi = serializers.CharField(help_text="q<percent> (q50, q99, q99.9), max_rps, imbalance_rps or error_share")
    threshold = ThresholdSerializer(allow_null=True, required=False)


class KpisSerializer(serializers.Serializer[Any]):
    kpis = KpiSerializer(many=True)


class KpisAnswerSerializer(KpisSerializer):
    component = serializers.CharField()
    stored = serializers.BooleanField(help_text="false: the defaults, set by nobody yet")


class BaselineRequestSerializer(serializers.Serializer[Any]):
    test = serializers.IntegerField(min_value=1, max_value=2**63 - 1)


class BaselineTestSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.CharField()
    ts = serializers.IntegerField()
    status = serializers.CharField()
    url = serializers.CharField()
    set_by = serializers.CharField(allow_null=True)
    set_at = serializers.CharField(allow_null=True)


class BaselineHistorySerializer(serializers.Serializer[Any]):
    test_id = serializers.IntegerField(allow_null=True, help_text="null: cleared, or a test you may not read")
    cleared = serializers.BooleanField()
    set_by = serializers.CharField(allow_null=True)
    set_at = serializers.CharField()


class BaselineAnswerSerializer(serializers.Serializer[Any]):
    component = serializers.CharField()
    baseline = BaselineTestSerializer(allow_null=True)
    history = BaselineHistorySerializer(many=True)
