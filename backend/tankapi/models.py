"""The tank protocol's own per-test state (its own model: loadtests' migrations stay linear)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from backend.loadtests.models import Test


class StopRequest(models.Model):
    """A stop of an online test asked from the web (`POST /api/v1/tests/<id>/stop`): the tank's next push or status
    call for it is answered 410, and its close records "stopped from the web"."""

    test = models.OneToOneField(Test, on_delete=models.CASCADE, primary_key=True, related_name="stop_request")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"stop of test {self.test_id}"


class StatusCall(models.Model):
    """The tank's status call (`PATCH api/v2/jobs/<id>/`, sent in Lunapark mode every `send_status_period`): a tank
    that sends it ends its shooting when it is answered 410, so a Stop from the web stops that test's load. A test
    without one (the `overload:` mode) can only be cut off: its tank shoots on to the end of its schedule."""

    test = models.OneToOneField(Test, on_delete=models.CASCADE, primary_key=True, related_name="status_call")
    status = models.CharField(max_length=128, blank=True, default="", help_text="as the tank sent it: 'shoot 40'")
    first_at = models.DateTimeField(auto_now_add=True)
    last_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"status of test {self.test_id}: {self.status}"
