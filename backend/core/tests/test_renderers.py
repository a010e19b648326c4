"""No answer carries NaN or Infinity (invalid JSON: a stored NaN made a test's tables fail for everyone)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from backend.core.renderers import FiniteJSONRenderer, NonFiniteNumber


def test_tests_refuse_loudly(settings: Any) -> None:
    settings.TANKODROM_JSON_NONFINITE_RAISES = True
    with pytest.raises(NonFiniteNumber):
        FiniteJSONRenderer().render({"mean_ms": float("nan")})


def test_production_answers_null_and_logs_the_error(settings: Any, caplog: pytest.LogCaptureFixture) -> None:
    settings.TANKODROM_JSON_NONFINITE_RAISES = False
    data = {"rows": [{"mean_ms": float("nan"), "q99": float("inf"), "n": 3}], "t": (float("-inf"), 1.5)}
    with caplog.at_level(logging.ERROR, logger="backend.core.renderers"):
        body = FiniteJSONRenderer().render(data)
    assert json.loads(body) == {"rows": [{"mean_ms": None, "q99": None, "n": 3}], "t": [None, 1.5]}
    assert b"NaN" not in body and b"Infinity" not in body
    assert "NaN or Infinity" in caplog.text


def test_the_api_uses_it(settings: Any) -> None:
    assert settings.REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"] == ["backend.core.renderers.FiniteJSONRenderer"]
