"""Test metadata, raw uploads and API tokens (PostgreSQL). Samples and series live in ClickHouse."""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Any

from django.conf import settings
from django.db import models

from backend.projects.models import InDefaultProjectUnlessSet, Project, Role, Visibility


def new_upload_token() -> str:
    # The tank pastes it into the URL without encoding: 32 hex chars, as the real Overload issued.
    return secrets.token_hex(16)


_HASHED = re.compile(r"^[0-9a-f]{64}$")


def hash_upload_token(raw: str) -> str:
    """What is stored of an upload token: its SHA-256 in hex (128 random bits: a fast hash is enough)."""
    return hashlib.sha256(raw.encode()).hexdigest()


class UploadTokenField(models.CharField):  # type: ignore[type-arg]
    """An upload token stored as its hash, as API tokens are: whoever reads the database cannot push as the tank.

    A raw token assigned to the field (32 hex chars, `new_upload_token`) is hashed on its way to the database; the
    instance keeps the raw one in memory, so the code that creates a test can hand it out once (create.json), and
    a test row read back holds the hash only. Compare a token sent by a tank with `hash_upload_token(sent)`.
    """

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if isinstance(value, str) and not _HASHED.match(value):
            return hash_upload_token(value)
        return value


class TestStatus(models.TextChoices):
    ONLINE = "online"
    PROCESSING = "processing"
    READY = "ready"
    FAILED = "failed"


class Test(InDefaultProjectUnlessSet):
    """One shooting. Its id is the number in `/<id>` and in the tank's `job`."""

    __test__ = False  # not a pytest test class

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tests")
    project = models.ForeignKey(Project, on_delete=models.PROTECT, related_name="tests")
    name = models.CharField(max_length=512, blank=True, default="")
    description = models.TextField(blank=True, default="")
    task = models.CharField(max_length=256, blank=True, default="")
    person = models.CharField(max_length=256, blank=True, default="", help_text="author as the tank reports it")
    component = models.CharField(max_length=256, blank=True, default="", db_index=True)
    version = models.CharField(max_length=256, blank=True, default="")
    target_host = models.CharField(max_length=512, blank=True, default="")
    target_port = models.CharField(max_length=32, blank=True, default="")
    tank_host = models.CharField(max_length=512, blank=True, default="")
    command_line = models.TextField(blank=True, default="")
    ammo = models.TextField(blank=True, default="")
    loop = models.CharField(max_length=64, blank=True, default="")
    instances = models.IntegerField(null=True, blank=True)
    loadscheme = models.JSONField(default=list, blank=True, help_text="as the tank sent it (list of str or dicts)")
    notify = models.JSONField(default=list, blank=True)
    tank_type = models.IntegerField(null=True, blank=True)

    status = models.CharField(max_length=16, choices=TestStatus.choices, default=TestStatus.ONLINE, db_index=True)
    error = models.TextField(blank=True, default="")
    exit_code = models.IntegerField(null=True, blank=True)
    exit_reason = models.CharField(max_length=256, blank=True, default="")
    closed_by_silence = models.BooleanField(default=False)

    upload_token = UploadTokenField(max_length=64, unique=True, default=new_upload_token)
    # True when the tank streamed per-second aggregates (source_id 0 in second_aggregates).
    has_stream = models.BooleanField(default=False)
    # The upload whose raw samples are the exact source of this test's figures, if any.
    active_upload = models.ForeignKey("Upload", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    first_ts = models.BigIntegerField(null=True, blank=True, help_text="first response second, unix s")
    last_ts = models.BigIntegerField(null=True, blank=True, help_text="last response second, unix s")
    last_push_at = models.DateTimeField(null=True, blank=True)

    config_initial = models.TextField(blank=True, default="")
    config_info = models.TextField(blank=True, default="")
    config_monitoring = models.TextField(blank=True, default="")

    starred = models.BooleanField(default=False)  # starred (pinned) tests are never expired by retention
    visibility = models.CharField(max_length=16, choices=Visibility.choices, default=Visibility.PUBLIC)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Set by retention (backend/retention) before it deletes the rows: from then on the report reads the per-second
    # aggregates' histograms instead of the raw samples, and after aggregates_expired_at only the stored figures.
    raw_expired_at = models.DateTimeField(null=True, blank=True)
    aggregates_expired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name}"

    @property
    def is_private(self) -> bool:
        """Not readable by anyone with the link (the API's field from before visibilities)."""
        return self.visibility != Visibility.PUBLIC


# Groups of a test's fields that the API's serializer and the archive both carry.
# What names the test: its title and text, the task (ticket), who ran it, the component and version under test.
RUN_LABELS = ("name", "description", "task", "person", "component", "version")
# What the tank was set to do: where it shot from and at, with which command, ammo and load.
RUN_SETUP = ("target_host", "target_port", "tank_host", "command_line", "ammo", "loop", "instances", "loadscheme")
# How the run went: set by the tank and the server, never written through the API.
RUN_OUTCOME = ("status", "error", "exit_code", "exit_reason", "closed_by_silence", "has_stream")


class UploadStatus(models.TextChoices):
    RECEIVING = "receiving"
    PARSING = "parsing"
    READY = "ready"
    FAILED = "failed"
    SUPERSEDED = "superseded"


class Upload(models.Model):
    """One raw phout file sent for a test; its rows in ClickHouse carry `upload_id`."""

    test = models.ForeignKey(Test, on_delete=models.CASCADE, related_name="uploads")
    content_digest = models.CharField(
        max_length=80, blank=True, default="", db_index=True, help_text='"xxh3-128:<hex>" (backend/uploads/digest.py)'
    )
    file_path = models.CharField(max_length=1024, blank=True, default="")
    size_bytes = models.BigIntegerField(default=0)
    status = models.CharField(max_length=16, choices=UploadStatus.choices, default=UploadStatus.RECEIVING)
    error = models.TextField(blank=True, default="")
    progress_bytes = models.BigIntegerField(default=0)
    lines_total = models.BigIntegerField(default=0)
    lines_bad = models.BigIntegerField(default=0)
    bad_examples = models.JSONField(default=list, blank=True, help_text="first bad lines: [{line, reason}]")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"upload {self.pk} of test {self.test_id} ({self.status})"


class ApiToken(models.Model):
    """A user's API token. Only its SHA-256 is stored; the token is shown once, when it is created."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    # A token scoped to a project acts there only, with at most `role` (None: the user's own role); a token without
    # a project acts with the user's roles everywhere (backend.projects.access.role_of).
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.CASCADE, related_name="api_tokens")
    role = models.IntegerField(choices=Role.choices, null=True, blank=True)
    name = models.CharField(max_length=128, blank=True, default="")
    key_prefix = models.CharField(max_length=12, help_text="first characters, to tell tokens apart in lists")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.key_prefix}… ({self.name or 'unnamed'})"
