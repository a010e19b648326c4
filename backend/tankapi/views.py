"""Yandex.Tank's Overload protocol at the host root (tank-protocol.md §10): plain Django views, not DRF.

Why plain views: the client needs exact bodies (JSON *arrays*), an `ok` text answer, raw JSON without a
Content-Type, form-encoded config uploads and no redirects; DRF's content negotiation and parsers would only get in
the way.

Answers the client understands: 200 with the shapes below; 401/403 for a bad token (never 5xx at create, or the
tank retries for ten minutes); 404 for an unknown job; 400 with `{"error": ...}` naming the bad item; 410 for a
push to a closed test (the tank stops its data thread, the test goes on); 503 while the buffer or ClickHouse is
down (the tank retries). Errors are JSON objects `{"error": "..."}`; the client only looks at the status then.
"""

from __future__ import annotations

import logging
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.views.decorators.csrf import csrf_exempt

from analytics.tank_push import PushFormatError
from backend.loadtests import permissions, quota
from backend.loadtests.auth import tank_token_from
from backend.loadtests.models import Test
from backend.loadtests.tokens import resolve_token
from backend.tankapi import buffer, lifecycle, push
from backend.tankapi.tasks import finish_after_commit

log = logging.getLogger(__name__)

SUCCESS: list[dict[str, int]] = [{"success": 1}]


def _error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def _array(payload: list[dict[str, Any]]) -> JsonResponse:
    return JsonResponse(payload, safe=False)


def _answer(answer: push.Answer) -> HttpResponse:
    response = HttpResponse(answer.body, status=answer.status, content_type=answer.content_type)
    response["Cache-Control"] = push.CACHE_CONTROL
    return response


def _token_user(request: HttpRequest) -> Any | None:
    """The user of `api_token`, or of the Basic auth password in Lunapark mode (None when the token is unknown or
    revoked); hits PostgreSQL."""
    token = resolve_token(tank_token_from(request))
    return None if token is None else token.user


def _owned_test(request: HttpRequest, job: int) -> Test | JsonResponse:
    """The test `job` if `api_token` belongs to a user who may write it; else the error answer."""
    user = _token_user(request)
    if user is None:
        return _error("unknown or revoked api_token", 401)
    test = permissions.readable_test(user, int(job))
    if test is None:  # a test this user may not read is answered as missing (permissions.py)
        return _error(f"job {job} does not exist", 404)
    if not permissions.can_write(user, test):
        return _error(f"api_token may not write job {job}", 403)
    return test


def _json_object(request: HttpRequest, name: str) -> dict[str, Any]:
    """The body as a JSON object; PushFormatError (a 400) when it is not one."""
    body = push.decode_json(request.body)
    if not isinstance(body, dict):
        raise PushFormatError(f"{name} body must be a JSON object")
    return body


@csrf_exempt
def create_job(request: HttpRequest) -> HttpResponse:
    """POST api/job/create.json?api_token=T -> [{"job": N, "upload_token": "U"}]"""
    if request.method != "POST":
        return _error("create.json takes POST", 405)
    user = _token_user(request)
    if user is None:
        return _error("unknown or revoked api_token: put a token of this service in the tank's token_file", 401)
    # The project is the token's (a personal token: the default project); the tank's `component:` lands in it.
    project = permissions.project_for_new_test(user)
    if project is None or not permissions.can_create(user, project):
        return _error("this api_token may not create tests: it needs the uploader role in a project", 403)
    refused = quota.refusal(project)
    if refused is not None:
        return JsonResponse(refused, status=507)
    try:
        test = lifecycle.create_test(user, _json_object(request, "create.json"), project)
    except PushFormatError as exc:
        return _error(str(exc), 400)
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
        lifecycle.edit_test(test, _json_object(request, "edit.json"))
    except PushFormatError as exc:
        return _error(str(exc), 400)
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
            try:
                lifecycle.save_config(test, form_field, text)
            except PushFormatError as exc:
                return _error(str(exc), 400)
    return _array(SUCCESS)


# The three push endpoints: the logic is push.py's, shared with the ASGI door (asgi_door.py) that serves them in
# production in front of Django; these views answer the same when Django gets the request (runserver, and any
# request the door leaves to Django).


