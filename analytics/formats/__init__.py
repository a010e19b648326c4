"""Parsers of other load generators' result files, each giving what analytics.phout gives for phout.

`detect(head)` names the format of a file from its first bytes (decompressed); `parser_class(name)` gives its
parser. Sample formats (everything but Locust) yield `PhoutBatch`es through `read_from`, as PhoutParser does;
Locust's stats history has no single request and yields per-second tables (analytics/formats/locust.py).
"""

from __future__ import annotations

from analytics.formats.detect import ALIASES, FORMAT_NAMES, detect, parser_class, resolve

__all__ = ["ALIASES", "FORMAT_NAMES", "detect", "parser_class", "resolve"]
