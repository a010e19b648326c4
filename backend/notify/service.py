"""Which events a finished test raises, who hears of them, and one attempt at a delivery.

`queue_for_test` runs once a test's post-processing and diagnosis are done (`tasks.notify_test`): it judges the
test as `tankodrom check` does for each receiving target's owner (a baseline they may not read is not compared),
then writes one Delivery per (target, event) for the component's subscriptions and for the tank's `notify:` users
who have targets, are members of the test's project and allowed it there (Membership.tank_notify), each target
seeing only tests its owner may read; the other `notify:` users' targets get a skipped delivery naming why.
Deliveries are unique per (target, test, event), so a second run queues nothing new.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from backend.loadtests.models import Test, TestStatus
from backend.loadtests.permissions import can_read
from backend.notify.channels import DeliveryError, build_request, send
from backend.notify.models import Delivery, DeliveryStatus, Event, Subscription, Target
from backend.notify.secrets import SecretUnreadable
from backend.projects.models import Membership
from backend.regressions.service import CheckError, check, report_url

log = logging.getLogger(__name__)


def judge(test: Test, reader: Any) -> dict[str, Any] | None:
    """The check's answer for a test of a component as `reader` (the receiving target's owner) sees it: a baseline
    that reader may not read is not compared, so its figures never reach them. None without a component."""
    if not test.component:
        return None
    try:
        return check(test.component, test, reader)
    except CheckError as exc:
        return {"pass": True, "reasons": [], "notes": [exc.message]}


def tank_failed(test: Test) -> bool:
    """The tank ended the run with an error (autostop, a crash): its data is there, but the test failed."""
    return test.exit_code is not None and test.exit_code != 0


def events_of(test: Test, verdict: dict[str, Any] | None) -> list[str]:
    if test.status == TestStatus.FAILED:
        return [Event.TEST_FAILED]
    events: list[str] = [Event.TEST_FINISHED]
    if verdict is not None and not verdict.get("pass", True):
        events.append(Event.REGRESSION_FOUND)
    if tank_failed(test):
        events.append(Event.TEST_FAILED)
    return events


def message_of(test: Test, event: str, verdict: dict[str, Any] | None) -> dict[str, Any]:
    """{title, lines, url, ...}: the verdict lines and the report link, as every target kind renders them."""
    name = f"#{test.pk}" + (f" {test.name}" if test.name else "")
    where = f" ({test.component})" if test.component else ""
    reasons = list(verdict.get("reasons", [])) if verdict else []
    if event == Event.TEST_FAILED:
        title = f"Test {name}{where} failed"
        if test.status == TestStatus.FAILED:
            lines = [test.error[:500]] if test.error else ["the test failed"]
        else:
            lines = [f"the tank ended it with exit code {test.exit_code}: {test.exit_reason or 'an error'}"]
    elif event == Event.REGRESSION_FOUND:
        title = f"Regression in {test.component}: test {name}"
        lines = reasons
    else:
        passed = verdict is None or verdict.get("pass", True)
        title = f"Test {name}{where} finished" + ("" if verdict is None else (": passed" if passed else ": failed"))
        lines = reasons if reasons else (["passes its thresholds and the baseline"] if verdict else [])
    return {
        "event": event,
        "title": title,
        "lines": lines,
        "url": report_url(int(test.pk)),
        "test_id": int(test.pk),
        "component": test.component,
        "pass": None if verdict is None else bool(verdict.get("pass", True)),
    }


@dataclass(frozen=True)
class Skipped:
    """A target the tank's `notify:` named that is not told of the test, and why (the delivery log's line)."""

    target: Target
    reason: str


def _recipients(test: Test) -> tuple[list[tuple[Target, str, frozenset[str] | None]], list[Skipped]]:
    """(target, via, the events it subscribed to or None for all) for the component's subscriptions and the tank's
    notify: users, each target seeing only tests its owner may read; and the targets of the notify: users who are
    skipped: no member of the test's project, or one who has not allowed it there (Membership.tank_notify)."""
    out: list[tuple[Target, str, frozenset[str] | None]] = []
    skipped: list[Skipped] = []
    if test.component:
        for sub in Subscription.objects.filter(project_id=test.project_id, component=test.component).select_related(
            "target", "target__owner"
        ):
            if can_read(sub.target.owner, test):  # a private test is nobody else's news
                out.append((sub.target, "subscription", frozenset(sub.events)))
    names = [str(n) for n in (test.notify or []) if str(n)]
    if names:
        users = get_user_model().objects.filter(username__in=names)
        allowed = dict(
            Membership.objects.filter(project_id=test.project_id, user__in=users).values_list("user_id", "tank_notify")
        )
        project = test.project.slug
        for target in Target.objects.filter(owner__in=users, for_tank_notify=True).select_related("owner"):
            if target.owner_id not in allowed:
                skipped.append(Skipped(target, f"skipped: you are no member of project {project!r}"))
            elif not allowed[target.owner_id]:
                skipped.append(
                    Skipped(target, f"skipped: you have not allowed a tank's notify: for project {project!r}")
                )
            elif can_read(target.owner, test):
                out.append((target, "tank_notify", None))
            else:
                skipped.append(Skipped(target, "skipped: you may not read this test"))
    return out, skipped


