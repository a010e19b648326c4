"""Yandex.Tank's Overload protocol at the host root (tank-protocol.md §10): plain Django views, not DRF.

Why plain views: the client needs exact bodies (JSON *arrays*), an `ok` text answer, raw JSON without a
Content-Type, form-encoded config uploads and no redirects; DRF's content negotiation and parsers would only get in
the way, and the push endpoints are the hot path (hundreds of requests per second), where every layer counts.

Answers the client understands: 200 with the shapes below; 401/403 for a bad token (never 5xx at create, or the
tank retries for ten minutes); 404 for an unknown job; 400 with `{"error": ...}` naming the bad item; 410 for a
push to a closed test (the tank stops its data thread, the test goes on); 503 while the buffer or ClickHouse is
down (the tank retries). Errors are JSON objects `{"error": "..."}`; the client only looks at the status then.
"""

from __future__ import annotations

import hmac
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.views.decorators.csrf import csrf_exempt

from analytics.tank_push import MonitoringChunk, PushFormatError, PushSecond, parse_monitoring, parse_push_data
from backend.loadtests import permissions
from backend.loadtests.auth import raw_token_from
from backend.loadtests.models import Test, TestStatus
from backend.loadtests.tokens import hash_token, resolve_token
from backend.tankapi import buffer, lifecycle

log = logging.getLogger(__name__)

SUCCESS: list[dict[str, int]] = [{"success": 1}]

# Process-local caches for the push path, so that a push costs one Redis round trip and no PostgreSQL query.
# A revoked token keeps pushing for at most _TOKEN_TTL_S; a closed test is seen as closed within _TEST_TTL_S
# (pushes in between are stored, which is harmless). Longer TTLs matter at scale: each gunicorn process re-reads
# every live test once per TTL, i.e. tanks × processes / TTL queries per second.
_TOKEN_TTL_S = 30.0
_TEST_TTL_S = 10.0


@dataclass(frozen=True)
class _CachedUser:
    user_id: int
    is_staff: bool
    expires: float


@dataclass(frozen=True)
class _CachedTest:
    upload_token: str
    owner_id: int
    online: bool
    expires: float


_cache_lock = threading.Lock()
_token_cache: dict[str, _CachedUser | None] = {}
_token_expiry: dict[str, float] = {}
_test_cache: dict[int, _CachedTest] = {}


def clear_caches() -> None:
    """Forget cached tokens and tests (tests call this; ids are reused across test databases)."""
    with _cache_lock:
        _token_cache.clear()
        _token_expiry.clear()
        _test_cache.clear()


def _error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def _array(payload: list[dict[str, Any]]) -> JsonResponse:
    return JsonResponse(payload, safe=False)


def _json_body(request: HttpRequest) -> Any:
    raw = request.body or b"null"
    try:
        # orjson: several times faster on the 20 KB bodies of the push path (measured in bench/tank_push).
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        # Python's json also takes NaN/Infinity, which the tank's json.dumps writes for an empty measurement.
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise PushFormatError(f"body is not valid JSON: {exc}") from None


def _token_user(request: HttpRequest) -> Any | None:
    """The user of `api_token` (None when the token is unknown or revoked); hits PostgreSQL."""
    token = resolve_token(raw_token_from(request))
    return None if token is None else token.user


def _cached_token_user(raw: str) -> _CachedUser | None:
    key = hash_token(raw)
    now = time.monotonic()
    with _cache_lock:
        if _token_expiry.get(key, 0.0) > now:
            return _token_cache[key]
    token = resolve_token(raw)
    cached = None if token is None else _CachedUser(token.user_id, bool(token.user.is_staff), now + _TOKEN_TTL_S)
    with _cache_lock:
        _token_cache[key] = cached
        _token_expiry[key] = now + _TOKEN_TTL_S
    return cached


def _cached_test(test_id: int) -> _CachedTest | None:
    now = time.monotonic()
    with _cache_lock:
        cached = _test_cache.get(test_id)
    if cached is not None and cached.expires > now:
        return cached
    row = Test.objects.filter(pk=test_id).values_list("upload_token", "owner_id", "status").first()
    if row is None:
        return None
    cached = _CachedTest(row[0], row[1], row[2] == TestStatus.ONLINE, now + _TEST_TTL_S)
    with _cache_lock:
        _test_cache[test_id] = cached
    return cached


