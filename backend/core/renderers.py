"""The API's JSON renderer: never NaN or Infinity on the wire (they are not JSON, and browsers' JSON.parse refuses
them, so one stored NaN made a page fail for everyone).

A figure that is not finite is a bug upstream (a parser or a computation let it through): with
TANKODROM_JSON_NONFINITE_RAISES (the test settings) rendering raises, so a test finds it; in production the answer
still goes out with null in its place, and the error is logged with the path so that it is found and fixed.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework.renderers import JSONRenderer

log = logging.getLogger(__name__)


class NonFiniteNumber(ValueError):
    """An answer held NaN or ±Infinity."""


def finite(data: Any) -> Any:
    """`data` with every non-finite float replaced by None (containers rebuilt only on the slow path)."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, Mapping):
        return {key: finite(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [finite(value) for value in data]
    return data


class FiniteJSONRenderer(JSONRenderer):
    strict = True  # json.dumps(allow_nan=False): a non-finite float raises instead of writing NaN

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        try:
            return bytes(super().render(data, accepted_media_type, renderer_context))
        except ValueError as exc:
            if "JSON compliant" not in str(exc):
                raise
            request = (renderer_context or {}).get("request")
            path = getattr(request, "path", "?")
            if settings.TANKODROM_JSON_NONFINITE_RAISES:
                raise NonFiniteNumber(f"the answer of {path} holds NaN or Infinity") from exc
            log.error("the answer of %s held NaN or Infinity: rendered as null", path)
            return bytes(super().render(finite(data), accepted_media_type, renderer_context))
