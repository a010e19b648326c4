"""JMeter JTL in XML (`jmeter.save.saveservice.output_format=xml`), read as a stream by expat.

`<testResults version="1.2">` holds one element per sample, `<httpSample>` for HTTP samplers and `<sample>` for
others (transaction controllers among them), whose attributes are the saved fields (apache/jmeter
src/core/.../save/converters/SampleResultConverter.java: t elapsed, lt latency, ct connect, it idle, ts timestamp,
s success, lb label, rc response code, rm message, tn thread, dt data type, by bytes, sby sent bytes, ng/na
threads). Sub-results are the same elements nested inside their parent (`jmeter.save.saveservice.subresults`):
they are parts of the parent's request, not requests of their own, so only the elements directly under
`<testResults>` count. JMeter stopped mid-run leaves the file without its closing tag: that is accepted.

The mapping is the CSV JTL's (analytics/formats/jtl_csv.py, docs/formats.md): `na` (allThreads), else `ng`
(grpThreads) per thread group of `tn`, → the active instances of the sample's end second.
"""

from __future__ import annotations

from typing import Any, ClassVar
from xml.parsers import expat

from analytics.formats.base import RecordParser, Rows
from analytics.formats.jtl_csv import JtlFields, ThreadCounts, add_sample, jtl_int
from analytics.numbers import NotANumber
from analytics.schema.samples import PhoutBatch

SAMPLE_ELEMENTS = frozenset({"httpSample", "sample"})
ROOT = "testResults"
# expat's complaints about a file that merely stops early (JMeter killed before it wrote the closing tag).
TRUNCATION_ERRORS = frozenset(
    expat.errors.codes[message]
    for message in (expat.errors.XML_ERROR_NO_ELEMENTS, expat.errors.XML_ERROR_UNCLOSED_TOKEN)
)
# The CSV's fields (jtl_csv.FIELDS) as SampleResultConverter names the attributes, in JtlFields' order.
FIELDS = JtlFields("ts", "t", "ct", "lt", "sby", "by", "rc", "lb", "na", "ng", "tn")


class JtlXmlParser(RecordParser):
    name: ClassVar[str] = "jmeter-xml"
    title: ClassVar[str] = "a JMeter XML JTL"
    shape: ClassVar[str] = "<httpSample>/<sample> elements of <testResults>"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._expat = expat.ParserCreate()
        self._expat.StartElementHandler = self._start
        self._expat.EndElementHandler = self._end
        self._depth = 0
        self._rows = Rows()
        self._root_seen = False
        self._threads = ThreadCounts(self.instances)

    def feed(self, data: bytes | bytearray | memoryview) -> list[PhoutBatch]:
        if self.fatal:
            return []
        try:
            self._expat.Parse(bytes(data), False)
        except expat.ExpatError as exc:
            self._refuse(exc)
        return self._batch()

    def finish(self) -> list[PhoutBatch]:
        if self.fatal:
            return []
        try:
            self._expat.Parse(b"", True)
        except expat.ExpatError as exc:
            if exc.code not in TRUNCATION_ERRORS or not self._root_seen:
                self._refuse(exc)
        return self._batch()

    def _refuse(self, exc: expat.ExpatError) -> None:
        self.fatal = f"this is not well-formed XML at line {exc.lineno}: {expat.errors.messages[exc.code]}"

    def _batch(self) -> list[PhoutBatch]:
        rows, self._rows = self._rows, Rows()
        batch = rows.batch()
        return [] if batch is None else [batch]

    def _start(self, name: str, attributes: dict[str, str]) -> None:
        self._depth += 1
        if self._depth == 1:
            if name != ROOT:
                self.fatal = f"this does not look like a JMeter XML JTL: its root element is <{name}>, not <{ROOT}>"
                self._expat.StartElementHandler = None
            self._root_seen = True
            return
        if self._depth != 2 or name not in SAMPLE_ELEMENTS:
            return  # a sub-result, an assertion result, response data: parts of the sample above
        line_no = self._expat.CurrentLineNumber
        self.stats.lines_total += 1
        reason = self._sample(attributes)
        if reason is not None:
            shown = " ".join(f'{k}="{v}"' for k, v in attributes.items())
            self.bad(line_no, reason, f"<{name} {shown}>")

    def _end(self, name: str) -> None:
        self._depth -= 1

    def _sample(self, attributes: dict[str, str]) -> str | None:
        values: dict[str, int] = {}
        for key in FIELDS.ints:
            raw = attributes.get(key)
            if raw is None:
                continue
            try:
                values[key] = jtl_int(raw, key)
            except NotANumber as exc:
                return f"attribute {key}={raw[:40]!r}: {exc}"
        if "ts" not in values or "t" not in values:
            return "a sample without its ts (time stamp) and t (elapsed) attributes"
        elapsed = values["t"]
        if elapsed < 0:
            return f"t {elapsed} is negative"
        success_flag = attributes.get("s", "true")
        if success_flag not in ("true", "false"):
            return f"s {success_flag[:40]!r} is neither true nor false"
        return add_sample(self, self._rows, self._threads, FIELDS, values, attributes, success_flag == "true")