def _log_skipped(test: Test, skipped: list[Skipped]) -> list[int]:
    """One delivery per skipped target, never sent: its status and reason are the delivery log's line, readable
    by the target's owner (and staff) only, so the tank's pusher learns nothing of who exists or allowed it. The
    message holds nothing of the test (its receiver may not be allowed to read it)."""
    event = events_of(test, None)[0]
    created: list[int] = []
    for item in skipped:
        try:
            with transaction.atomic():
                delivery = Delivery.objects.create(
                    target=item.target,
                    test=test,
                    component=test.component,
                    event=event,
                    via="tank_notify",
                    message={},
                    status=DeliveryStatus.SKIPPED,
                    last_error=item.reason,
                )
        except IntegrityError:
            continue  # logged by an earlier run
        created.append(int(delivery.pk))
    return created


def queue_for_test(test_id: int) -> list[int]:
    """Create the deliveries of a finished test; returns the ids of the new ones (to send). Each target's message
    is judged as its owner sees the test (issue 29), so nobody receives figures of a baseline they may not read."""
    test = Test.objects.select_related("owner", "project").filter(pk=test_id).first()
    if test is None or test.status not in (TestStatus.READY, TestStatus.FAILED):
        return []
    # Cheap first: nobody to tell, nothing to judge.
    has_subs = (
        bool(test.component)
        and Subscription.objects.filter(project_id=test.project_id, component=test.component).exists()
    )
    if not has_subs and not test.notify:
        return []
    verdicts: dict[int, dict[str, Any] | None] = {}
    seen: set[tuple[int, str]] = set()  # (target, event): a subscription's delivery first, then the tank's notify:
    created: list[int] = []
    recipients, skipped = _recipients(test)
    _log_skipped(test, skipped)
    for target, via, wanted in recipients:
        if target.owner_id not in verdicts:
            # A failed test has no figures to judge: it is news as it is.
            verdicts[target.owner_id] = None if test.status == TestStatus.FAILED else judge(test, target.owner)
        verdict = verdicts[target.owner_id]
        for event in events_of(test, verdict):
            if (wanted is not None and event not in wanted) or (target.pk, event) in seen:
                continue
            seen.add((target.pk, event))
            try:
                with transaction.atomic():
                    delivery = Delivery.objects.create(
                        target=target,
                        test=test,
                        component=test.component,
                        event=event,
                        via=via,
                        message=message_of(test, event, verdict),
                    )
            except IntegrityError:
                continue  # already queued by an earlier run
            created.append(int(delivery.pk))
    return created


def unannounced_failures(since: datetime, limit: int = 200) -> list[int]:
    """Failed tests (an upload that failed never reaches the diagnosis) not yet announced as failed."""
    query = (
        Test.objects.filter(status=TestStatus.FAILED, created_at__gte=since)
        .exclude(notify_deliveries__event=Event.TEST_FAILED)
        .order_by("-id")
        .values_list("pk", flat=True)
    )
    return [int(pk) for pk in query[:limit]]


def target_of(delivery_id: int) -> int | None:
    target_id = Delivery.objects.filter(pk=delivery_id).values_list("target_id", flat=True).first()
    return None if target_id is None else int(target_id)


def attempt(delivery_id: int) -> tuple[str, bool, int]:
    """Send a delivery once; (status, retry?, attempts so far) where retry means a later attempt may succeed."""
    delivery = Delivery.objects.select_related("target").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != DeliveryStatus.PENDING:
        return (delivery.status if delivery else "gone"), False, (delivery.attempts if delivery else 0)
    attempts = delivery.attempts + 1
    Delivery.objects.filter(pk=delivery_id).update(attempts=attempts)
    try:
        code = send(build_request(delivery.target, delivery.message, int(delivery.pk)))
    except SecretUnreadable as exc:
        _finish(delivery_id, DeliveryStatus.FAILED, None, str(exc))
        return DeliveryStatus.FAILED, False, attempts
    except DeliveryError as exc:
        Delivery.objects.filter(pk=delivery_id).update(last_error=exc.message[:2000], last_status_code=exc.status_code)
        return DeliveryStatus.PENDING, exc.retryable, attempts
    _finish(delivery_id, DeliveryStatus.SENT, code, "")
    return DeliveryStatus.SENT, False, attempts


def give_up(delivery_id: int) -> None:
    Delivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING).update(status=DeliveryStatus.FAILED)


def _finish(delivery_id: int, status: str, code: int | None, error: str) -> None:
    Delivery.objects.filter(pk=delivery_id).update(
        status=status,
        last_status_code=code,
        last_error=error[:2000],
        sent_at=timezone.now() if status == DeliveryStatus.SENT else None,
    )
