"""Shapes of the compare answer (`GET /api/v1/compare`, docs/compare.md "What you get"), for the OpenAPI schema.

Response-only: `service.build` makes the JSON (cached, and served as it was cached); these describe it, and the
compare page's types are generated from the description. Tables by level are keyed by the level in percent as
text ("99", "99.9") and hold one entry per test, the first test being the baseline.
"""

from __future__ import annotations

from typing import Any, get_args

from rest_framework import serializers

from analytics.compare import Verdict
from analytics.definitions import CODE_CLASSES
from backend.compare.service import ALIGNMENTS
from backend.reports.serializers import FigureSerializer

VERDICTS = list(get_args(Verdict))


def _verdicts(help_text: str) -> serializers.DictField:
    """level or code → per test: the verdict, null for the baseline and where nothing could be judged."""
    return serializers.DictField(
        child=serializers.ListField(child=serializers.ChoiceField(choices=VERDICTS, allow_null=True)),
        help_text=help_text,
    )


def _interval(help_text: str = "") -> serializers.ListField:
    return serializers.ListField(
        child=serializers.FloatField(), min_length=2, max_length=2, allow_null=True, help_text=help_text
    )


def _per_test(child: serializers.Field[Any, Any, Any, Any], help_text: str) -> serializers.DictField:
    return serializers.DictField(child=serializers.ListField(child=child), help_text=help_text)


def _values(help_text: str) -> serializers.DictField:
    return _per_test(serializers.FloatField(allow_null=True), help_text)


class QuantilesSerializer(serializers.Serializer[Any]):
    """The quantiles of each test and their differences from the baseline (the first test), by level.

    `diff_ms`/`diff_pct` are the whole test's difference, the figures shown beside the values. The verdict judges
    `change_pct`, the typical change of a stretch of seconds, whose interval `change_interval_pct` contains it; a
    `worse`/`better` level never has a `diff_pct` of the other sign (analytics/compare.py, docs/compare.md)."""

    count = serializers.ListField(child=serializers.IntegerField(), help_text="responses, per test")
    quantiles_ms = _values("ms; null: no responses in the window")
    diff_ms = _values("test minus baseline, whole test, ms")
    diff_pct = _values("test minus baseline, whole test, % of the baseline's value")
    change_pct = _values("the judged figure: the typical change of a stretch of seconds, %; null: not judged")
    change_interval_pct = _per_test(_interval(), "its interval, % ([low, high], containing change_pct)")
    verdict = _verdicts("better | worse | same; null for the baseline and where the level is not judged")
    verdict_notes = _per_test(
        serializers.CharField(allow_null=True), "why the level is not judged for a test (null where it is)"
    )
    warmup_s = serializers.ListField(
        child=serializers.IntegerField(), help_text="per test: first seconds left out of its verdicts as a warm-up"
    )


class CodeValuesSerializer(serializers.Serializer[Any]):
    """By code (as text) → per test; null where a test has no responses."""

    http = _values("HTTP codes")
    net = _values("net codes")


class CodeIntervalsSerializer(serializers.Serializer[Any]):
    """By code → per test: the interval of the share's difference from the baseline, [low, high]."""

    http = _per_test(_interval(), "HTTP codes")
    net = _per_test(_interval(), "net codes")


class CodeMeaningSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(help_text='e.g. "Service Unavailable", "Connection timed out"')
    class_ = serializers.ChoiceField(choices=list(CODE_CLASSES), help_text="analytics.definitions' class")

    def get_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().get_fields()
        fields["class"] = fields.pop("class_")
        return fields


class CodeMeaningsSerializer(serializers.Serializer[Any]):
    """By code (as text): what it means."""

    http = serializers.DictField(child=CodeMeaningSerializer())
    net = serializers.DictField(child=CodeMeaningSerializer())


class CodeVerdictsSerializer(serializers.Serializer[Any]):
    """By code → per test: better | worse | same (a failing code's share that grows is worse)."""

    http = _verdicts("HTTP codes")
    net = _verdicts("net codes")


