"""Serializer fields shared by the API's apps."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ParseError

from backend.core.parsers import check_tree, loads_checked, text_problem
from backend.core.schema import NO_NUL


class CheckedJSONField(serializers.JSONField):
    """A JSON value held by a JSON column: the parser's limits (depth, no NUL or lone surrogates) also apply when it
    arrives as a form field's text, which DRF decodes itself; null is refused unless allowed (the column is NOT
    NULL, and null would fail there as a 500)."""

    def to_internal_value(self, data: Any) -> Any:
        try:
            if getattr(data, "is_json_string", False):
                value = loads_checked(str(data))
            else:
                check_tree(data)
                value = data
        except ParseError as exc:
            raise serializers.ValidationError(str(exc.detail)) from None
        if value is None and not self.allow_null:
            raise serializers.ValidationError("must not be null")
        return super().to_internal_value(value)


TEXT = {"type": "string", "pattern": NO_NUL}
# OpenAPI 3.0 has no type "null": a null is allowed by `nullable` (schemathesis and openapi-typescript read it so).
SCALAR_SHAPES: list[dict[str, str]] = [TEXT, {"type": "number"}, {"type": "boolean"}]
SCALAR = {"anyOf": SCALAR_SHAPES, "nullable": True}
# Keys may not hold a NUL either (PostgreSQL's JSON cannot store one), which OpenAPI 3.0 cannot say (no propertyNames).
FLAT_OBJECT = {"type": "object", "additionalProperties": SCALAR}


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


@extend_schema_field({"type": "array", "items": {"anyOf": [*SCALAR_SHAPES, FLAT_OBJECT], "nullable": True}})
class JSONListField(CheckedJSONField):
    """A list of scalars or of flat objects of scalars (the tank's loadscheme: strings, or dicts of one step)."""

    def to_internal_value(self, data: Any) -> Any:
        value = super().to_internal_value(data)
        if not isinstance(value, list):
            raise serializers.ValidationError("must be a JSON list")
        for index, item in enumerate(value):
            flat = isinstance(item, dict) and all(_scalar(v) for v in item.values())
            if not (_scalar(item) or flat):
                raise serializers.ValidationError(f"item {index}: a string, number, boolean, null or flat object")
        return value


# JSON-typed scalars. DRF's fields coerce (`"name": 0` becomes "0", `"is_private": "yes"` becomes true, `"instances":
# "12"` becomes 12), so a body the schema calls invalid is accepted. The API takes JSON only: each value must already
# have the type the schema gives it.


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        problem = text_problem(data)
        if problem:
            raise serializers.ValidationError(problem)
        return str(super().to_internal_value(data))


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


def strict_field_mapping() -> dict[Any, Any]:
    """ModelSerializer.serializer_field_mapping with the strict scalars."""
    from django.db import models

    mapping = dict(serializers.ModelSerializer.serializer_field_mapping)
    mapping[models.CharField] = StrictCharField
    mapping[models.TextField] = StrictCharField
    for model_field in (
        models.IntegerField,
        models.BigIntegerField,
        models.SmallIntegerField,
        models.PositiveIntegerField,
        models.PositiveSmallIntegerField,
        models.PositiveBigIntegerField,
    ):
        mapping[model_field] = StrictIntegerField
    mapping[models.BooleanField] = StrictBooleanField
    return mapping


class ErrorSerializer(serializers.Serializer[Any]):
    """The body of every error answer, `{"error": "..."}` (its schema: backend/core/schema.py)."""

    error = serializers.CharField()
