"""Automatic diagnosis of a load test: the reasoning an engineer does by eye, done for every test.

Pure and typed: numpy arrays in (per-second series, monitoring, the load scheme), dataclasses out (findings with
their evidence and chart annotations). `engine.diagnose` is the entry point; `trend` works across the tests of a
component. No Django, no driver, no I/O.
"""

from analytics.diagnosis.engine import DiagnosisInput, DiagnosisResult, diagnose
from analytics.diagnosis.types import Annotation, Finding, MonitoringSeries, TestSeries

__all__ = [
    "Annotation",
    "DiagnosisInput",
    "DiagnosisResult",
    "Finding",
    "MonitoringSeries",
    "TestSeries",
    "diagnose",
]
