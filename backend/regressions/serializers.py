"""Request and answer shapes of the regressions API, for validation and the OpenAPI schema."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analytics.regressions import MAX_KPIS

# The KPI names analytics.regressions.kpi_spec takes: q<percent> with 0 < percent <= 100 (three decimals at most).
# `\\Z`, not `$`: `$` would also match before a final newline, which kpi_spec refuses for the named KPIs.
KPI_NAME = (
    "^(max_rps|imbalance_rps|error_share|q100|q(0?[1-9]|[1-9][0-9])(\\.[0-9]{1,3})?"
    "|q0?0\\.(00[1-9]|0[1-9][0-9]?|[1-9][0-9]{0,2}))\\Z"
)


def _threshold(kind: str, maximum: float | None) -> dict[str, Any]:
    value: dict[str, Any] = {"type": "number", "minimum": 0}
    if maximum is not None:
        value["maximum"] = maximum
    return {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": [kind]}, "value": value},
        "required": ["kind", "value"],
    }


class ErrorSerializer(serializers.Serializer[Any]):
    error = serializers.CharField()


@extend_schema_field(
    {
        "type": "string",
        "pattern": KPI_NAME,
        "description": "q<percent> (q50, q99, q99.9), max_rps, imbalance_rps or error_share",
    }
)
class KpiNameField(serializers.CharField):
    pass


# absolute: the limit in the KPI's unit; relative: percent (10000 at most).
@extend_schema_field({"oneOf": [_threshold("absolute", None), _threshold("relative", 10_000)], "nullable": True})
class ThresholdField(serializers.JSONField):
    pass


class KpiSerializer(serializers.Serializer[Any]):
    kpi = KpiNameField()
    threshold = ThresholdField(allow_null=True, required=False)


class KpisSerializer(serializers.Serializer[Any]):
    kpis = serializers.ListField(child=KpiSerializer(), max_length=MAX_KPIS)


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
