"""Gatling's `simulation.log` of the 3.x text formats (3.0 to 3.12); 3.13+'s binary log: gatling_binary.py.

Tab-separated records, the first field naming the kind (gatling/gatling gatling-core .../stats/writer/
LogFileDataWriter.scala and RawRecords.scala at each tag):
- `RUN  simulationClass  simulationId  start_ms  description  gatlingVersion` (all 3.x);
- 3.0–3.3 (v3.1.2, v3.3.1): `REQUEST  userId  groups  name  start_ms  end_ms  OK|KO  message` (8 fields),
  `USER  scenario  userId  START|END  sessionStart_ms  timestamp_ms` (6);
- 3.4+ (v3.4.2 to v3.12.x: user ids dropped): `REQUEST  groups  name  start_ms  end_ms  OK|KO  message` (7),
  `USER  scenario  START|END  timestamp_ms` (4);
- `GROUP ...`, `ERROR  message  timestamp_ms`, `ASSERTION ...`: valid records that make no request.
An empty message is written as a single space; groups are joined with ','.
Gatling 3.13 replaced the text log with a binary one (commit efd3ec7 "switch to a binary log file"): its first byte
is the RUN record's header, 0, and analytics/formats/gatling_binary.py reads it (format `gatling-binary`; the name
`gatling` picks whichever of the two the content is).

Mapping (docs/formats.md): the request name → case (under its groups: `group / name`); start → send time;
end − start → interval_real; OK → HTTP 200 unless the message says otherwise; KO → the HTTP code a failed status
check names (`... but actually found 500`), or the net code of a connection failure named in the message
(`ConnectException`, `timeout`...), else net code 999. USER START and END records (their last field is the
event's time) → the active users of each second (analytics/formats/instances.py), as Gatling's "active users".
"""

from __future__ import annotations

import re
from typing import ClassVar

from analytics.formats.base import (
    RecordParser,
    Rows,
    request_ints,
    split_lines,
)
from analytics.numbers import NotANumber, parse_int
from analytics.schema.codes import UNKNOWN_NET_CODE, Errno
from analytics.schema.samples import MAX_RECEIVE_SEC, PhoutBatch

US_PER_MS = 1000
MS_PER_S = 1000
MAX_TIME_MS = MAX_RECEIVE_SEC * MS_PER_S  # a unix time in ms the stored seconds can hold
BINARY_REFUSAL = (
    "this is the binary simulation.log of Gatling 3.13 or later, not the text log of 3.0-3.12: upload it with the "
    "format gatling-binary, or gatling (which recognises either)"
)
KNOWN_RECORDS = frozenset({"RUN", "USER", "GROUP", "ERROR", "ASSERTION"})
FOUND_STATUS = re.compile(r"found (\d{3})\b")
# Words of a KO message (exception names, Netty's and the JDK's wording) → errno.
NET_CODE_OF_MESSAGE: tuple[tuple[str, int], ...] = (
    ("ConnectException", Errno.REFUSED),
    ("Connection refused", Errno.REFUSED),
    ("TimeoutException", Errno.TIMEOUT),
    ("timeout", Errno.TIMEOUT),
    ("timed out", Errno.TIMEOUT),
    ("Connection reset", Errno.RESET),
    ("ClosedChannelException", Errno.RESET),
    ("PrematureCloseException", Errno.RESET),
    ("UnknownHostException", Errno.UNREACHABLE),
)
OK_HTTP_CODE = 200


def case_of(groups: list[str], name: str) -> str:
    """The case of a request: its name under its groups, outermost first (`Checkout / Payment / pay`)."""
    path = " / ".join(g for g in groups if g.strip())
    return f"{path} / {name}" if path else name


def codes_of(status: str, message: str) -> tuple[int, int]:
    """(HTTP code, net code) of a request's status and message."""
    found = FOUND_STATUS.search(message)
    if status == "OK":
        return OK_HTTP_CODE, 0
    if found:
        code = int(found.group(1))
        return code, 0 if code >= 400 else UNKNOWN_NET_CODE
    for words, net in NET_CODE_OF_MESSAGE:
        if words in message:
            return 0, net
    return 0, UNKNOWN_NET_CODE


class GatlingParser(RecordParser):
    name: ClassVar[str] = "gatling"
    title: ClassVar[str] = "a Gatling simulation.log"
    shape: ClassVar[str] = "Gatling 3.x records (RUN, USER, REQUEST, GROUP, ERROR, tab-separated)"

    def _refuse_start(self, head: bytes) -> str | None:
        return BINARY_REFUSAL if head[:1] == b"\x00" else None

    def _parse_records(self, block: bytes, first_line: int, *, final: bool) -> PhoutBatch | None:
        rows = Rows()
        for line_no, line in split_lines(block, first_line):
            fields = line.decode("utf-8", errors="replace").split("\t")
            kind = fields[0]
            if kind == "USER":
                self._user(fields)
                continue
            if kind in KNOWN_RECORDS:
                continue
            self.stats.lines_total += 1
            reason = self._request(fields, rows) if kind == "REQUEST" else f"unknown record {kind[:40]!r}"
            if reason is not None:
                self.bad(line_no, reason, line)
        return rows.batch()

    def _user(self, fields: list[str]) -> None:
        """A user's START or END (6 fields before 3.4, 4 since); one that cannot be read only says nothing."""
        event = fields[3] if len(fields) == 6 else fields[2] if len(fields) == 4 else ""
        try:
            second = parse_int(fields[-1], "timestamp", 0, MAX_TIME_MS) // MS_PER_S
        except NotANumber:
            return
        if event == "START":
            self.instances.user_started(second)
        elif event == "END":
            self.instances.user_ended(second)

    def _request(self, fields: list[str], rows: Rows) -> str | None:
        if len(fields) == 8:
            fields = [fields[0], *fields[2:]]  # 3.0-3.3: the user id, which nothing here needs
        if len(fields) != 7:
            return f"a REQUEST of Gatling 3.x has 7 fields (8 before 3.4), this one {len(fields)}"
        _, groups, name, start, end, status, message = fields
        if status not in ("OK", "KO"):
            return f"status {status[:20]!r} is neither OK nor KO"
        try:
            start_ms = parse_int(start, "start (ms)", 0, MAX_TIME_MS)
            end_ms = parse_int(end, "end (ms)", 0, MAX_TIME_MS)
        except NotANumber as exc:
            return str(exc)
        if end_ms < start_ms:
            return f"the request ends ({end_ms}) before it starts ({start_ms})"
        case = self.case_code(case_of(groups.split(","), name))
        proto, net = codes_of(status, message.strip())
        ints = request_ints((end_ms - start_ms) * US_PER_MS, net_code=net, proto_code=proto)
        return rows.add(start_ms * US_PER_MS, case, ints)
