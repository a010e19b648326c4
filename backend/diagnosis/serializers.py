"""Shapes of the diagnosis answers (a test's analysis, a component's trend), for the OpenAPI schema.

Response-only: `service.analysis_payload` and `service.component_trend` build the JSON; these describe it, and the
frontend's types are generated from the description.
"""

from __future__ import annotations

from typing import Any, get_args

from rest_framework import serializers

from analytics.diagnosis.trend import FIGURES, Direction
from analytics.diagnosis.types import Severity
from backend.diagnosis.models import AnalysisStatus
from backend.reports.serializers import FigureSerializer


class _Labelled(serializers.Serializer[Any]):
    """Answers a `label` field, declared as `label_` (`label` is a Serializer attribute)."""

    label_ = serializers.CharField()

    def get_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().get_fields()
        return {"label" if name == "label_" else name: field for name, field in fields.items()}


class FactSerializer(_Labelled):
    """A figure of the finding as a person reads it."""

    value = serializers.CharField(help_text="with its unit, rounded as the finding's text is")


class AnnotationSerializer(_Labelled):
    """A moment the finding marks on the time charts."""

    ts = serializers.IntegerField(help_text="the second to mark on the time charts, unix s")


class FindingSerializer(serializers.Serializer[Any]):
    """One conclusion of the diagnosis engine about a test."""

    kind = serializers.CharField(help_text="imbalance, overload, generator_limited, timeouts, single_core, ...")
    severity = serializers.ChoiceField(choices=list(get_args(Severity)))
    title = serializers.CharField()
    text = serializers.CharField()
    evidence = serializers.DictField(
        help_text="the figures for programs, by name (a figure that is unknown is left out, never null)"
    )
    facts = FactSerializer(
        many=True, required=False, help_text="the evidence as a person reads it; absent on a load-scheme finding"
    )
    annotations = AnnotationSerializer(many=True)


class SteadyStageSerializer(serializers.Serializer[Any]):
    from_ts = serializers.IntegerField(allow_null=True, help_text="unix s; null: no steady stage found")
    to_ts = serializers.IntegerField(allow_null=True, help_text="unix s, exclusive")


class TrendFiguresSerializer(serializers.Serializer[Any]):
    """The figures a component's trend follows, of this test; null where it has none."""

    q99 = serializers.FloatField(allow_null=True, help_text="q99 of the steady stage, ms")
    imbalance_rps = serializers.FloatField(allow_null=True, help_text="RPS at the imbalance point")
    error_share = serializers.FloatField(allow_null=True, help_text="errors / requests, 0..1")


class TrendBadgeSerializer(serializers.Serializer[Any]):
    component = serializers.CharField()
    broke_trend = serializers.BooleanField()
    reasons = serializers.ListField(child=serializers.CharField())


class AnalysisAnswerSerializer(serializers.Serializer[Any]):
    """`pending` (not computed yet, or the test is not complete) and `failed` carry the status, empty findings and
    figures (and `error` when failed); `ready` carries the rest too."""

    status = serializers.ChoiceField(choices=AnalysisStatus.choices)
    findings = FindingSerializer(many=True)
    figures = serializers.DictField(child=FigureSerializer(), help_text="Plotly figures by name, e.g. usl")
    error = serializers.CharField(required=False, help_text="failed only: why")
    steady_stage = SteadyStageSerializer(required=False, help_text="ready only")
    trend_figures = TrendFiguresSerializer(required=False, help_text="ready only")
    computed_at = serializers.CharField(required=False, allow_null=True, help_text="ready only; ISO 8601")
    trend = TrendBadgeSerializer(
        required=False,
        allow_null=True,
        help_text="ready only: did the test break its component's trend (null: no component)",
    )


class TrendBoundsSerializer(serializers.Serializer[Any]):
    """Only the bad side has a bound; both are null with too few earlier tests for a baseline."""

    lower = serializers.FloatField(allow_null=True)
    upper = serializers.FloatField(allow_null=True)


class TrendTestSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    ts = serializers.IntegerField(help_text="the test's start, unix s")
    value = serializers.FloatField(help_text="the figure, in the answer's unit")
    broke_trend = serializers.BooleanField()
    reasons = serializers.ListField(child=serializers.CharField())
    baseline = serializers.FloatField(allow_null=True, help_text="median of the earlier tests it is judged against")
    thresholds = TrendBoundsSerializer()


class ChangePointSerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField(help_text="into tests")
    test_id = serializers.IntegerField()
    ts = serializers.IntegerField(help_text="unix s")


class NextThresholdsSerializer(serializers.Serializer[Any]):
    """What the next test will be judged against; an empty object when the component has no test with the figure."""

    baseline = serializers.FloatField(required=False, allow_null=True, help_text="null: too few tests for one")
    lower = serializers.FloatField(required=False, allow_null=True)
    upper = serializers.FloatField(required=False, allow_null=True)
    direction = serializers.ChoiceField(choices=list(get_args(Direction)), required=False)


class TrendAnswerSerializer(serializers.Serializer[Any]):
    """A figure across a component's tests (oldest first, those the caller may read)."""

    component = serializers.CharField()
    figure_name = serializers.ChoiceField(choices=list(FIGURES))
    unit = serializers.CharField(allow_blank=True, help_text='ms, RPS, or "" for a share (0..1)')
    figure = FigureSerializer()
    tests = TrendTestSerializer(many=True)
    change_points = ChangePointSerializer(many=True)
    thresholds = NextThresholdsSerializer()
