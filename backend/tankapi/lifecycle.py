"""The life of a test streamed by a tank: create, metadata, config snapshots, close (by the tank or by silence).

Every write to `Test` from the tank protocol goes through these functions, so the views stay thin and the
periodic silence closer shares the close path with `close.json`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from analytics.tank_push import PushFormatError, check_text
from backend.live import publish as live
from backend.loadtests.models import Test, TestStatus
from backend.projects.models import Project, default_project
from backend.tankapi import buffer
from backend.tankapi.config_instances import configured_instances
from backend.tankapi.config_schedule import configured_schedule
from backend.tankapi.models import StatusCall, StopRequest

log = logging.getLogger(__name__)

# yandex-tank's exit codes (docs/core_and_modules.rst, "exit codes"; autostop's get_rc()).
EXIT_REASONS: dict[int, str] = {
    0: "completed",
    1: "interrupted: generic error",
    2: "interrupted: user break (Ctrl-C)",
    3: "interrupted: SIGTERM",
    4: "interrupted: unknown signal",
    5: "interrupted: stopped by the tank's unlocking",
    8: "interrupted: stopped via web",
    21: "autostop: time (response time over limit)",
    22: "autostop: http (HTTP codes over limit)",
    23: "autostop: net (net codes over limit)",
    24: "autostop: instances (too many instances)",
    25: "autostop: total_time",
    26: "autostop: total_http",
    27: "autostop: total_net",
    28: "autostop: negative_http",
    29: "autostop: negative_net",
    30: "autostop: http_trend",
    31: "autostop: metric_higher",
    32: "autostop: metric_lower",
    33: "autostop: steady_cumulative",
}

SILENCE_REASON = "closed by the server: no data from the tank for {seconds} s"
STOPPED_REASON = "stopped from the web"

# Fields of create.json / edit.json and the Test field each one fills (str fields are cut to the column size).
_CREATE_FIELDS = {"task": "task", "person": "person", "tank": "tank_host", "host": "target_host", "port": "target_port"}
_EDIT_FIELDS = {
    "name": "name",
    "description": "description",
    "ammo": "ammo",
    "loop": "loop",
    "version": "version",
    "component": "component",
    "command_line": "command_line",
}
CONFIG_FIELDS = {
    "configinitial": "config_initial",
    "configinfo": "config_info",
    "monitoringconfig": "config_monitoring",
}


def exit_reason(exit_code: int | None) -> str:
    if exit_code is None:
        return ""
    return EXIT_REASONS.get(exit_code, f"exit code {exit_code}")


# What PostgreSQL's `integer` holds (Test.instances, tank_type, exit_code).
INTEGER_RANGE = (-(2**31), 2**31 - 1)


def _text(value: object, key: str, field: str | None = None) -> str:
    """A str field of the body as stored (cut to its column, if any); PushFormatError naming `key` if it cannot be."""
    try:
        text = "" if value is None else str(value)
    except ValueError:  # an integer of more digits than Python prints
        raise PushFormatError(f"{key} is too long a number") from None
    check_text(text, key)
    max_length = None if field is None else getattr(Test._meta.get_field(field), "max_length", None)
    return text[:max_length] if max_length else text


def _int_or_none(value: object, key: str) -> int | None:
    """A whole number field: None for what is not a number (null, text); PushFormatError when it does not fit."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = int(float(str(value)))
    except ValueError:
        return None
    except OverflowError:  # 10**400, Infinity
        raise PushFormatError(f"{key} {value!r} does not fit an integer") from None
    if not INTEGER_RANGE[0] <= number <= INTEGER_RANGE[1]:
        raise PushFormatError(f"{key} {value!r} does not fit an integer")
    return number


def _json_value(value: object, key: str) -> Any:
    """A JSON field as PostgreSQL's jsonb can store it (NaN and infinities become null, as in strict JSON);
    PushFormatError naming `key` for what it cannot: NUL, lone surrogates, integers past 64 bits, deep nesting."""
    try:
        encoded = orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError) as exc:
        raise PushFormatError(f"{key} cannot be stored: {exc}") from None
    if b"\\u0000" in encoded:
        raise PushFormatError(f"{key} must not contain NUL characters")
    return orjson.loads(encoded)


def create_test(owner: User, body: Mapping[str, Any], project: Project | None = None) -> Test:
    """create.json: a new online test owned by the token's user, in `project` (default: the default project),
    with the metadata the tank knows at start. PushFormatError naming the field that cannot be stored (nothing is
    created then)."""
    project = project if project is not None else default_project()
    test = Test(owner=owner, project=project, visibility=project.default_visibility, status=TestStatus.ONLINE)
    for key, field in _CREATE_FIELDS.items():
        if key in body:
            setattr(test, field, _text(body[key], key, field))
    loadscheme = body.get("loadscheme")
    test.loadscheme = _json_value(loadscheme, "loadscheme") if isinstance(loadscheme, list) else []
    notify = body.get("notify")
    test.notify = [_text(n, "notify") for n in notify] if isinstance(notify, list) else []
    test.save()
    return test


def edit_test(test: Test, body: Mapping[str, Any]) -> None:
    """edit.json: metadata; partial bodies (imbalance, mobile_key, a description alone) and nulls are fine.
    PushFormatError naming the field that cannot be stored (nothing is changed then)."""
    changes: dict[str, object] = {}
    for key, field in _EDIT_FIELDS.items():
        if key in body and body[key] is not None:
            changes[field] = _text(body[key], key, field)
    for key in ("instances", "tank_type"):
        if key in body:
            changes[key] = _int_or_none(body[key], key)
    if "instances" in changes and _configs_instances(test) is not None:
        del changes["instances"]  # the config's figure stands: get_info() says 1 for BFG, 0 for Pandora
    for field, value in changes.items():
        setattr(test, field, value)
    if changes:
        test.save(update_fields=list(changes))


