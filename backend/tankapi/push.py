"""The tank's pushes (push_data, monitoring, the writer endpoint): the protocol core, whatever server serves them.

It parses the body, authorizes the upload_token / api_token and builds the buffer entry; the adapters (asgi_door.py,
what gunicorn serves; views.py, Django's views, for any request the door leaves to Django) append it and answer.
These functions take the path's job, the query string and the body and return an explicit outcome: an Answer
(status, body, content type), an Append (checked and validated, to be appended to the buffer, then answered), or,
when the caller may not query PostgreSQL (`may_query=False`: the event loop), a Missing naming what to read first.
No request object, no middleware: a push must cost one Redis round trip, no PostgreSQL query and as little Python
as its validation needs.

Answers: 200 once the validated rows are appended to the Redis stream (buffer.append, before answering); 404 for an
unknown job and for a wrong upload_token alike (a job is not told apart from a missing one), 403/401 for a bad
api_token, 400 naming the bad item, 410 for a closed test or one
stopped from the web, 503 while Redis or ClickHouse is down or the buffer is full (the tank retries).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from django.conf import settings
from django.http import QueryDict

from analytics.cases import cut_label
from analytics.schema.seconds import Row
from analytics.seconds_merge import merge_rows
from analytics.tank_push import MonitoringChunk, PushFormatError, parse_monitoring, parse_push_data
from analytics.tank_push_fast import parse_canonical_push_data
from backend.loadtests.models import Test, TestStatus
from backend.loadtests.permissions import may_push, upload_token_matches
from backend.loadtests.tokens import hash_token, resolve_token
from backend.tankapi import buffer

log = logging.getLogger(__name__)

# The paths of the push endpoints (Django's form: no leading slash), shared by urls.py and asgi_door.py so the two
# adapters can never disagree on what they serve. With and without a trailing slash: APPEND_SLASH is off because
# `requests` turns a redirected POST into a GET.
PUSH_DATA_PATH = r"^api/job/(?P<job>\d+)/push_data\.json/?$"
PUSH_MONITORING_PATH = r"^api/monitoring/receiver/push/?$"
WRITER_PATH = r"^api/writer/?$"

JSON = "application/json"
TEXT = "text/plain"


# An answer to a tank's push is about that push alone: no cache, shared or private, keeps it.
CACHE_CONTROL = "no-store"


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: bytes
    content_type: str = JSON


# Constant answers, encoded once (byte for byte what JsonResponse wrote for them).
OK_DATA = Answer(200, b'[{"success": 1}]')
OK_MONITORING = Answer(200, b"ok", TEXT)
OK_WRITER = Answer(200, b'{"success": 1}')


def error(message: str, status: int) -> Answer:
    # json.dumps, as JsonResponse does: errors are rare, and the same bytes keep both doors identical.
    return Answer(status, json.dumps({"error": message}).encode())


# Process-local caches, so that a push costs one Redis round trip and no PostgreSQL query.
# A revoked token is refused by that round trip itself, at once (buffer.REVOKED_TOKENS_KEY, kept by revocation.py);
# the cache's expiry only bounds how long a revocation whose note to Redis failed goes unseen. A test stopped from
# the web is refused the same way (buffer.STOPPED_TESTS_KEY); a closed test is seen as closed within _TEST_TTL_S
# (pushes in between are stored, which is harmless).
_TOKEN_TTL_S = 30.0
_TEST_TTL_S = 10.0
# Expired tests are re-read together, in one query per this many: hundreds of tanks started together would otherwise
# expire together and cost a query (plus Django's connection health check) each, every TTL, in every process.
_REFRESH_CHUNK = 1000


@dataclass(frozen=True, slots=True)
class _CachedUser:
    user_id: int
    is_staff: bool


@dataclass(frozen=True, slots=True)
class _CachedTest:
    upload_token: str  # its hash (UploadTokenField)
    owner_id: int
    online: bool
    stopped: bool  # a stop was asked from the web


_cache_lock = threading.Lock()
# token hash -> (the user, None for an unknown or revoked token; expiry on time.monotonic())
_token_cache: dict[str, tuple[_CachedUser | None, float]] = {}
_test_cache: dict[int, _CachedTest] = {}
# Tests pushed to since the last refresh: only those are re-read, the others are forgotten (a finished test must
# not be re-read forever). set.add is atomic under the GIL.
_tests_used: set[int] = set()
_refresh_lock = threading.Lock()
_next_refresh = [0.0]  # time.monotonic() of the next refresh of the whole test cache
_refresh_handed_over = [False]  # a push that may not query asked for the due refresh (Missing): not asked again


@dataclass(frozen=True, slots=True)
class Missing:
    """What a push needs from PostgreSQL before it can be checked, when its caller may not query (nothing was
    changed): a job seen for the first time (`test_id`, see load_tests), an API token (`api_token`, see load_token),
    or neither: the cache's due refresh (see refresh_tests)."""

    test_id: int | None = None
    api_token: str | None = None


