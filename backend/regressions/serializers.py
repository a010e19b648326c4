"""Request and answer shapes of the regressions API, for validation and the OpenAPI schema."""

from __future__ import annotations

from typing import Any, get_args

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analytics.regressions import MAX_KPIS, Direction
from backend.reports.serializers import FigureSerializer

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


class DashboardTestSerializer(serializers.Serializer[Any]):
    """A test of the component, as its pages list it."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.CharField()
    ts = serializers.IntegerField(help_text="its start, unix s")
    status = serializers.CharField()
    url = serializers.CharField(help_text="its report page's path")


class BaselineTestSerializer(DashboardTestSerializer):
    """The component's baseline test, and who marked it when."""

    set_by = serializers.CharField(allow_null=True)
    set_at = serializers.CharField(allow_null=True, help_text="ISO 8601")


class BaselineHistorySerializer(serializers.Serializer[Any]):
    test_id = serializers.IntegerField(allow_null=True, help_text="null: cleared, or a test you may not read")
    cleared = serializers.BooleanField()
    set_by = serializers.CharField(allow_null=True)
    set_at = serializers.CharField()


class BaselineAnswerSerializer(serializers.Serializer[Any]):
    component = serializers.CharField()
    baseline = BaselineTestSerializer(allow_null=True)
    history = BaselineHistorySerializer(many=True)


class KpiPointSerializer(serializers.Serializer[Any]):
    test_id = serializers.IntegerField()
    ts = serializers.IntegerField(help_text="the test's start, unix s")
    value = serializers.FloatField(allow_null=True, help_text="in the KPI's unit; null: not measured in this test")
    past_threshold = serializers.BooleanField()


class KpiSeriesSerializer(serializers.Serializer[Any]):
    """One KPI across the component's tests (oldest first), with its threshold and where it was passed."""

    kpi = KpiNameField()
    title = serializers.CharField()
    unit = serializers.CharField(allow_blank=True, help_text='ms, RPS, or "" for a share (0..1)')
    direction = serializers.ChoiceField(choices=list(get_args(Direction)))
    threshold = ThresholdField(allow_null=True)
    limit = serializers.FloatField(
        allow_null=True,
        help_text="the value past which a test fails, in the KPI's unit; null: no threshold, or a "
        "relative one without a baseline value",
    )
    baseline_value = serializers.FloatField(allow_null=True, help_text="the baseline test's value")
    points = KpiPointSerializer(many=True)
    change_points = serializers.ListField(
        child=serializers.IntegerField(), help_text="ids of the tests where a new level starts"
    )
    figure = FigureSerializer()


class DashboardSerializer(serializers.Serializer[Any]):
    component = serializers.CharField()
    baseline = BaselineTestSerializer(allow_null=True)
    kpis_stored = serializers.BooleanField(help_text="false: the default KPIs, set by nobody yet")
    kpis = KpiSeriesSerializer(many=True)
    tests = DashboardTestSerializer(many=True, help_text="the finished tests the caller may read, oldest first")
