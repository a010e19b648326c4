"""Is an API answer what the OpenAPI schema says it is? The schema drf-spectacular serves (`/api/schema/`), for the
answer's operation and status code, read as JSON Schema and checked with `jsonschema`.

Stricter than the schema itself in one way: every object the schema describes is closed (a field it does not name
is an error), so a test on real data fails both on a field described wrong and on a field left undescribed. A
free-form answer (an object of anything) is refused: it would prove nothing.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema
from drf_spectacular.generators import SchemaGenerator

SCHEMA_LISTS = ("oneOf", "anyOf", "allOf")
REF_PREFIX = "#/components/schemas/"


@cache
def _openapi() -> dict[str, Any]:
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


def _json_schema(node: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI 3.0's schema object as JSON Schema 2020-12: `nullable` becomes a null alternative, objects with
    properties are closed. Only schema-valued keywords are walked (not `enum`, `default`, `example`)."""
    out = {key: value for key, value in node.items() if key != "nullable"}
    if "properties" in out:
        out["properties"] = {name: _json_schema(prop) for name, prop in out["properties"].items()}
        out.setdefault("additionalProperties", False)
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _json_schema(out["additionalProperties"])
    if isinstance(out.get("items"), dict):
        out["items"] = _json_schema(out["items"])
    for key in SCHEMA_LISTS:
        if key in out:
            out[key] = [_json_schema(shape) for shape in out[key]]
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def _free_form(schema: dict[str, Any], components: dict[str, Any]) -> bool:
    """An object of anything (or no schema at all), after following a reference and a list's items."""
    ref = schema.get("$ref", "")
    if ref.startswith(REF_PREFIX):
        return _free_form(components[ref.removeprefix(REF_PREFIX)], components)
    if schema.get("type") == "array":
        return _free_form(schema.get("items", {}), components)
    if any(key in schema for key in ("properties", "enum", *SCHEMA_LISTS)):
        return False
    return schema.get("type") in (None, "object") and schema.get("additionalProperties", True) in (True, {})


def assert_answer_in_schema(response: Any, path: str, method: str = "get") -> None:
    """`response` (a test client's) is an answer of the operation `method` `path` (the schema's path, e.g.
    "/api/v1/tests/{test_id}/analysis") with its status code and JSON exactly as the schema describes them."""
    openapi = _openapi()
    components = openapi["components"]["schemas"]
    answers = openapi["paths"][path][method]["responses"]
    where = f"{method.upper()} {path} {response.status_code}"
    assert str(response.status_code) in answers, f"{where}: the schema does not list this status"
    schema = answers[str(response.status_code)]["content"]["application/json"]["schema"]
    assert not _free_form(schema, components), f"{where}: the schema says only 'an object'"
    root = {
        **_json_schema(schema),
        "components": {"schemas": {name: _json_schema(shape) for name, shape in components.items()}},
    }
    validator = jsonschema.Draft202012Validator(root)
    errors = [f"{e.json_path}: {e.message}"[:300] for e in validator.iter_errors(response.json())]
    assert not errors, f"{where}: the answer is not what the schema says:\n" + "\n".join(errors[:20])
