"""Deliveries to local receivers on 127.0.0.1: each target kind's payload, the webhook's signature, retries with
backoff against a receiver that answers 500, is slow or is down, secrets at rest, and who gets told of what."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
from typing import Any

import pytest
from celery.exceptions import Retry
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.core import egress
from backend.loadtests.models import Test, TestStatus
from backend.notify import service, tasks
from backend.notify.models import Delivery, DeliveryStatus, Event, Subscription, Target
from backend.notify.tests.receivers import Receiver, down_url
from backend.projects.models import Role, Visibility
from backend.testing import api_client_for, grant

pytestmark = pytest.mark.django_db
BOT_TOKEN = "123456:ABCdefGhIJKlmNoPQRsTUVwxyZ012345"
MESSAGE = {
    "event": "regression_found",
    "title": "Regression in api: test #7 run",
    "lines": ["q99: 141.9 ms is above its threshold 107.9 ms"],
    "url": "http://127.0.0.1:8000/7",
    "test_id": 7,
    "component": "api",
    "pass": False,
}


@pytest.fixture
def fast_retries(settings: Any) -> None:
    settings.TANKODROM_NOTIFY_RETRIES = 2
    settings.TANKODROM_NOTIFY_BACKOFF_S = 1
    settings.TANKODROM_NOTIFY_TIMEOUT_S = 1


def run_like_a_worker(delivery_id: int) -> tuple[str, list[float]]:
    """Run the deliver task as a worker would, retry after retry; (its result, the countdowns it asked for)."""
    countdowns: list[float] = []
    while True:
        try:
            result = tasks.deliver.apply(args=(delivery_id,), retries=len(countdowns), throw=True).get()
        except Retry as exc:
            countdowns.append(float(exc.when))  # type: ignore[arg-type]
            continue
        return str(result), countdowns


def allow_tank_notify(api: APIClient) -> None:
    """The caller lets a tank's `notify:` naming him reach his targets for the default project's tests."""
    answer = api.patch("/api/v1/projects/default/membership/", {"tank_notify": True}, format="json")
    assert answer.status_code == 200, answer.content


def make_target(api: APIClient, **body: Any) -> dict[str, Any]:
    response = api.post("/api/v1/notify/targets/", body, format="json")
    assert response.status_code == 201, response.content
    return dict(response.json())


def delivery_to(target_id: int, owner: User) -> Delivery:
    test = Test.objects.create(owner=owner, name="run", component="api", status=TestStatus.READY)
    return Delivery.objects.create(
        target_id=target_id, test=test, component="api", event=Event.REGRESSION_FOUND, message=MESSAGE
    )


def test_each_kind_of_target_gets_its_payload_with_the_report_link(
    owner: User, owner_api: APIClient, settings: Any
) -> None:
    with Receiver() as rx:
        settings.TANKODROM_TELEGRAM_API_URL = f"{rx.url}/tg"
        slack = make_target(owner_api, kind="slack", name="team chat", url=f"{rx.url}/slack")
        teams = make_target(owner_api, kind="teams", name="teams", url=f"{rx.url}/teams")
        flow = make_target(owner_api, kind="teams_workflow", name="flow", url=f"{rx.url}/flow")
        telegram = make_target(owner_api, kind="telegram", name="tg", token=BOT_TOKEN, chat_id="-100123")
        hook = make_target(owner_api, kind="webhook", name="ci", url=f"{rx.url}/hook")
        for target in (slack, teams, flow, telegram, hook):
            delivery = delivery_to(target["id"], owner)
            assert tasks.deliver.apply(args=(delivery.pk,)).get() == "sent"
        by_path = {r.path: r for r in rx.got}

    text = by_path["/slack"].json()["text"]
    assert text.splitlines()[0] == MESSAGE["title"]
    assert "q99: 141.9 ms is above its threshold 107.9 ms" in text
    assert text.splitlines()[-1] == MESSAGE["url"]  # on a line of its own, so the chat unfurls it
    card = by_path["/teams"].json()
    assert card["@type"] == "MessageCard" and card["title"] == MESSAGE["title"]
    assert card["potentialAction"][0]["targets"][0]["uri"] == MESSAGE["url"]
    flow_card = by_path["/flow"].json()["attachments"][0]
    assert flow_card["contentType"] == "application/vnd.microsoft.card.adaptive"
    assert flow_card["content"]["actions"][0]["url"] == MESSAGE["url"]
    assert flow_card["content"]["body"][0]["text"] == MESSAGE["title"]
    tg = by_path[f"/tg/bot{BOT_TOKEN}/sendMessage"].json()
    assert tg["chat_id"] == "-100123" and tg["text"].endswith(MESSAGE["url"])
    signed = by_path["/hook"]
    expected = hmac.new(hook["secret"].encode(), signed.body, hashlib.sha256).hexdigest()
    assert signed.headers["X-Tankodrom-Signature"] == f"sha256={expected}"
    assert signed.headers["X-Tankodrom-Event"] == "regression_found"
    assert signed.json()["url"] == MESSAGE["url"] and signed.json()["lines"] == MESSAGE["lines"]
    assert Delivery.objects.filter(status=DeliveryStatus.SENT).count() == 5


def test_a_receiver_answering_500_is_retried_with_exponential_backoff(
    owner: User, owner_api: APIClient, fast_retries: None
) -> None:
    with Receiver(failures=2) as rx:
        target = make_target(owner_api, kind="slack", name="flaky", url=f"{rx.url}/flaky")
        delivery = delivery_to(target["id"], owner)
        status, countdowns = run_like_a_worker(delivery.pk)
        assert status == "sent"
        assert len(rx.got) == 3
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.last_status_code) == ("sent", 3, 200)
    assert countdowns == [1.0, 2.0]
    # Sent is final: running the task again sends nothing.
    assert tasks.deliver.apply(args=(delivery.pk,)).get() == "sent"


def test_a_receiver_that_is_down_fails_after_the_retries(owner: User, owner_api: APIClient, fast_retries: None) -> None:
    target = make_target(owner_api, kind="webhook", name="down", url=down_url())
    delivery = delivery_to(target["id"], owner)
    status, countdowns = run_like_a_worker(delivery.pk)
    assert status == "failed"
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.attempts == 3
    assert delivery.last_error == "no answer within 1 s"
    assert countdowns == [1.0, 2.0]


def test_a_slow_receiver_times_out_and_is_retried(owner: User, owner_api: APIClient, fast_retries: None) -> None:
    with Receiver(delay_s=1.5) as rx:
        target = make_target(owner_api, kind="teams", name="slow", url=f"{rx.url}/slow")
        delivery = delivery_to(target["id"], owner)
        assert run_like_a_worker(delivery.pk) == ("failed", [1.0, 2.0])
        assert len(rx.got) == 3
    delivery.refresh_from_db()
    assert delivery.last_error == "no answer within 1 s"


def test_a_client_error_is_not_retried(owner: User, owner_api: APIClient, fast_retries: None) -> None:
    with Receiver(failures=5, fail_status=404) as rx:
        target = make_target(owner_api, kind="slack", name="gone", url=f"{rx.url}/gone")
        delivery = delivery_to(target["id"], owner)
        assert tasks.deliver.apply(args=(delivery.pk,)).get() == "failed"
        assert len(rx.got) == 1
    delivery.refresh_from_db()
    assert delivery.last_status_code == 404
    assert delivery.last_error == "HTTP 404"  # neither the body nor the reason phrase is echoed back


def test_addresses_and_secrets_are_encrypted_and_never_answered(
    owner: User, owner_api: APIClient, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(egress, "resolve", lambda host, port: [ipaddress.ip_address("93.184.215.14")])
    url = "https://hooks.example.invalid/services/T000/B000/XXXXSECRETPATH"
    created = make_target(owner_api, kind="webhook", name="ci", url=url, secret="my-signing-key")
    assert "secret" not in created  # the caller chose it: nothing to show
    stored = Target.objects.get(pk=created["id"])
    assert "XXXXSECRETPATH" not in stored.address_encrypted and "my-signing-key" not in stored.secret_encrypted
    listed = owner_api.get("/api/v1/notify/targets/")
    assert listed.status_code == 200
    assert "XXXXSECRETPATH" not in listed.content.decode() and "my-signing-key" not in listed.content.decode()
    assert listed.json()[0]["address_hint"] == "https://hooks.example.invalid/…"
    # Another key cannot read it: the delivery fails saying so, without retrying.
    settings.TANKODROM_NOTIFY_KEY = "a different key"
    delivery = delivery_to(created["id"], owner)
    assert tasks.deliver.apply(args=(delivery.pk,)).get() == "failed"
    delivery.refresh_from_db()
    assert "encrypted with another key" in delivery.last_error and delivery.attempts == 1


def test_the_tanks_notify_users_with_a_target_are_told(owner: User, owner_api: APIClient) -> None:
    alice = User.objects.create_user("alice", password="x")
    with Receiver() as rx:
        make_target(api_client_for(alice), kind="slack", name="alice's", url=f"{rx.url}/alice")
        allow_tank_notify(api_client_for(alice))
        # Named by the tank but without a target, or unknown: nothing to send to.
        allow_tank_notify(api_client_for(User.objects.create_user("bob", password="x")))
        test = Test.objects.create(owner=owner, name="nightly", status=TestStatus.READY, notify=["alice", "bob", "zed"])
        created = tasks.notify_test.apply(args=(test.pk,)).get()
        assert len(created) == 1
        assert [r.path for r in rx.got] == ["/alice"]
        assert rx.got[0].json()["text"].startswith(f"Test #{test.pk} nightly finished")
    # Queued once: a second run (Celery may deliver the task twice) adds nothing.
    assert tasks.notify_test.apply(args=(test.pk,)).get() == []
    delivery = Delivery.objects.get()
    assert (delivery.via, delivery.event, delivery.status) == ("tank_notify", "test_finished", "sent")


def test_a_failed_test_is_announced_as_failed(owner: User, owner_api: APIClient) -> None:
    make_target(owner_api, kind="slack", name="mine", url=down_url())
    allow_tank_notify(owner_api)
    test = Test.objects.create(owner=owner, status=TestStatus.FAILED, error="phout upload 3 failed", notify=["owner"])
    assert len(service.queue_for_test(test.pk)) == 1
    delivery = Delivery.objects.get()
    assert delivery.event == "test_failed"
    assert delivery.message["lines"] == ["phout upload 3 failed"]


def test_a_private_test_is_not_sent_to_someone_who_may_not_read_it(owner: User, other_api: APIClient) -> None:
    target = make_target(other_api, kind="slack", name="other's", url=down_url())
    grant(User.objects.get(username="other"), Role.MAINTAINER)  # a say in the component
    subscribed = other_api.post(
        "/api/v1/components/api/subscriptions/",
        {"target": target["id"], "events": ["test_failed"]},
        format="json",
    )
    assert subscribed.status_code == 201, subscribed.content
    private = Test.objects.create(owner=owner, component="api", status=TestStatus.FAILED, visibility=Visibility.OWNER)
    public = Test.objects.create(owner=owner, component="api", status=TestStatus.FAILED)
    assert service.queue_for_test(private.pk) == []
    assert len(service.queue_for_test(public.pk)) == 1
    assert Subscription.objects.count() == 1


def test_a_tank_run_ended_by_an_error_is_announced_as_failed_too(owner: User, owner_api: APIClient) -> None:
    make_target(owner_api, kind="slack", name="mine", url=down_url())
    allow_tank_notify(owner_api)
    test = Test.objects.create(
        owner=owner, status=TestStatus.READY, exit_code=21, exit_reason="autostop: time", notify=["owner"]
    )
    service.queue_for_test(test.pk)
    events = dict(Delivery.objects.values_list("event", "message"))
    assert set(events) == {"test_finished", "test_failed"}
    assert events["test_failed"]["lines"] == ["the tank ended it with exit code 21: autostop: time"]


def test_failed_uploads_are_announced_by_the_periodic_sweep_once(owner: User, owner_api: APIClient) -> None:
    allow_tank_notify(owner_api)
    failed = Test.objects.create(owner=owner, status=TestStatus.FAILED, error="not a phout", notify=["owner"])
    Test.objects.create(owner=owner, status=TestStatus.READY, notify=["owner"])  # not the sweep's business
    with Receiver() as rx:
        make_target(owner_api, kind="slack", name="mine", url=f"{rx.url}/mine")
        first = tasks.announce_failures.apply().get()
        assert len(first) == 1
        assert tasks.announce_failures.apply().get() == []
        assert len(rx.got) == 1
    assert rx.got[0].json()["text"].startswith(f"Test #{failed.pk} failed")
    assert Delivery.objects.get(pk=first[0]).test_id == failed.pk


def test_a_busy_target_waits_without_spending_an_attempt(
    owner: User, owner_api: APIClient, settings: Any, redis_db: object
) -> None:
    """At most TANKODROM_OUTBOUND_PER_TARGET deliveries to one target at once, across all outbound workers."""
    from backend.core import semaphore

    settings.TANKODROM_OUTBOUND_PER_TARGET = 1
    settings.TANKODROM_OUTBOUND_BUSY_S = 7
    with Receiver() as rx:
        target = make_target(owner_api, kind="slack", name="busy", url=rx.url)
        delivery = delivery_to(target["id"], owner)
        token = semaphore.acquire(tasks.target_key(target["id"]), 1, 60)  # another worker is sending to it
        assert token is not None
        with pytest.raises(Retry) as retry:
            tasks.deliver.apply(args=(delivery.pk,), throw=True).get()
        assert float(retry.value.when) == 7.0  # type: ignore[arg-type]
        delivery.refresh_from_db()
        assert (delivery.attempts, len(rx.got)) == (0, 0)
        semaphore.release(tasks.target_key(target["id"]), token)
        assert tasks.deliver.apply(args=(delivery.pk,)).get() == "sent"
        assert len(rx.got) == 1


@pytest.mark.probe
def test_each_target_is_judged_as_its_owner_sees_the_test(
    owner: User, owner_api: APIClient, other_api: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: a notification was judged as the test's owner, so a subscriber who may not read the private baseline
    still received its figures. The check (which compares only a baseline its reader may read) now runs as each
    receiving target's owner, and each message carries that owner's verdict."""
    judged_as: list[str] = []

    def check(component: str, test: Test, user: Any) -> dict[str, Any]:
        judged_as.append(user.username)
        reasons = ["q99: 141.9 ms is worse than the baseline's 100.0 ms"] if user.username == "owner" else []
        return {"pass": not reasons, "reasons": reasons, "notes": []}

    monkeypatch.setattr(service, "check", check)
    other = User.objects.get(username="other")
    for user in (owner, other):
        grant(user, Role.MAINTAINER)  # a say in the component
    for api, name in ((owner_api, "owner's"), (other_api, "other's")):
        target = make_target(api, kind="slack", name=name, url=down_url())
        events = {"target": target["id"], "events": ["test_finished", "regression_found"]}
        assert api.post("/api/v1/components/api/subscriptions/", events, format="json").status_code == 201
    test = Test.objects.create(owner=owner, component="api", status=TestStatus.READY, name="run")
    assert len(service.queue_for_test(test.pk)) == 3
    assert sorted(judged_as) == ["other", "owner"]
    by_owner = {(d.target.owner.username, d.event): d.message for d in Delivery.objects.select_related("target__owner")}
    assert set(by_owner) == {("owner", "test_finished"), ("owner", "regression_found"), ("other", "test_finished")}
    assert "141.9" not in json.dumps(by_owner[("other", "test_finished")])  # the owner's baseline figures
    assert by_owner[("other", "test_finished")]["pass"] is True
