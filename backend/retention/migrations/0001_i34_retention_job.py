import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="RetentionJob",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "status",
                    models.CharField(
                        choices=[("queued", "Queued"), ("running", "Running"), ("done", "Done"), ("failed", "Failed")],
                        default="queued",
                        max_length=16,
                    ),
                ),
                ("active", models.BooleanField(default=True, help_text="queued or running; at most one job is")),
                ("trigger", models.CharField(default="schedule", help_text="schedule or manual", max_length=16)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("tests_total", models.IntegerField(default=0, help_text="tests due when the job started")),
                ("tests_done", models.IntegerField(default=0)),
                ("raw_expired", models.IntegerField(default=0, help_text="tests whose raw samples were deleted")),
                (
                    "aggregates_expired",
                    models.IntegerField(default=0, help_text="tests whose per-second rows were deleted"),
                ),
                (
                    "bytes_before",
                    models.BigIntegerField(blank=True, help_text="bytes on disk of the test tables", null=True),
                ),
                ("bytes_after", models.BigIntegerField(blank=True, null=True)),
                ("step_kind", models.CharField(blank=True, default="", max_length=16)),
                ("step_test_ids", models.JSONField(blank=True, default=list)),
                ("error", models.TextField(blank=True, default="")),
                (
                    "started_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-id"],
                "constraints": [
                    models.UniqueConstraint(
                        condition=models.Q(("active", True)), fields=("active",), name="retention_one_active_job"
                    )
                ],
            },
        ),
    ]
