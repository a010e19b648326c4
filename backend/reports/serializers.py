"""Serializers of the reports API: test metadata in and out, and the documented shapes of every report answer.

The response serializers describe the JSON for OpenAPI (the frontend's client follows the schema); views
return service dicts that have exactly these shapes.
"""

from __future__ import annotations

import keyword
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from analytics.definitions import CODE_CLASSES, OUTCOME_COUNTS
from analytics.diagnosis.loadscheme import LoadSchemeError, parse_load_scheme
from analytics.numbers import is_digits
from backend.core.fields import (
    JSONListField,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    strict_field_mapping,
)
from backend.loadtests.facts import StopFacts, stop_facts
from backend.loadtests.models import RUN_LABELS, RUN_OUTCOME, RUN_SETUP, Test, TestStatus
from backend.loadtests.permissions import can_write
from backend.projects.models import Visibility
from backend.reports import listing
from backend.reports.models import NOTE_MAX_LENGTH, TAG_MAX_LENGTH, TestNote, TestTag


class KeywordNamesSerializer(serializers.Serializer[Any]):
    """A field declared as `<keyword>_` (`class_`, `from_`) is named the keyword itself in the JSON: an answer may
    use a name that a Python attribute cannot have. It moves to the end of the fields, as the schema has it."""

    def get_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().get_fields()
        for name in [n for n in fields if n.endswith("_") and keyword.iskeyword(n[:-1])]:
            fields[name[:-1]] = fields.pop(name)
        return fields


class ResultSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=["ok", "errors", "stopped", "failed", "running", "processing"])
    text = serializers.CharField()


class TagsField(serializers.ListField):
    """A test's tags: written as a list of names, read from the related rows (prefetched by the list)."""

    def to_representation(self, data: Any) -> list[str]:
        return sorted(t.name for t in data.all()) if hasattr(data, "all") else sorted(data)


# Phantom's schedule syntax as validate_loadscheme reads it (analytics/diagnosis/loadscheme.py), in the bounds the
# schema generators keep to: rates of 6 digits (a step of at least 1, so that a step schedule has at most a million
# levels), durations of one unit. The server also takes a wider syntax and Pandora's dicts ({"type": "const", ...}),
# which the schema cannot describe without describing invalid ones too.
_RATE = "[0-9]{1,6}(\\.[0-9]{1,3})?"
_STEP = "[1-9][0-9]{0,5}(\\.[0-9]{1,3})?"
_DURATION = "[0-9]{1,6}(ms|s|m|h)?"
_ARGS = {"line": [_RATE, _RATE, _DURATION], "const": [_RATE, _DURATION], "step": [_RATE, _RATE, _STEP, _DURATION]}
_CALL = "|".join(f"{name}\\({', ?'.join(args)}\\)" for name, args in _ARGS.items())
SCHEDULE = f"^\\s*(({_CALL})\\s*)*$"


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "string", "pattern": SCHEDULE},
        "description": "the schedule, as the tank sent it: line(1,400,20s) const(400,20s) step(10,100,10,30s)",
    }
)
class LoadSchemeField(JSONListField):
    pass


HOST_MAX = Test._meta.get_field("target_host").max_length or 512
PORT_MAX = Test._meta.get_field("target_port").max_length or 32


