"""The JSON parser of the DRF API: DRF's, plus the limits that keep hostile JSON out of the code behind it.

- Nesting: a body nested deeper than MAX_DEPTH is a 400. Python's decoder recurses once per level and fails with a
  RecursionError (a 500) near 1000 levels; anything deeper than a few levels is no request of ours anyway, and the
  code behind (serializers, JSONField, the renderer) recurses too.
- Text: NUL characters and lone surrogates (`"\\ud800"`, which JSON allows) cannot be stored by PostgreSQL nor
  encoded as UTF-8. The fields that store text refuse them, naming the field (backend/core/fields.py);
  `check_tree(..., text=True)` does the same for a whole value. Keys the view does not read are ignored, as the
  schema allows any.
- NaN and Infinity are refused (DRF's strict JSON): they are not JSON, and no stored number may be either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.utils.json import strict_constant

MAX_DEPTH = 32


def text_problem(value: str) -> str | None:
    """Why `value` cannot be stored as text, or None."""
    if "\x00" in value:
        return "must not contain NUL characters"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "must not contain lone surrogates (\\ud800-\\udfff without their pair)"
    return None


def _where(path: list[str | int]) -> str:
    return ".".join(str(part) for part in path) or "body"


def check_tree(data: Any, max_depth: int = MAX_DEPTH, *, text: bool = True) -> None:
    """ParseError naming the first place where `data` (decoded JSON) nests too deep or (with `text`) holds text that
    cannot be stored. Iterative, so that it is safe on any depth the decoder produced."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        value, path = stack.pop()
        if len(path) > max_depth:
            raise ParseError(f"JSON nested deeper than {max_depth} levels at {_where(path[:max_depth])}")
        if isinstance(value, str) and text:
            problem = text_problem(value)
            if problem:
                raise ParseError(f"{_where(path)}: {problem}")
        elif isinstance(value, Mapping):
            for key, item in value.items():
                problem = text_problem(str(key)) if text else None
                if problem:
                    raise ParseError(f"{_where(path)}: a key {problem}")
                stack.append((item, [*path, str(key)]))
        elif isinstance(value, list):
            stack.extend((item, [*path, index]) for index, item in enumerate(value))


def loads_checked(raw: bytes | str, max_depth: int = MAX_DEPTH, *, text: bool = True) -> Any:
    """`raw` as JSON, or ParseError saying what is wrong (never RecursionError or a decoding error)."""
    try:
        data = json.loads(raw, parse_constant=strict_constant)
    except RecursionError:
        raise ParseError(f"JSON nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, NaN/Infinity, integers of over 4300 digits
        raise ParseError(f"JSON parse error - {exc}") from None
    check_tree(data, max_depth, text=text)
    return data


class CheckedJSONParser(JSONParser):
    def parse(
        self, stream: IO[bytes], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        raw = stream.read() if stream is not None else b""
        encoding = str((parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET)
        try:
            "".encode(encoding)  # a text codec (a Content-Type charset of "zlib_codec" is not)
            text = raw.decode(encoding)
        except (LookupError, UnicodeError) as exc:
            raise ParseError(f"JSON parse error - the body is not {encoding}: {exc}") from None
        return loads_checked(text, text=False)
