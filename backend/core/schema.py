"""drf-spectacular post-processing of the OpenAPI schema: what every operation shares, said once.

- Error answers. Every operation can answer `{"error": "..."}` with 400 (a bad parameter or body), 401 (a bad
  token: authentication runs before the view), 403, 404 (a missing test, or one the caller may not read) and 503
  (ClickHouse unavailable); writes also 429 (the write rate), and operations with a body 411, 413 and 415.
- Text. NUL cannot be stored or compared by PostgreSQL and is refused in any URL (backend/core/middleware.py) and
  in body fields (backend/core/fields.py, with lone surrogates): free-text parameters and body properties say so
  with a pattern.
"""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA_NAME = "Error"
ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {"type": "string", "description": "what is wrong, naming the field or parameter"},
        "details": {"description": "the same per field, when there are several"},
    },
    "required": ["error"],
}
COMMON_ERRORS = {
    "400": "bad parameter or body (named in `error`)",
    "401": "invalid or revoked API token, or credentials needed",
    "403": "the caller may not do this",
    "404": "no such test or object (a private test looks missing to those who may not read it)",
    "503": "storage temporarily unavailable, retry later",
}
WRITE_ERRORS = {"429": "too many writes; retry after the Retry-After header's seconds"}
BODY_ERRORS = {
    "411": "Content-Length required (chunked bodies are not read)",
    "413": "body over the size limit",
    "415": "unsupported Content-Type",
}
# No NUL and no lone surrogate (a code point of its own in Python's regex, which schemathesis uses). A URL cannot
# carry a lone surrogate (its UTF-8 would not decode), so parameters need only the first.
NO_BAD_TEXT = "^[^\\u0000\\ud800-\\udfff]*$"
NO_NUL = "^[^\\u0000]*$"
# Text DRF refuses when blank after trimming (a CharField with min_length=1 and trim_whitespace): not only spaces.
# Spaces as Python's str.strip() sees them (which the server uses), not as a pattern's \s: \x1c-\x1f and \x85
# are spaces to Python only, \ufeff to patterns only.
PY_SPACES = (
    "\\t\\n\\u000b\\u000c\\r\\u001c-\\u0020\\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
)
NON_BLANK = f"^[^\\u0000]*[^{PY_SPACES}\\u0000][^\\u0000]*$"
# A component's name in a URL (backend/regressions/views.py component_name: 1..256 characters, not only spaces).
COMPONENT_NAME = {"type": "string", "maxLength": 256, "pattern": NON_BLANK}
FILE_BODY = "text/tab-separated-values"  # result file uploads (backend/uploads/views.py)
# Answers about finished tests carry an ETag and answer 304 to it (backend/reports/cache.py).
REVALIDATED = ("/summary", "/report", "/charts/{name}", "/tables", "/monitoring", "/config", "/api/v1/compare")


def _error_response(description: str) -> dict[str, Any]:
    ref = {"$ref": f"#/components/schemas/{ERROR_SCHEMA_NAME}"}
    return {"description": description, "content": {"application/json": {"schema": ref}}}


def _free_text(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "string" and not ({"enum", "pattern", "format"} & set(schema))


def _text_pattern(schema: dict[str, Any]) -> str:
    return NON_BLANK if schema.get("minLength", 0) >= 1 else NO_NUL


def _has_required_fields(body: dict[str, Any], components: dict[str, Any]) -> bool:
    """Whether a JSON body must name some field (in every one of its shapes): then an empty body is refused."""

    def resolved(schema: dict[str, Any]) -> dict[str, Any]:
        ref = schema.get("$ref", "")
        return components.get(ref.rsplit("/", 1)[1], {}) if ref.startswith("#/components/schemas/") else schema

    def requires(schema: dict[str, Any]) -> bool:
        schema = resolved(schema)
        if "oneOf" in schema:
            return all(requires(shape) for shape in schema["oneOf"])
        properties = schema.get("properties", {})
        return any(not properties.get(name, {}).get("readOnly") for name in schema.get("required", []))

    return requires(body.get("content", {}).get("application/json", {}).get("schema", {}))


def add_common_errors(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    components = result.setdefault("components", {}).setdefault("schemas", {})
    for component in components.values():  # text properties of bodies, as the strict fields check them
        for prop in component.get("properties", {}).values():
            if prop.get("readOnly"):
                continue
            for text in (prop, prop.get("items", {})):
                if _free_text(text):
                    text["pattern"] = _text_pattern(text)
    components[ERROR_SCHEMA_NAME] = ERROR_SCHEMA
    for path, path_item in result.get("paths", {}).items():
        for method, operation in path_item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            if method == "get" and path.endswith(REVALIDATED):
                operation["responses"].setdefault(
                    "304", {"description": "not modified: the If-None-Match ETag is current (finished tests only)"}
                )
            errors = dict(COMMON_ERRORS)
            if method in ("post", "put", "patch", "delete"):
                errors.update(WRITE_ERRORS)
            if "requestBody" in operation:
                errors.update(BODY_ERRORS)
                body = operation["requestBody"]
                if FILE_BODY in body.get("content", {}) or _has_required_fields(body, components):
                    body["required"] = True  # an empty file is refused, and so is a missing body with fields required
            for status, description in errors.items():
                operation["responses"].setdefault(status, _error_response(description))
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                if path.startswith("/api/v1/components/{name}") and parameter.get("name") == "name":
                    schema.update(COMPONENT_NAME)
                if _free_text(schema):
                    schema["pattern"] = NO_NUL
                items = schema.get("items", {})
                if schema.get("type") == "array" and _free_text(items):
                    items["pattern"] = NO_NUL
    return result


# Query parameters several apps share, described as the server parses them. An empty value means "not given".
def _or_empty(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "string", "enum": [""]}]}


UNIX_SECONDS = _or_empty({"type": "number", "minimum": 0, "maximum": 2**32 - 1})
WHOLE_UNIX_SECONDS = _or_empty({"type": "integer", "minimum": 0, "maximum": 2**32 - 1})
PERCENTS = {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 100}, "maxItems": 30}
CASES = {"type": "array", "items": {"type": "string", "pattern": "^[^,\\u0000]*$"}, "maxItems": 100}
COMPRESS_RATIO = {
    "anyOf": [{"type": "integer", "minimum": 1, "maximum": 86_400}, {"type": "string", "enum": ["auto", ""]}]
}
