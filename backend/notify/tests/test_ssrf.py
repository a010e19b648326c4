"""Issue 29: a target's URL was a door to the server's internals (ClickHouse's HTTP interface on 127.0.0.1:8123 ran
the statement in its query string). Every spelling of a local address is refused when a target is saved (400 naming
`url`) and again when a delivery is attempted (a target saved before, or whose name now resolves inside): a loopback
listener sees no connection, and the delivery log says only "refused: address not allowed"."""

from __future__ import annotations

import ipaddress
from typing import Any

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from backend.core import egress
from backend.core.tests.ssrf import Listener, spellings
from backend.loadtests.models import Test, TestStatus
from backend.notify import tasks
from backend.notify.models import Delivery, DeliveryStatus, Event, Target, TargetKind
from backend.notify.secrets import encrypt

pytestmark = [pytest.mark.django_db, pytest.mark.probe]


@pytest.fixture
def nothing_allowed(settings: Any) -> None:
    settings.TANKODROM_EGRESS_ALLOW = ""


def test_saving_a_target_on_any_local_spelling_is_refused_naming_url(
    owner_api: APIClient, nothing_allowed: None
) -> None:
    with Listener() as listener:
        for url in spellings(listener.port):
            for kind in ("webhook", "slack", "teams", "teams_workflow"):
                answer = owner_api.post(
                    "/api/v1/notify/targets/", {"kind": kind, "name": "x", "url": url}, format="json"
                )
                assert answer.status_code == 400, (url, answer.content)
                assert answer.json()["error"].startswith("url: "), url
        assert listener.connections == 0
    assert not Target.objects.exists()


def test_a_name_resolving_inside_is_refused_when_saved(
    owner_api: APIClient, nothing_allowed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(egress, "resolve", lambda host, port: [ipaddress.ip_address("169.254.169.254")])
    answer = owner_api.post(
        "/api/v1/notify/targets/", {"kind": "webhook", "name": "x", "url": "http://hooks.example.com/"}, format="json"
    )
    assert answer.status_code == 400
    assert answer.json()["error"].startswith("url: refused: address not allowed")


def test_each_delivery_checks_again_and_logs_only_the_reason_class(owner: User, nothing_allowed: None) -> None:
    with Listener() as listener:
        test = Test.objects.create(owner=owner, name="run", component="api", status=TestStatus.READY)
        for index, url in enumerate(spellings(listener.port)):
            # As if saved while allowed, or before this check existed.
            target = Target.objects.create(
                owner=owner,
                kind=TargetKind.WEBHOOK,
                name=f"t{index}",
                address_encrypted=encrypt(url),
                secret_encrypted=encrypt("k"),
            )
            delivery = Delivery.objects.create(
                target=target, test=test, component="api", event=Event.TEST_FINISHED, message={"event": "x"}
            )
            assert tasks.deliver.apply(args=(delivery.pk,)).get() == DeliveryStatus.FAILED
            delivery.refresh_from_db()
            assert (delivery.status, delivery.attempts) == (DeliveryStatus.FAILED, 1), url
            assert delivery.last_error == "refused: address not allowed", url
            assert delivery.last_status_code is None
        assert listener.connections == 0


def test_telegram_goes_through_the_same_policy(owner: User, nothing_allowed: None, settings: Any) -> None:
    with Listener() as listener:
        settings.TANKODROM_TELEGRAM_API_URL = f"http://127.1:{listener.port}/tg"
        test = Test.objects.create(owner=owner, name="run", component="api", status=TestStatus.READY)
        target = Target.objects.create(
            owner=owner,
            kind=TargetKind.TELEGRAM,
            name="bot",
            address_encrypted=encrypt("123456:ABCdefGhIJKlmNoPQRsTUVwxyZ012345"),
            chat_id="1",
        )
        delivery = Delivery.objects.create(
            target=target, test=test, component="api", event=Event.TEST_FINISHED, message={"title": "t", "url": "u"}
        )
        assert tasks.deliver.apply(args=(delivery.pk,)).get() == DeliveryStatus.FAILED
        assert listener.connections == 0
