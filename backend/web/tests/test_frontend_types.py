"""The frontend's generated API types (frontend/src/api/schema.d.ts) describe the schemas the app serves now.

Only the schemas the pages use (`Schemas["X"]` in frontend/src/api/types.ts) are compared, field names and which
are required: a serializer change that the pages would read wrong fails here until `npm run api:types` is run.
"""

from __future__ import annotations

import re
from pathlib import Path

from drf_spectacular.generators import SchemaGenerator

FRONTEND_API = Path(__file__).resolve().parents[3] / "frontend" / "src" / "api"


def _ts_fields(text: str, name: str) -> dict[str, bool]:
    """Field name → required, of `name: { ... }` at the schemas' indentation of openapi-typescript's output."""
    match = re.search(rf"^        {name}: \{{\n(.*?)^        \}};", text, re.M | re.S)
    assert match, f"{name} is missing from schema.d.ts: run `cd frontend && npm run api:types`"
    fields = re.findall(r"^            (?:readonly )?(\w+)(\??):", match.group(1), re.M)
    return {field: optional == "" for field, optional in fields}


def test_generated_types_match_the_served_schema() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    generated = (FRONTEND_API / "schema.d.ts").read_text(encoding="utf-8")
    used = set(re.findall(r'Schemas\["(\w+)"\]', (FRONTEND_API / "types.ts").read_text(encoding="utf-8")))
    assert {"Test", "Note", "Tables", "Summary"} <= used
    for name in sorted(used):
        component = schema["components"]["schemas"][name]
        if "enum" in component:
            for value in component["enum"]:
                assert f'"{value}"' in generated, f"{name}: {value} (run `cd frontend && npm run api:types`)"
            continue
        served = {field: field in component.get("required", []) for field in component["properties"]}
        assert _ts_fields(generated, name) == served, f"{name} changed: run `cd frontend && npm run api:types`"


def test_the_served_schema_is_valid_openapi_3_0() -> None:
    """Client generators other than ours (openapi-generator, schemathesis) refuse an invalid document: no JSON
    Schema keyword that 3.0 lacks (type "null", propertyNames) may slip in."""
    from drf_spectacular.validation import validate_schema

    validate_schema(SchemaGenerator().get_schema(request=None, public=True))