def _owned_test(request: HttpRequest, job: int) -> Test | JsonResponse:
    """The test `job` if `api_token` belongs to a user who may write it; else the error answer."""
    user = _token_user(request)
    if user is None:
        return _error("unknown or revoked api_token", 401)
    test = Test.objects.filter(pk=job).first()
    if test is None:
        return _error(f"job {job} does not exist", 404)
    if not permissions.can_write(user, test):
        return _error(f"api_token may not write job {job}", 403)
    return test


def _check_push_access(request: HttpRequest, job: int) -> JsonResponse | None:
    """upload_token must be the job's; an api_token, when sent (Lunapark mode sends none), must own the job."""
    test = _cached_test(job)
    if test is None:
        return _error(f"job {job} does not exist", 404)
    upload_token = request.GET.get("upload_token", "")
    if not upload_token or not hmac.compare_digest(upload_token, test.upload_token):
        return _error(f"upload_token does not match job {job}", 403)
    raw = request.GET.get("api_token")
    if raw:
        user = _cached_token_user(raw)
        if user is None:
            return _error("unknown or revoked api_token", 401)
        if not (user.is_staff or user.user_id == test.owner_id):
            return _error(f"api_token may not write job {job}", 403)
    if not test.online:
        return _error(f"job {job} is closed", 410)
    return None


def _append(kind: str, job: int, payload: bytes, ok: Callable[[], HttpResponse]) -> HttpResponse:
    try:
        buffer.append(kind, job, payload)
    except buffer.BufferUnavailable as exc:
        log.warning("push to job %s refused: %s", job, exc)
        return _error(str(exc), 503)
    return ok()


@csrf_exempt
def create_job(request: HttpRequest) -> HttpResponse:
    """POST api/job/create.json?api_token=T -> [{"job": N, "upload_token": "U"}]"""
    if request.method != "POST":
        return _error("create.json takes POST", 405)
    user = _token_user(request)
    if user is None:
        return _error("unknown or revoked api_token: put a token of this service in the tank's token_file", 401)
    if not permissions.can_create(user):
        return _error("this user may not create tests", 403)
    try:
        body = _json_body(request)
    except PushFormatError as exc:
        return _error(str(exc), 400)
    if not isinstance(body, dict):
        return _error("create.json body must be a JSON object", 400)
    test = lifecycle.create_test(user, body)
    return _array([{"job": test.pk, "upload_token": test.upload_token}])


@csrf_exempt
def edit_job(request: HttpRequest, job: int) -> HttpResponse:
    """POST api/job/N/edit.json -> [{"success": 1}] (must be JSON, or the tank aborts)."""
    if request.method != "POST":
        return _error("edit.json takes POST", 405)
    test = _owned_test(request, job)
    if isinstance(test, JsonResponse):
        return test
    try:
        body = _json_body(request)
    except PushFormatError as exc:
        return _error(str(exc), 400)
    if not isinstance(body, dict):
        return _error("edit.json body must be a JSON object", 400)
    lifecycle.edit_test(test, body)
    return _array(SUCCESS)


def _form(request: HttpRequest) -> QueryDict:
    if request.content_type == "application/x-www-form-urlencoded":
        return request.POST
    # Some clients send the form without its Content-Type; the body is still urlencoded.
    return QueryDict(request.body, encoding="utf-8")


@csrf_exempt
def config_upload(request: HttpRequest, job: int, name: str) -> HttpResponse:
    """POST /api/job/N/{configinitial,configinfo,jobmonitoringconfig,console}.txt: always 2xx for the owner
    (a 404 here aborts the test). `console.txt` (legacy) is accepted and not stored."""
    if request.method != "POST":
        return _error(f"{name}.txt takes POST", 405)
    test = _owned_test(request, job)
    if isinstance(test, JsonResponse):
        return test
    field = {"configinitial": "configinitial", "configinfo": "configinfo", "jobmonitoringconfig": "monitoringconfig"}
    form_field = field.get(name)
    if form_field is not None:
        text = _form(request).get(form_field)
        if text is not None:
            lifecycle.save_config(test, form_field, text)
    return _array(SUCCESS)


def _data_rows(seconds: Sequence[PushSecond]) -> bytes:
    """The buffer's form of validated seconds (KIND_DATA_ROWS), decoded by flush.py: one place for both doors."""
    return orjson.dumps([second.as_row() for second in seconds])


def _monitoring_rows(chunk: MonitoringChunk) -> bytes:
    """The buffer's form of validated monitoring points (KIND_MONITORING_ROWS), decoded by flush.py."""
    return orjson.dumps([[p.ts, p.host, p.metric, p.value] for p in chunk.points])


