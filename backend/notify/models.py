"""Notification targets (where to send), subscriptions (which component's events go there) and deliveries (the log).

A target's URL or bot token and its signing secret are stored encrypted (`backend.notify.secrets`) and never
answered by the API. A delivery is unique per (target, test, event): queuing one twice sends it once.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from backend.loadtests.models import Test
from backend.projects.models import InDefaultProjectUnlessSet, Project


class TargetKind(models.TextChoices):
    SLACK = "slack", "Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat)"
    TEAMS = "teams", "Microsoft Teams incoming webhook (Office 365 connector: MessageCard)"
    TEAMS_WORKFLOW = "teams_workflow", "Microsoft Teams Workflows webhook (Adaptive Card)"
    TELEGRAM = "telegram", "Telegram bot"
    WEBHOOK = "webhook", "Signed JSON webhook (HMAC-SHA256)"


class Event(models.TextChoices):
    TEST_FINISHED = "test_finished"
    REGRESSION_FOUND = "regression_found"
    TEST_FAILED = "test_failed"


class Target(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notify_targets")
    kind = models.CharField(max_length=16, choices=TargetKind.choices)
    name = models.CharField(max_length=128)
    # The webhook URL, or the Telegram bot token; Fernet-encrypted.
    address_encrypted = models.TextField()
    # What the API shows instead of the address: its scheme and host, or the bot's id.
    address_hint = models.CharField(max_length=256, blank=True, default="")
    secret_encrypted = models.TextField(blank=True, default="", help_text="webhook: the HMAC key, encrypted")
    chat_id = models.CharField(max_length=64, blank=True, default="", help_text="telegram: the chat to post to")
    # Tests whose tank config names this target's owner in `notify:` are sent here too.
    for_tank_notify = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.name}"


class Subscription(InDefaultProjectUnlessSet):
    target = models.ForeignKey(Target, on_delete=models.CASCADE, related_name="subscriptions")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    component = models.CharField(max_length=256, db_index=True)
    events = models.JSONField(default=list, help_text="Event values")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["target", "project", "component"], name="notify_one_sub_per_target")
        ]

    def __str__(self) -> str:
        return f"{self.component} → {self.target}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"
    # Never sent: a tank's `notify:` named the target's owner, who is no member of the test's project or has not
    # allowed it there (last_error says which); the message holds nothing of the test.
    SKIPPED = "skipped"


class Delivery(models.Model):
    target = models.ForeignKey(Target, on_delete=models.CASCADE, related_name="deliveries")
    test = models.ForeignKey(Test, on_delete=models.CASCADE, related_name="notify_deliveries")
    component = models.CharField(max_length=256, blank=True, default="", db_index=True)
    event = models.CharField(max_length=32, choices=Event.choices)
    via = models.CharField(max_length=16, default="subscription", help_text="subscription or tank_notify")
    message = models.JSONField(default=dict, help_text="what is sent: {title, lines, url}")
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.IntegerField(default=0)
    last_status_code = models.IntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [models.UniqueConstraint(fields=["target", "test", "event"], name="notify_once_per_event")]

    def __str__(self) -> str:
        return f"{self.event} of {self.test_id} → {self.target_id} ({self.status})"
