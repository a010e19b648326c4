"""Which generator wrote a file, from its first bytes (after gzip): each format's own first line or element.

- `\\x00` first: Gatling 3.13+'s binary simulation.log (its RUN record's header);
- `<?xml` / `<testResults`: JMeter XML JTL;
- a JSON object with `"type"` `"Metric"`/`"Point"`: k6 `--out json`;
- a CSV header `metric_name,timestamp,metric_value,...`: k6 `--out csv`;
- a CSV header `Timestamp,User Count,Type,Name,...` (or Locust's `Type,Name,...` summary, refused by name): Locust;
- a header naming `timeStamp` and `elapsed`: JMeter CSV JTL;
- a first record `RUN`, `USER`, `REQUEST`, `GROUP`, `ERROR` or `ASSERTION` followed by a tab: Gatling 3.x text;
- anything else: phout (whose parser then judges it line by line, as before).
"""

from __future__ import annotations

from typing import Any

from analytics.formats.base import RecordParser
from analytics.formats.gatling import GatlingParser
from analytics.formats.gatling_binary import GatlingBinaryParser
from analytics.formats.jtl_csv import JtlCsvParser, header_fields
from analytics.formats.jtl_xml import JtlXmlParser
from analytics.formats.k6 import CSV_HEAD, K6CsvParser, K6JsonParser
from analytics.formats.locust import HEADER_START, LocustParser
from analytics.phout import PhoutParser

PHOUT = "phout"
_PARSERS: dict[str, type[RecordParser]] = {
    parser.name: parser
    for parser in (
        JtlCsvParser,
        JtlXmlParser,
        K6JsonParser,
        K6CsvParser,
        GatlingParser,
        GatlingBinaryParser,
        LocustParser,
    )
}
FORMAT_NAMES: tuple[str, ...] = (PHOUT, *_PARSERS)
# Names of a family: the member the content shows, else the first. `gatling` is also the text log's own name (the
# format uploads of it were recorded as), and as a family it takes the binary log too.
FAMILIES: dict[str, tuple[str, ...]] = {
    "gatling": ("gatling", "gatling-binary"),
    "jtl": ("jmeter-csv", "jmeter-xml"),
    "jmeter": ("jmeter-csv", "jmeter-xml"),
    "k6": ("k6-json", "k6-csv"),
    "pandora": (PHOUT,),
    "tank": (PHOUT,),
}
ALIASES = {name: members for name, members in FAMILIES.items() if name not in _PARSERS}
GATLING_RECORDS = (b"RUN\t", b"USER\t", b"REQUEST\t", b"GROUP\t", b"ERROR\t", b"ASSERTION\t")


def detect(head: bytes) -> str:
    """The format of a file that starts with these (decompressed) bytes."""
    if head[:1] == b"\x00":
        return "gatling-binary"
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith((b"<?xml", b"<testResults")):
        return "jmeter-xml"
    first = text.split(b"\n", 1)[0].rstrip(b"\r")
    if first.startswith(b"{") and b'"type"' in first and (b'"Metric"' in first or b'"Point"' in first):
        return "k6-json"
    if first.startswith(GATLING_RECORDS):
        return "gatling"
    line = first.decode("utf-8", errors="replace")
    unquoted = line.replace('"', "")
    if unquoted.startswith(",".join(CSV_HEAD)):
        return "k6-csv"
    if unquoted.startswith(",".join(HEADER_START)) or unquoted.startswith("Type,Name,Request Count"):
        return "locust"
    if "timeStamp" in line and header_fields(line) is not None:
        return "jmeter-csv"
    return PHOUT


def resolve(requested: str | None, detected: str) -> str:
    """The format to read a file with: the one asked for (a family name picks its member the content shows)."""
    if not requested:
        return detected
    family = FAMILIES.get(requested)
    if family is None:
        return requested
    return detected if detected in family else family[0]


def known(name: str) -> bool:
    return name in FORMAT_NAMES or name in ALIASES


def parser_class(name: str) -> Any:
    """PhoutParser or the format's RecordParser subclass (same interface: read_from, stats, cases)."""
    return PhoutParser if name == PHOUT else _PARSERS[name]