@csrf_exempt
def push_data(request: HttpRequest, job: int) -> HttpResponse:
    """POST api/job/N/push_data.json?upload_token=U -> [{"success": 1}] once buffered durably."""
    if request.method != "POST":
        return _error("push_data.json takes POST", 405)
    denied = _check_push_access(request, job)
    if denied is not None:
        return denied
    try:
        seconds = parse_push_data(_json_body(request))
    except PushFormatError as exc:
        return _error(str(exc), 400)
    # Buffer what was validated, not the raw body: smaller in Redis, and the flusher need not parse it again.
    rows = _data_rows(seconds)
    return _append(buffer.KIND_DATA_ROWS, job, rows, lambda: _array(SUCCESS))


@csrf_exempt
def push_monitoring(request: HttpRequest) -> HttpResponse:
    """POST api/monitoring/receiver/push?job_id=N&upload_token=U, raw JSON with any or no Content-Type -> ok"""
    if request.method != "POST":
        return _error("monitoring push takes POST", 405)
    try:
        job = int(request.GET.get("job_id", ""))
    except ValueError:
        return _error("job_id query parameter must be a job number", 400)
    denied = _check_push_access(request, job)
    if denied is not None:
        return denied
    try:
        chunk = parse_monitoring(_json_body(request))
    except PushFormatError as exc:
        return _error(str(exc), 400)
    rows = _monitoring_rows(chunk)
    return _append(buffer.KIND_MONITORING_ROWS, job, rows, lambda: HttpResponse(b"ok", content_type="text/plain"))


@csrf_exempt
def writer_push(request: HttpRequest) -> HttpResponse:
    """POST <writer_endpoint>?jobno=N&upload_token=U with `{"trail": [...]}` or `{"monitoring": [...]}`: the
    uploader's `writer_endpoint` option (tank-protocol.md §4.8); point it at `http://HOST:8000/api/writer`.
    The client reads `response.json()["success"]`, so this one answers an object, not an array."""
    if request.method != "POST":
        return _error("the writer takes POST", 405)
    try:
        job = int(request.GET.get("jobno", ""))
    except ValueError:
        return _error("jobno query parameter must be a job number", 400)
    denied = _check_push_access(request, job)
    if denied is not None:
        return denied
    try:
        body = _json_body(request)
        if isinstance(body, dict) and "trail" in body:
            rows = _data_rows(parse_push_data(body))
            kind = buffer.KIND_DATA_ROWS
        elif isinstance(body, dict) and "monitoring" in body:
            chunk = parse_monitoring(body)
            rows = _monitoring_rows(chunk)
            kind = buffer.KIND_MONITORING_ROWS
        else:
            raise PushFormatError('writer body must be {"trail": [...]} or {"monitoring": [...]}')
    except PushFormatError as exc:
        return _error(str(exc), 400)
    return _append(kind, job, rows, lambda: JsonResponse({"success": 1}))


@csrf_exempt
def close_job(request: HttpRequest, job: int) -> HttpResponse:
    """GET api/job/N/close.json?exitcode=RC -> [{"success": 1}]; closing twice is harmless."""
    test = _owned_test(request, job)
    if isinstance(test, JsonResponse):
        return test
    raw_code = request.GET.get("exitcode")
    try:
        exit_code = None if raw_code in (None, "", "None") else int(str(raw_code))
    except ValueError:
        return _error(f"exitcode must be an integer, got {raw_code!r}", 400)
    lifecycle.close_test(test.pk, exit_code)
    buffer.forget_last_push(test.pk)
    return _array(SUCCESS)


# ── Lunapark-only and legacy endpoints: answered harmlessly so old or Lunapark-mode clients carry on ─────────


@csrf_exempt
def job_summary(request: HttpRequest, job: int) -> HttpResponse:
    """GET api/job/N/summary.json (Lunapark imbalance): the description, as Lunapark answered."""
    test = Test.objects.filter(pk=job).values("description", "name", "status").first()
    if test is None:
        return _error(f"job {job} does not exist", 404)
    return _array([{"dsc": test["description"], "name": test["name"], "status": test["status"]}])


@csrf_exempt
def accepted_and_ignored(request: HttpRequest, **_kwargs: object) -> HttpResponse:
    """set_imbalance.json, event.json, PATCH api/v2/jobs/N/, lock.json, virtual_host.json: nothing to keep here."""
    return _array(SUCCESS)


@csrf_exempt
def task_summary(request: HttpRequest, task: str) -> HttpResponse:
    """GET api/task/T/summary.json (Lunapark's task check): every task is open here."""
    return _array([{"status": "Open", "name": task}])
