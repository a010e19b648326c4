"""Projects, memberships and the audit log; every install gets the project "default"."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

VISIBILITY = [
    ("public", "anyone who can reach the server"),
    ("internal", "any signed-in user"),
    ("project", "the project's members"),
    ("owner", "its owner only"),
]
ROLES = [(10, "viewer"), (20, "uploader"), (30, "maintainer"), (40, "admin")]


def create_default_project(apps, schema_editor):
    apps.get_model("projects", "Project").objects.get_or_create(slug="default", defaults={"name": "Default"})


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Project",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "slug",
                    models.CharField(
                        max_length=64,
                        unique=True,
                        validators=[
                            django.core.validators.RegexValidator(
                                "^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$",
                                "lowercase letters, digits and inner hyphens, up to 64",
                            )
                        ],
                    ),
                ),
                ("name", models.CharField(max_length=256)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("retention_raw_days", models.IntegerField(blank=True, null=True)),
                ("retention_aggregates_days", models.IntegerField(blank=True, null=True)),
                ("quota_bytes", models.BigIntegerField(blank=True, null=True)),
                ("default_visibility", models.CharField(choices=VISIBILITY, default="public", max_length=16)),
            ],
            options={"ordering": ["slug"]},
        ),
        migrations.CreateModel(
            name="Membership",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("role", models.IntegerField(choices=ROLES)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="memberships", to="projects.project"
                    ),
                ),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memberships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["project_id", "-role", "user_id"],
                "constraints": [models.UniqueConstraint(fields=("project", "user"), name="projects_one_membership")],
            },
        ),
        migrations.CreateModel(
            name="AuditEvent",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("at", models.DateTimeField(auto_now_add=True, db_index=True)),
                (
                    "action",
                    models.CharField(db_index=True, help_text='e.g. "member.add", "baseline.set"', max_length=64),
                ),
                ("target", models.CharField(blank=True, default="", max_length=512)),
                ("details", models.JSONField(blank=True, default=dict)),
                (
                    "actor",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="projects.project",
                    ),
                ),
            ],
            options={"ordering": ["-at", "-id"]},
        ),
        migrations.RunPython(create_default_project, migrations.RunPython.noop),
    ]