class TestSerializer(serializers.ModelSerializer[Test]):
    """A test's metadata, status and sources. `target` ("host:port") is accepted as a shorthand on writes."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    serializer_field_mapping = strict_field_mapping()  # JSON types as the schema gives them (backend/core/fields.py)
    target = StrictCharField(required=False, allow_blank=True, help_text="host:port, or host (512 and 32 at most)")
    active_upload = serializers.IntegerField(source="active_upload_id", read_only=True, allow_null=True)
    can_write = serializers.SerializerMethodField(help_text="whether the caller may edit, star or delete it")
    stop_requested = serializers.SerializerMethodField(
        help_text="a stop was asked from the web (POST /api/v1/tests/<id>/stop) and the test is still online"
    )
    stopped_at = serializers.SerializerMethodField(
        help_text="when a stop was asked from the web, unix s (null: never); kept after the test closes"
    )
    stop_ends_shooting = serializers.SerializerMethodField(
        help_text="whether a stop ends the tank's shooting: its tank sends the status call (Lunapark mode). Else the"
        " tank shoots on to the end of its schedule and only its data is refused"
    )
    # JSON columns: checked as the JSON parser checks a body, also when sent as a form field; never null.
    loadscheme = LoadSchemeField(required=False)
    notify = JSONListField(required=False)
    tags = TagsField(
        child=StrictCharField(min_length=1, max_length=TAG_MAX_LENGTH),
        required=False,
        max_length=20,
        help_text="labels; a write replaces the whole list",
    )
    author = serializers.SerializerMethodField(
        help_text="the owner's username (the token that created the test), else `person` as the tank sent it"
    )
    q99_ms = serializers.SerializerMethodField(help_text="the whole test's q99, ms (null until processed)")
    max_rps = serializers.SerializerMethodField(help_text="the whole test's max RPS (the most held for 5 s)")
    error_share = serializers.SerializerMethodField(help_text="the whole test's failed requests / requests, 0..1")
    imbalance_rps = serializers.SerializerMethodField(help_text="the diagnosis' imbalance point, RPS (null: none)")
    result = serializers.SerializerMethodField()
    project: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="slug", read_only=True, help_text="the project's slug"
    )
    visibility = serializers.ChoiceField(
        choices=Visibility.choices,
        required=False,
        help_text="public: anyone with the link; internal: signed-in users; project: its members; owner: the owner",
    )
    is_private = StrictBooleanField(
        required=False,
        help_text="not public (the field from before visibilities): writing true makes a public test owner-only, "
        "false makes it public",
    )

    class Meta:
        model = Test
        fields = (
            "id",
            *RUN_LABELS,
            "target",
            *RUN_SETUP,
            "notify",
            *RUN_OUTCOME,
            "active_upload",
            "first_ts",
            "last_ts",
            "starred",
            "is_private",
            "visibility",
            "project",
            "owner",
            "created_at",
            "finished_at",
            "raw_expired_at",
            "aggregates_expired_at",
            "can_write",
            "stop_requested",
            "stopped_at",
            "stop_ends_shooting",
            "tags",
            "author",
            "q99_ms",
            "max_rps",
            "error_share",
            "imbalance_rps",
            "result",
        )
        read_only_fields = (
            "id",
            *RUN_OUTCOME,
            "first_ts",
            "last_ts",
            "created_at",
            "finished_at",
            "raw_expired_at",
            "aggregates_expired_at",
        )
        extra_kwargs = {
            "raw_expired_at": {"help_text": "when retention deleted the raw samples (quantiles from histograms since)"},
            "aggregates_expired_at": {
                "help_text": "when retention deleted the per-second aggregates and monitoring (stored figures only)"
            },
        }

    def _stop_facts(self, instance: Test) -> StopFacts:
        facts: dict[int, StopFacts] | None = getattr(self, "_stop_facts_of", None)
        if facts is None:  # once for a whole list (one child serializer serves every item), not once per test
            listed = getattr(self.parent, "instance", None) or [instance]
            facts = self._stop_facts_of = stop_facts([t.pk for t in listed])
        return facts.get(instance.pk) or StopFacts(None, False)

    def get_stop_requested(self, instance: Test) -> bool:
        return instance.status == TestStatus.ONLINE and self._stop_facts(instance).stopped_at is not None

    def get_stopped_at(self, instance: Test) -> float | None:
        stopped = self._stop_facts(instance).stopped_at
        return None if stopped is None else stopped.timestamp()

    def get_stop_ends_shooting(self, instance: Test) -> bool:
        return self._stop_facts(instance).ends_shooting

    def get_can_write(self, instance: Test) -> bool:
        request = self.context.get("request")
        return bool(request is not None and can_write(request.user, instance))

    def get_author(self, instance: Test) -> str:
        # The tank's `person` is its machine's OS user (root, tester): not who ran the test here.
        return instance.owner.username if instance.owner_id else instance.person

    def get_q99_ms(self, instance: Test) -> float | None:
        figures = listing.figures_of(instance)
        return figures.q99_ms if figures else None

    def get_max_rps(self, instance: Test) -> float | None:
        figures = listing.figures_of(instance)
        return figures.max_rps if figures else None

    def get_error_share(self, instance: Test) -> float | None:
        return listing.error_share_of(instance)

    def get_imbalance_rps(self, instance: Test) -> float | None:
        if hasattr(instance, "imbalance_rps"):  # annotated by the list's query
            value = instance.imbalance_rps
        else:
            analysis = getattr(instance, "analysis", None) if _has_analysis(instance) else None
            value = getattr(analysis, "imbalance_rps", None)
        return float(value) if value is not None else None

    @extend_schema_field(ResultSerializer)
    def get_result(self, instance: Test) -> dict[str, str]:
        return listing.result_of(instance)

    def create(self, validated_data: dict[str, Any]) -> Test:
        tags = validated_data.pop("tags", None)
        test = super().create(validated_data)
        if tags is not None:
            _set_tags(test, tags)
        return test

    def update(self, instance: Test, validated_data: dict[str, Any]) -> Test:
        tags = validated_data.pop("tags", None)
        test = super().update(instance, validated_data)
        if tags is not None:
            _set_tags(test, tags)
        return test

    def to_representation(self, instance: Test) -> dict[str, Any]:
        data: dict[str, Any] = super().to_representation(instance)
        host, port = instance.target_host, instance.target_port
        data["target"] = f"{host}:{port}" if host and port else host
        return data

    def validate_loadscheme(self, value: Any) -> Any:
        """A schedule in Phantom's or Pandora's syntax (a string, or a list of strings or dicts); 400 naming it if
        it cannot be read. One string is stored as a list of one, as the tank sends it."""
        if isinstance(value, str | dict):
            value = [value]
        try:
            parse_load_scheme(value)
        except LoadSchemeError as exc:
            raise serializers.ValidationError(str(exc)) from exc
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        private = attrs.pop("is_private", None)
        if private is not None and "visibility" not in attrs:
            current = self.instance.visibility if isinstance(self.instance, Test) else Visibility.PUBLIC
            if not private:
                attrs["visibility"] = Visibility.PUBLIC
            elif current == Visibility.PUBLIC:
                attrs["visibility"] = Visibility.OWNER
        target = attrs.pop("target", None)
        if target:
            host, sep, port = target.rpartition(":")
            if not (sep and is_digits(port)):
                host, port = target, ""
            if len(host) > HOST_MAX or len(port) > PORT_MAX:
                raise serializers.ValidationError({"target": f"host at most {HOST_MAX}, port at most {PORT_MAX} long"})
            attrs.setdefault("target_host", host)
            if port:
                attrs.setdefault("target_port", port)
        return attrs


def _has_analysis(test: Test) -> bool:
    try:
        return getattr(test, "analysis", None) is not None
    except ObjectDoesNotExist:  # a reverse one-to-one raises its model's DoesNotExist when there is none
        return False


def _set_tags(test: Test, tags: list[str]) -> None:
    wanted = {t.strip() for t in tags if t.strip()}
    TestTag.objects.filter(test=test).exclude(name__in=wanted).delete()
    have = set(TestTag.objects.filter(test=test).values_list("name", flat=True))
    TestTag.objects.bulk_create([TestTag(test=test, name=name) for name in sorted(wanted - have)])


class NoteSerializer(serializers.ModelSerializer[TestNote]):
    """A second of the test marked with a text."""

    author = serializers.CharField(source="author.username", read_only=True, allow_null=True, default=None)
    text = StrictCharField(min_length=1, max_length=NOTE_MAX_LENGTH, trim_whitespace=True)
    ts = StrictIntegerField(min_value=0, max_value=2**40, help_text="the marked second, unix s")
    can_delete = serializers.SerializerMethodField()

    class Meta:
        model = TestNote
        fields = ("id", "ts", "text", "author", "created_at", "can_delete")
        read_only_fields = ("id", "author", "created_at")

    def get_can_delete(self, instance: TestNote) -> bool:
        return bool(self.context.get("can_delete", {}).get(instance.pk, False))


class StarSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    starred = serializers.BooleanField()


class RpsSerializer(serializers.Serializer[Any]):
    mean = serializers.FloatField(help_text="responses over the seconds from the first response to the last")
    max = serializers.FloatField(help_text="the most held for 5 s: the largest median of 5 consecutive seconds")


class OutcomesSerializer(serializers.Serializer[Any]):
    """What became of the requests (analytics.definitions): counts, each with its share of all requests (0..1, full
    precision; null without requests)."""

    requests = serializers.IntegerField()

    def get_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().get_fields()
        for name, meaning in OUTCOME_COUNTS.items():
            fields[name] = serializers.IntegerField(help_text=meaning)
            fields[f"{name}_share"] = serializers.FloatField(allow_null=True, help_text=f"{name} / requests")
        return fields


class CodeRowSerializer(KeywordNamesSerializer):
    """One row of a codes table (analytics.definitions.code_rows)."""

    code = serializers.IntegerField()
    class_ = serializers.ChoiceField(
        choices=list(CODE_CLASSES), help_text="what the code means for the request (http_class / net_class)"
    )
    name = serializers.CharField(help_text='the meaning, e.g. "Service Unavailable", "Connection timed out"')
    count = serializers.IntegerField()
    share = serializers.FloatField(help_text="of all requests, 0..1")


class SummarySerializer(KeywordNamesSerializer):
    """contract.md's summary: cumulative figures of the window `[from, to)` and the selected cases."""

    test = serializers.IntegerField()
    from_ = serializers.IntegerField(allow_null=True)
    to = serializers.IntegerField(allow_null=True)
    cases = serializers.ListField(child=serializers.CharField())
    exact = serializers.BooleanField(help_text="true: order statistics of raw samples; false: merged histograms")
    count = serializers.IntegerField()
    quantiles_ms = serializers.DictField(child=serializers.FloatField(allow_null=True), help_text='{"99.9": 1520.5}')
    http_codes = serializers.DictField(child=serializers.IntegerField())
    net_codes = serializers.DictField(child=serializers.IntegerField())
    rps = RpsSerializer()
    outcomes = OutcomesSerializer()