# The password part of a URL's credentials: `http://lunapark:TOKEN@host/` (the Lunapark-mode api_address).
_URL_PASSWORD = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s/:@'\"]*:)[^\s/@'\"]+@")
REDACTED = "***"


def redact_url_passwords(text: str) -> str:
    """The text with every URL's password replaced: a config names the uploader's api_address, and whoever may
    read the test may read its config, not the API token inside it."""
    return _URL_PASSWORD.sub(lambda m: f"{m[1]}{REDACTED}@", text)


def save_config(test: Test, form_field: str, text: str) -> None:
    """configinitial/configinfo/monitoringconfig: the tank sends each up to five times; the last one wins; URL
    passwords are not kept. PushFormatError when the text cannot be stored (a NUL)."""
    check_text(text, form_field)
    text = redact_url_passwords(text)
    field = CONFIG_FIELDS[form_field]
    if getattr(test, field) != text:
        setattr(test, field, text)
        changed = [field]
        instances = _configs_instances(test)
        if instances is not None and instances != test.instances:
            test.instances = instances  # what the generator ran with (config_instances.py)
            changed.append("instances")
        schedule = None if test.loadscheme else configured_schedule(text)
        if schedule is not None:
            test.loadscheme = [schedule]  # a BFG tank sends none with create.json (config_schedule.py)
            changed.append("loadscheme")
        test.save(update_fields=changed)


def _configs_instances(test: Test) -> int | None:
    """The generator's instances as the tank's configs state them: the effective config's, else the initial one's."""
    for text in (test.config_info, test.config_initial):
        instances = configured_instances(text)
        if instances is not None:
            return instances
    return None


def close_test(test_id: int, exit_code: int | None, *, by_silence: bool = False, reason: str = "") -> bool:
    """Mark the test processing; False when it was not online (already closed).

    The caller then queues `tasks.finish_test` (tasks.finish_after_commit): the post-processing runs behind a flush
    of the buffer on the `ingest` queue, so it never reads a test whose last seconds still wait in Redis.
    """
    with transaction.atomic():
        test = Test.objects.select_for_update().filter(pk=test_id).first()
        if test is None or test.status != TestStatus.ONLINE:
            return False
        if StopRequest.objects.filter(test_id=test_id).exists():
            reason = STOPPED_REASON
        test.status = TestStatus.PROCESSING
        test.exit_code = exit_code
        test.exit_reason = reason or exit_reason(exit_code)
        test.closed_by_silence = by_silence
        test.finished_at = timezone.now()
        test.save(update_fields=["status", "exit_code", "exit_reason", "closed_by_silence", "finished_at"])
    try:
        buffer.unmark_stopped(test_id)  # closed: refused as closed now, the note is not needed any more
    except redis.RedisError as exc:
        log.warning("could not drop the stop note of test %s: %s", test_id, exc)
    transaction.on_commit(lambda: live.status_changed(test_id, TestStatus.PROCESSING))
    return True


def request_stop(test: Test, user: User | None) -> None:
    """A stop asked from the web: kept in PostgreSQL, and noted in Redis where every push's append checks it. If
    Redis cannot be told now, the push path's test cache still sees the stop within push._TEST_TTL_S."""
    StopRequest.objects.get_or_create(test=test, defaults={"requested_by": user})
    try:
        buffer.mark_stopped(test.pk)
    except redis.RedisError as exc:
        log.warning("could not note the stop of test %s in Redis: %s", test.pk, exc)
    pk = test.pk
    transaction.on_commit(lambda: live.status_changed(pk, TestStatus.ONLINE, stop_requested=True))


def stop_requested(test_id: int) -> bool:
    return StopRequest.objects.filter(test_id=test_id).exists()


def note_status_call(test_id: int, status: object) -> None:
    """The tank's status call (Lunapark mode): its tank ends the shooting on a stop (see StatusCall)."""
    text = status if isinstance(status, str) else ""
    StatusCall.objects.update_or_create(test_id=test_id, defaults={"status": text.replace("\x00", "")[:128]})


def close_silent_tests(now_s: float | None = None) -> list[int]:
    """Close online tests with no push for TANKODROM_ONLINE_SILENCE_S (a tank that died without close.json); the
    ids closed, for the caller to finish (tasks.close_silent_tests).

    Silence counts from the newest of: the last push the buffer accepted (Redis), the last flushed push
    (PostgreSQL) and the creation; a test with entries still waiting in the buffer is left for the next run.
    """
    silence_s = int(settings.TANKODROM_ONLINE_SILENCE_S)
    now = timezone.now() if now_s is None else datetime.fromtimestamp(now_s, tz=UTC)
    cutoff = now - timedelta(seconds=silence_s)
    recent = buffer.last_push_times()
    pending = buffer.pending_test_ids()
    closed: list[int] = []
    candidates = Test.objects.filter(status=TestStatus.ONLINE, created_at__lt=cutoff).values_list("id", "last_push_at")
    for test_id, last_push_at in candidates:
        if last_push_at is not None and last_push_at >= cutoff:
            continue
        if recent.get(test_id, 0) >= cutoff.timestamp():
            continue
        if test_id in pending:
            continue
        reason = SILENCE_REASON.format(seconds=silence_s)
        if close_test(test_id, None, by_silence=True, reason=reason):
            log.info("test %s closed after %s s of silence", test_id, silence_s)
            buffer.forget_last_push(test_id)
            closed.append(test_id)
    return closed