REFRESH = Missing()


def decode_json(raw: bytes) -> Any:
    """A request body as JSON (an empty body is null); PushFormatError when it is not JSON."""
    raw = raw or b"null"
    try:
        # orjson first: the fast decoder for the push path's bodies (bench/tank_push/README.md).
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        # Python's json also takes NaN/Infinity, which the tank's json.dumps writes for an empty measurement (and
        # integers past 64 bits and lone surrogates, which the parsers then refuse naming the field).
        return json.loads(raw)
    except RecursionError:
        raise PushFormatError("body is not valid JSON: nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise PushFormatError(f"body is not valid JSON: {exc}") from None


def _cached_token_user(raw: str, key: str, may_query: bool) -> _CachedUser | Missing | None:
    now = time.monotonic()
    # dict.get is atomic under the GIL; the lock only orders writers (and the tests' reset, backend/testing.py).
    hit = _token_cache.get(key)
    if hit is not None and hit[1] > now:
        return hit[0]
    if not may_query:
        return Missing(api_token=raw)
    token = resolve_token(raw)
    user = None if token is None else _CachedUser(token.user_id, bool(token.user.is_staff))
    with _cache_lock:
        _token_cache[key] = (user, now + _TOKEN_TTL_S)
    return user


# What a cache entry reads of a test (the last: the test's StopRequest, if any).
_TEST_FIELDS = ("upload_token", "owner_id", "status", "stop_request")


def _test_entry(row: tuple[str, int, str, int | None]) -> _CachedTest:
    upload_token, owner_id, status, stop_request = row
    return _CachedTest(upload_token, owner_id, status == TestStatus.ONLINE, stop_request is not None)


def _read_tests(test_ids: Sequence[int]) -> dict[int, _CachedTest]:
    """These tests as cache entries (unknown ids left out), one query per _REFRESH_CHUNK of them."""
    fresh: dict[int, _CachedTest] = {}
    for start in range(0, len(test_ids), _REFRESH_CHUNK):
        ids = test_ids[start : start + _REFRESH_CHUNK]
        rows = list(Test.objects.filter(pk__in=ids).values_list("pk", *_TEST_FIELDS))
        fresh.update((row[0], _test_entry(row[1:])) for row in rows)
    return fresh


def _refresh_reads() -> bool:
    """Whether the refresh would query (a cached test was pushed to since the last one)."""
    with _cache_lock:
        return any(test_id in _tests_used for test_id in _test_cache)


def _refresh_tests(now: float) -> None:
    """Re-read every cached test pushed to since the last refresh, in one query per chunk; forget the rest.

    One refresh for the whole cache every _TEST_TTL_S, not an expiry per entry: hundreds of tanks start within a
    second or two, so per-entry expiries fall a few milliseconds apart, and each refresh would re-read only the
    few entries expired at that moment and forget the ones pushed to just before it (to be looked up again one by
    one, one query each)."""
    with _cache_lock:
        cached = list(_test_cache)
        wanted = [test_id for test_id in cached if test_id in _tests_used]
        _tests_used.clear()
    fresh = _read_tests(wanted)
    with _cache_lock:
        for test_id in cached:  # entries added by other threads meanwhile are fresh: kept
            if test_id in fresh:
                _test_cache[test_id] = fresh[test_id]
            else:  # not pushed to lately, or deleted
                _test_cache.pop(test_id, None)
        _next_refresh[0] = now + _TEST_TTL_S
        _refresh_handed_over[0] = False


def load_token(raw: str) -> None:
    """Read an API token into the cache (unless it is cached and fresh)."""
    _cached_token_user(raw, hash_token(raw), may_query=True)


def refresh_tests() -> None:
    """The cache's due refresh, asked for by a push that may not query (REFRESH)."""
    try:
        with _refresh_lock:
            _refresh_tests(time.monotonic())
    finally:
        _refresh_handed_over[0] = False  # asked again by the next push if this one failed


def load_tests(test_ids: Sequence[int]) -> None:
    """Read these tests into the cache, in one query per chunk (unknown ids are left out): the first pushes of
    hundreds of tanks started together are looked up together (asgi_door.TestLoader) instead of one query each."""
    now = time.monotonic()
    fresh = _read_tests(test_ids)
    with _cache_lock:
        _test_cache.update(fresh)
        if _next_refresh[0] == 0.0:
            _next_refresh[0] = now + _TEST_TTL_S  # nothing older in the cache to refresh before then


def _cached_test(test_id: int, may_query: bool) -> _CachedTest | Missing | None:
    now = time.monotonic()
    if now >= _next_refresh[0] and _refresh_lock.acquire(blocking=False):
        # One caller refreshes; the others go on with the entries they have, a few milliseconds stale. A push that
        # may not query asks its caller for a refresh that must read (REFRESH), once: the others do not wait for it.
        try:
            if may_query or not _refresh_reads():
                _refresh_tests(now)
            elif not _refresh_handed_over[0]:
                _refresh_handed_over[0] = True
                return REFRESH
        finally:
            _refresh_lock.release()
    _tests_used.add(test_id)
    cached = _test_cache.get(test_id)
    if cached is not None:
        return cached
    if not may_query:
        return Missing(test_id)
    row = Test.objects.filter(pk=test_id).values_list(*_TEST_FIELDS).first()
    if row is None:
        return None
    cached = _test_entry(row)
    with _cache_lock:
        _test_cache[test_id] = cached
    return cached


def stopped(job: int) -> Answer:
    return error(f"job {job} was stopped from the web", 410)


REVOKED = error("unknown or revoked api_token", 401)


def check_access(job: int, query: QueryDict, may_query: bool = True) -> Answer | str | Missing:
    """upload_token must be the job's; an api_token, when sent (Lunapark mode sends none), must own the job.
    The error answer, or the hash of the api_token ('' when none was sent) for the append to check again, or what
    must be read from PostgreSQL first when the caller may not query."""
    test = _cached_test(job, may_query)
    if isinstance(test, Missing):
        return test
    upload_token = query.get("upload_token", "")
    if test is None or not upload_token_matches(upload_token, test.upload_token):
        # Without the job's upload_token a job looks exactly like one that does not exist: no probing which
        # (private) job numbers are taken.
        return error(f"job {job} does not exist", 404)
    raw = query.get("api_token")
    token_hash = ""
    if raw:
        token_hash = hash_token(raw)
        user = _cached_token_user(raw, token_hash, may_query)
        if isinstance(user, Missing):
            return user
        if user is None:
            return REVOKED
        if not may_push(user.user_id, user.is_staff, test.owner_id):
            return error(f"api_token may not write job {job}", 403)
    if test.stopped:
        return stopped(job)
    if not test.online:
        return error(f"job {job} is closed", 410)
    return token_hash


def data_rows(seconds: Sequence[Row]) -> bytes:
    """The buffer's form of validated seconds (KIND_DATA_ROWS), decoded by flush.py; case names cut to
    TANKODROM_LABEL_MAX_CHARS (README "Limits")."""
    cap = int(settings.TANKODROM_LABEL_MAX_CHARS)
    if any(len(row[1]) > cap for row in seconds):
        seconds = _cut(seconds, cap)
    return orjson.dumps(seconds)


def _cut(seconds: Sequence[Row], cap: int) -> list[Row]:
    """The seconds with long case names cut; the cases that a cut makes one are merged per second, as an upload
    counts their samples under the one name (analytics.cases; off the fast path: only a push with a long name)."""
    groups: dict[tuple[int, str], dict[str, Row]] = {}
    for row in seconds:
        groups.setdefault((int(row[0]), cut_label(row[1], cap)), {})[row[1]] = row
    return [merge_rows(ts, case, list(rows.values())) for (ts, case), rows in groups.items()]


def monitoring_rows(chunk: MonitoringChunk) -> bytes:
    """The buffer's form of validated monitoring points (KIND_MONITORING_ROWS), decoded by flush.py."""
    return orjson.dumps([[p.ts, p.host, p.metric, p.value] for p in chunk.points])


@dataclass(frozen=True, slots=True)
class Append:
    """A push that passed its checks, still to be appended to the buffer (answered `ok` once it is). The adapter
    that serves it appends it its own way: complete() blocking (Django's views), or awaited on the ASGI door's event
    loop, which must not block on Redis."""

    kind: str
    job: int
    rows: bytes
    ok: Answer
    token_hash: str  # the push's api_token, hashed ('' when none): the append refuses a revoked one


Outcome = Answer | Append | Missing


def refused(job: int, exc: buffer.BufferUnavailable | buffer.TokenRevoked | buffer.TestStopped) -> Answer:
    """The answer to an append the buffer refused: 401, 410, or 503 (the tank retries)."""
    if isinstance(exc, buffer.TokenRevoked):
        return REVOKED
    if isinstance(exc, buffer.TestStopped):
        return stopped(job)
    log.warning("push to job %s refused: %s", job, exc)
    return error(str(exc), 503)


APPEND_REFUSALS = (buffer.BufferUnavailable, buffer.TokenRevoked, buffer.TestStopped)


def complete(outcome: Outcome) -> Answer:
    """The answer to a push checked with `may_query=True`: an Append is appended now (blocking), and answered as
    `refused` says if refused."""
    if isinstance(outcome, Answer):
        return outcome
    assert not isinstance(outcome, Missing), "complete() takes the outcome of a push that may query"
    try:
        buffer.append(outcome.kind, outcome.job, outcome.rows, token_hash=outcome.token_hash)
    except APPEND_REFUSALS as exc:
        return refused(outcome.job, exc)
    if outcome.kind == buffer.KIND_DATA_ROWS:
        from backend.live.publish import second_pushed  # the live app imports this module's neighbours

        second_pushed(outcome.job, outcome.rows)  # the online pages' event (the door sends it off its loop)
    return outcome.ok


def push_data(job: int, query: QueryDict, body: bytes, may_query: bool = True) -> Outcome:
    """POST api/job/N/push_data.json?upload_token=U -> [{"success": 1}] once buffered durably."""
    token_hash = check_access(job, query, may_query)
    if not isinstance(token_hash, str):
        return token_hash
    seconds = parse_canonical_push_data(body)  # what the tank sends, decoded and checked in one pass
    if seconds is None:
        try:
            seconds = parse_push_data(decode_json(body))
        except PushFormatError as exc:
            return error(str(exc), 400)
    # Buffer what was validated, not the raw body: smaller in Redis, and the flusher need not parse it again.
    return Append(buffer.KIND_DATA_ROWS, job, data_rows(seconds), OK_DATA, token_hash)


def push_monitoring(query: QueryDict, body: bytes, may_query: bool = True) -> Outcome:
    """POST api/monitoring/receiver/push?job_id=N&upload_token=U, raw JSON with any or no Content-Type -> ok"""
    return _append_checked(query, "job_id", may_query, body, _monitoring_rows_of, OK_MONITORING)


def writer_push(query: QueryDict, body: bytes, may_query: bool = True) -> Outcome:
    """POST <writer_endpoint>?jobno=N&upload_token=U with `{"trail": [...]}` or `{"monitoring": [...]}`: the
    uploader's `writer_endpoint` option (tank-protocol.md §4.8); point it at `http://HOST:8000/api/writer`.
    The client reads `response.json()["success"]`, so this one answers an object, not an array."""
    return _append_checked(query, "jobno", may_query, body, _writer_rows_of, OK_WRITER)


def _append_checked(
    query: QueryDict,
    job_param: str,
    may_query: bool,
    body: bytes,
    rows_of: Callable[[Any], tuple[str, bytes]],
    ok: Answer,
) -> Outcome:
    """A push whose job the query names (`job_param`): its access checked, then the rows `rows_of` makes of the
    JSON body buffered, answered with `ok`; a body it cannot read (PushFormatError) is the 400 that says why."""
    try:
        job = int(query.get(job_param, ""))
    except ValueError:
        return error(f"{job_param} query parameter must be a job number", 400)
    token_hash = check_access(job, query, may_query)
    if not isinstance(token_hash, str):
        return token_hash
    try:
        kind, rows = rows_of(decode_json(body))
    except PushFormatError as exc:
        return error(str(exc), 400)
    return Append(kind, job, rows, ok, token_hash)


def _monitoring_rows_of(decoded: Any) -> tuple[str, bytes]:
    return buffer.KIND_MONITORING_ROWS, monitoring_rows(parse_monitoring(decoded))


def _writer_rows_of(decoded: Any) -> tuple[str, bytes]:
    if isinstance(decoded, dict) and "trail" in decoded:
        return buffer.KIND_DATA_ROWS, data_rows(parse_push_data(decoded))
    if isinstance(decoded, dict) and "monitoring" in decoded:
        return _monitoring_rows_of(decoded)
    raise PushFormatError('writer body must be {"trail": [...]} or {"monitoring": [...]}')