class SourceSerializer(serializers.Serializer[Any]):
    source_id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=["stream", "upload"])
    first_ts = serializers.IntegerField()
    last_ts = serializers.IntegerField()
    active = serializers.BooleanField()


class ReportSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.CharField()
    exact = serializers.BooleanField()
    first_ts = serializers.IntegerField(allow_null=True)
    last_ts = serializers.IntegerField(allow_null=True)
    cases = serializers.ListField(child=serializers.CharField())
    sources = SourceSerializer(many=True)
    monitoring_hosts = serializers.ListField(child=serializers.CharField())
    compress_ratio = serializers.IntegerField(help_text="the automatic resolution of the whole test, s per point")
    charts = serializers.ListField(child=serializers.CharField())


class FigureSerializer(serializers.Serializer[Any]):
    """A Plotly figure: {"data": [traces], "layout": {...}}."""

    traces = serializers.ListField(child=serializers.DictField(), help_text="plotly traces")
    layout = serializers.DictField(help_text="plotly layout")

    def get_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().get_fields()
        fields["data"] = fields.pop("traces")  # `data` is a Serializer attribute
        fields["layout"] = fields.pop("layout")
        return fields


class ChartSerializer(serializers.Serializer[Any]):
    figure = FigureSerializer()
    compress_ratio = serializers.IntegerField(help_text="seconds per point actually used")


