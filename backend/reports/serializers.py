"""Serializers of the reports API: test metadata in and out, and the documented shapes of every report answer.

The response serializers describe the JSON for OpenAPI (the frontend's client follows the schema); views
return service dicts that have exactly these shapes.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from backend.core.fields import JSONListField, StrictCharField, strict_field_mapping
from backend.loadtests.models import Test
from backend.loadtests.permissions import can_write

HOST_MAX = Test._meta.get_field("target_host").max_length or 512
PORT_MAX = Test._meta.get_field("target_port").max_length or 32


class TestSerializer(serializers.ModelSerializer[Test]):
    """A test's metadata, status and sources. `target` ("host:port") is accepted as a shorthand on writes."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    serializer_field_mapping = strict_field_mapping()  # JSON types as the schema gives them (backend/core/fields.py)
    target = StrictCharField(required=False, allow_blank=True, help_text="host:port, or host (512 and 32 at most)")
    active_upload = serializers.IntegerField(source="active_upload_id", read_only=True, allow_null=True)
    can_write = serializers.SerializerMethodField(help_text="whether the caller may edit, star or delete it")
    # JSON columns: checked as the JSON parser checks a body, also when sent as a form field; never null.
    loadscheme = JSONListField(required=False, help_text="as the tank sent it (list of str or dicts)")
    notify = JSONListField(required=False)

    class Meta:
        model = Test
        fields = (
            "id",
            "name",
            "description",
            "task",
            "person",
            "component",
            "version",
            "target",
            "target_host",
            "target_port",
            "tank_host",
            "command_line",
            "ammo",
            "loop",
            "instances",
            "loadscheme",
            "notify",
            "status",
            "error",
            "exit_code",
            "exit_reason",
            "closed_by_silence",
            "has_stream",
            "active_upload",
            "first_ts",
            "last_ts",
            "starred",
            "is_private",
            "owner",
            "created_at",
            "finished_at",
            "can_write",
        )
        read_only_fields = (
            "id",
            "status",
            "error",
            "exit_code",
            "exit_reason",
            "closed_by_silence",
            "has_stream",
            "first_ts",
            "last_ts",
            "created_at",
            "finished_at",
        )

    def get_can_write(self, instance: Test) -> bool:
        request = self.context.get("request")
        return bool(request is not None and can_write(request.user, instance))

    def to_representation(self, instance: Test) -> dict[str, Any]:
        data: dict[str, Any] = super().to_representation(instance)
        host, port = instance.target_host, instance.target_port
        data["target"] = f"{host}:{port}" if host and port else host
        return data

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        target = attrs.pop("target", None)
        if target:
            host, sep, port = target.rpartition(":")
            if not (sep and port.isdigit()):
                host, port = target, ""
            if len(host) > HOST_MAX or len(port) > PORT_MAX:
                raise serializers.ValidationError({"target": f"host at most {HOST_MAX}, port at most {PORT_MAX} long"})
            attrs.setdefault("target_host", host)
            if port:
                attrs.setdefault("target_port", port)
        return attrs


class StarSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    starred = serializers.BooleanField()


class RpsSerializer(serializers.Serializer[Any]):
    mean = serializers.FloatField()
    max = serializers.IntegerField()


class SummarySerializer(serializers.Serializer[Any]):
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

    def get_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().get_fields()
        fields["from"] = fields.pop("from_")  # `from` is a Python keyword
        return fields


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


class HttpCodeRowSerializer(serializers.Serializer[Any]):
    code = serializers.IntegerField()
    count = serializers.IntegerField()
    percent = serializers.FloatField()


class NetCodeRowSerializer(HttpCodeRowSerializer):
    name = serializers.CharField()


class CaseRowSerializer(serializers.Serializer[Any]):
    case = serializers.CharField()
    count = serializers.IntegerField()
    rps_mean = serializers.FloatField()
    rps_max = serializers.IntegerField()
    mean_ms = serializers.FloatField(allow_null=True)
    net_errors = serializers.IntegerField(help_text="responses with a net code other than 0")
    http_errors = serializers.IntegerField(help_text="responses with HTTP code 0 (none) or >= 400")


class TablesSerializer(serializers.Serializer[Any]):
    exact = serializers.BooleanField()
    quantiles = QuantileTableSerializer()
    http_codes = HttpCodeRowSerializer(many=True)
    net_codes = NetCodeRowSerializer(many=True)
    cases = CaseRowSerializer(many=True)


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