@csrf_exempt
def push_data(request: HttpRequest, job: int) -> HttpResponse:
    """POST api/job/N/push_data.json?upload_token=U -> [{"success": 1}] once buffered durably."""
    if request.method != "POST":
        return _error("push_data.json takes POST", 405)
    # re_path passes the digits as str
    return _answer(push.complete(push.push_data(int(job), request.GET, request.body)))


@csrf_exempt
def push_monitoring(request: HttpRequest) -> HttpResponse:
    """POST api/monitoring/receiver/push?job_id=N&upload_token=U, raw JSON with any or no Content-Type -> ok"""
    if request.method != "POST":
        return _error("monitoring push takes POST", 405)
    return _answer(push.complete(push.push_monitoring(request.GET, request.body)))


@csrf_exempt
def writer_push(request: HttpRequest) -> HttpResponse:
    """POST <writer_endpoint>?jobno=N&upload_token=U with `{"trail": [...]}` or `{"monitoring": [...]}`."""
    if request.method != "POST":
        return _error("the writer takes POST", 405)
    return _answer(push.complete(push.writer_push(request.GET, request.body)))


@csrf_exempt
def close_job(request: HttpRequest, job: int) -> HttpResponse:
    """GET api/job/N/close.json?exitcode=RC -> [{"success": 1}]; closing twice is harmless."""
    test = _owned_test(request, job)
    if isinstance(test, JsonResponse):
        return test
    raw_code = request.GET.get("exitcode")
    low, high = lifecycle.INTEGER_RANGE
    try:
        # ASCII digits only: int() would also take other scripts' digits and underscores.
        exit_code = None if raw_code in (None, "", "None") else int(str(raw_code).encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        return _error(f"exitcode must be an integer, got {raw_code!r}", 400)
    if exit_code is not None and not low <= exit_code <= high:
        return _error(f"exitcode {raw_code!r} does not fit an integer ({low}..{high})", 400)
    if lifecycle.close_test(test.pk, exit_code):
        finish_after_commit(test.pk)
    buffer.forget_last_push(test.pk)
    return _array(SUCCESS)


# ── Lunapark-only and legacy endpoints: answered harmlessly so old or Lunapark-mode clients carry on ─────────


@csrf_exempt
def job_summary(request: HttpRequest, job: int) -> HttpResponse:
    """GET api/job/N/summary.json (Lunapark imbalance): the description, as Lunapark answered."""
    test = permissions.readable_test(_token_user(request) or getattr(request, "user", None), int(job))
    if test is None:  # a test this caller may not read is answered as missing (permissions.py)
        return _error(f"job {job} does not exist", 404)
    return _array([{"dsc": test.description, "name": test.name, "status": test.status}])


@csrf_exempt
def job_status(request: HttpRequest, job: int) -> HttpResponse:
    """PATCH api/v2/jobs/N/?upload_token=U (the status the tank sends every 10 s in Lunapark mode): 410 once the test
    was stopped from the web, on which the tank ends its shooting with exit code 8; else accepted. That the tank sends
    it is kept (StatusCall): the page then says a stop ends the shooting."""
    upload_token = request.GET.get("upload_token", "")
    stored = Test.objects.filter(pk=job).values_list("upload_token", flat=True).first()  # the token's hash
    known = stored is not None and permissions.upload_token_matches(upload_token, stored)
    if not known:
        return _array(SUCCESS)
    try:
        body = push.decode_json(request.body)
    except PushFormatError:
        body = None
    lifecycle.note_status_call(int(job), body.get("status") if isinstance(body, dict) else None)
    if lifecycle.stop_requested(int(job)):
        return _error(f"job {job} was stopped from the web", 410)
    return _array(SUCCESS)


@csrf_exempt
def accepted_and_ignored(request: HttpRequest, **_kwargs: object) -> HttpResponse:
    """set_imbalance.json, event.json, PATCH api/v2/jobs/N/, lock.json, virtual_host.json: nothing to keep here."""
    return _array(SUCCESS)


@csrf_exempt
def task_summary(request: HttpRequest, task: str | None = None) -> HttpResponse:
    """GET api/task/T/summary.json (Lunapark's task check): every task is open here."""
    return _array([{"status": "Open", "name": task or ""}])