class QuantileRowSerializer(serializers.Serializer[Any]):
    level = serializers.CharField(help_text='percent, e.g. "99.9"')
    values = serializers.ListField(child=serializers.FloatField(allow_null=True), help_text="ms, one per column")


class QuantileTableSerializer(serializers.Serializer[Any]):
    columns = serializers.ListField(child=serializers.CharField(), help_text='"overall" then each case')
    rows = QuantileRowSerializer(many=True)


class IntervalRowSerializer(serializers.Serializer[Any]):
    from_ms = serializers.IntegerField(help_text="inclusive")
    to_ms = serializers.IntegerField(help_text="exclusive (the last interval, 300 s, inclusive)")
    count = serializers.IntegerField()
    share = serializers.FloatField(help_text="of the responses with a measured time, 0..1")


class CaseRowSerializer(serializers.Serializer[Any]):
    case = serializers.CharField()
    count = serializers.IntegerField()
    rps_mean = serializers.FloatField()
    rps_max = serializers.FloatField(help_text="the most held for 5 s (RpsSerializer.max)")
    mean_ms = serializers.FloatField(allow_null=True)
    outcomes = OutcomesSerializer()


class TablesSerializer(serializers.Serializer[Any]):
    exact = serializers.BooleanField()
    quantiles = QuantileTableSerializer()
    http_codes = CodeRowSerializer(many=True)
    net_codes = CodeRowSerializer(many=True)
    cases = CaseRowSerializer(many=True)
    intervals = IntervalRowSerializer(many=True, help_text="Overload's response-time intervals, empty ones left out")


class MonitoringGroupSerializer(serializers.Serializer[Any]):
    group = serializers.ChoiceField(choices=["cpu", "memory", "load", "network", "disk", "custom"])
    metrics = serializers.ListField(child=serializers.CharField())
    figure = FigureSerializer()


class MonitoringHostSerializer(serializers.Serializer[Any]):
    host = serializers.CharField()
    groups = MonitoringGroupSerializer(many=True)


class MonitoringSerializer(serializers.Serializer[Any]):
    compress_ratio = serializers.IntegerField()
    hosts = MonitoringHostSerializer(many=True)


class ConfigSerializer(serializers.Serializer[Any]):
    configinitial = serializers.CharField()
    configinfo = serializers.CharField()
    monitoringconfig = serializers.CharField()
