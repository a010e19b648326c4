"""The `Content-Range` header of a resumable upload's piece: `bytes START-END/TOTAL`, TOTAL `*` while the file's
size is not known yet (RFC 9110's unknown complete length). One reader for the body-size middleware (the total
is refused before a byte is stored) and the upload's receiver (where the piece goes)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# ASCII digits, at most 19 (10**19 bytes is past any file): `\d` also takes other scripts' digits, and int() refuses a
# number of more than 4300 digits with a plain ValueError, which would be no BadContentRange but a 500.
_CONTENT_RANGE = re.compile(r"^bytes ([0-9]{1,19})-([0-9]{1,19})/([0-9]{1,19}|\*)$")


class BadContentRange(ValueError):
    """A header that is not `bytes START-END/TOTAL` with START <= END < TOTAL; the text says which part is wrong."""


@dataclass(frozen=True)
class ContentRange:
    start: int
    end: int  # the piece's last byte (inclusive, as the header states it)
    total: int | None  # the whole file's size in bytes; None for `*`

    @property
    def length(self) -> int:
        return self.end - self.start + 1

    @property
    def ends_file(self) -> bool:
        """Whether this piece holds the file's last byte (never while the total is not known)."""
        return self.total is not None and self.end + 1 == self.total


def parse_content_range(header: str) -> ContentRange:
    """The piece a `Content-Range` header names; BadContentRange when it names none."""
    match = _CONTENT_RANGE.match(header.strip())
    if not match:
        raise BadContentRange(f"bad Content-Range {header!r}: expected 'bytes START-END/TOTAL' (TOTAL may be '*')")
    start, end = int(match.group(1)), int(match.group(2))
    total = None if match.group(3) == "*" else int(match.group(3))
    if not start <= end < (end + 1 if total is None else total):
        raise BadContentRange(f"bad Content-Range {header!r}: need START <= END < TOTAL")
    return ContentRange(start, end, total)


def announced_total(header: str) -> int | None:
    """The file size a piece's header announces: None when it names none (`*`, no header, or a bad one: the
    receiver answers that)."""
    try:
        return parse_content_range(header).total
    except BadContentRange:
        return None