class CasesSerializer(serializers.Serializer[Any]):
    selected = serializers.ListField(child=serializers.CharField(), help_text="the cases asked for (none: all)")
    common = serializers.ListField(child=serializers.CharField(), help_text="compared one by one in per_case")
    only_in = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), help_text="by test id: its cases the others lack"
    )


class ByLoadSerializer(serializers.Serializer[Any]):
    """Ramps compared band by band of common RPS; tables by level, then [test][band]."""

    rps = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2),
        help_text="each band's [low, high] responses per second",
    )
    quantiles_ms = _per_test(serializers.ListField(child=serializers.FloatField(allow_null=True)), "ms")
    diff_ms = _per_test(serializers.ListField(child=serializers.FloatField(allow_null=True)), "test minus baseline, ms")
    diff_pct = _per_test(serializers.ListField(child=serializers.FloatField(allow_null=True)), "the same in %")
    change_pct = _per_test(serializers.ListField(child=serializers.FloatField(allow_null=True)), "judged change, %")
    change_interval_pct = _per_test(serializers.ListField(child=_interval()), "its interval, %")
    verdict = _per_test(
        serializers.ListField(child=serializers.ChoiceField(choices=VERDICTS, allow_null=True)),
        "better | worse | same; null: not judged",
    )
    verdict_notes = _per_test(
        serializers.ListField(child=serializers.CharField(allow_null=True)), "why a band's level is not judged"
    )


class CompareFiguresSerializer(serializers.Serializer[Any]):
    quantiles = FigureSerializer(help_text="quantiles over seconds from each test's start")
    distribution = FigureSerializer(help_text="response time distributions")
    quantiles_by_load = FigureSerializer(required=False, help_text="ramps only: quantiles by RPS band")


class CompareAnswerSerializer(QuantilesSerializer):
    """Tests compared with the first (the baseline) over one window: quantiles, codes, cases, ramps by load."""

    tests = serializers.ListField(child=serializers.IntegerField(), help_text="as asked; the first is the baseline")
    align = serializers.ChoiceField(choices=list(ALIGNMENTS))
    from_ = serializers.IntegerField(allow_null=True, help_text="as asked: s from each start (align=start) or unix s")
    to = serializers.IntegerField(allow_null=True, help_text="as asked, exclusive")
    windows = serializers.ListField(
        child=serializers.ListField(
            child=serializers.IntegerField(allow_null=True), min_length=2, max_length=2, help_text="null: open"
        ),
        help_text="per test: the window read, [from, to) in unix s",
    )
    starts = serializers.ListField(
        child=serializers.IntegerField(allow_null=True), help_text="per test: its first second, unix s (null: no data)"
    )
    exact = serializers.ListField(
        child=serializers.BooleanField(), help_text="per test: order statistics of raw samples, or merged histograms"
    )
    http_codes = _per_test(serializers.IntegerField(), "by HTTP code: responses per test")
    net_codes = _per_test(serializers.IntegerField(), "by net code: responses per test")
    code_meaning = CodeMeaningsSerializer()
    code_share = CodeValuesSerializer(help_text="each code's share of the test's responses, 0..1")
    code_share_diff = CodeValuesSerializer(help_text="test minus baseline, share")
    code_share_interval = CodeIntervalsSerializer()
    code_verdicts = CodeVerdictsSerializer()
    cases = CasesSerializer()
    per_case = serializers.DictField(child=QuantilesSerializer(), help_text="by case: the cases common to all tests")
    by_load = ByLoadSerializer(allow_null=True, help_text="null unless a test is a ramp")
    figures = CompareFiguresSerializer()
    summary = serializers.ListField(
        child=serializers.CharField(), help_text="per compared test (the second on): the comparison in one line"
    )
    method = serializers.CharField(help_text="how the verdicts are reached, in words")
    url = serializers.CharField(help_text="the compare page of this comparison")

    def get_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().get_fields()
        return {"from" if name == "from_" else name: field for name, field in fields.items()}


class ComparePendingSerializer(serializers.Serializer[Any]):
    """The comparison is being computed: ask the same URL again after `retry_after_s`."""

    status = serializers.ChoiceField(choices=["pending"])
    retry_after_s = serializers.IntegerField(help_text="s (also the Retry-After header)")
