"""Tests and API tokens join projects: everything existing goes to the project "default".

Who could read what stays as it was: a public test stays public, a private one becomes owner-only (visibility
"owner": its owner and site admins), since every owner of a test or token becomes an admin of the default project
(where "project" visibility would show it to all of them). Other accounts join with the site's default role
(TANKODROM_DEFAULT_PROJECT_ROLE), as new accounts do. Tokens go to the default project with no role cap: they act
as their user, an admin there.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

ADMIN = 40
ROLES = {"viewer": 10, "uploader": 20, "maintainer": 30, "admin": 40}


def into_default_project(apps, schema_editor):
    Project = apps.get_model("projects", "Project")
    Membership = apps.get_model("projects", "Membership")
    Test = apps.get_model("loadtests", "Test")
    ApiToken = apps.get_model("loadtests", "ApiToken")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    default, _ = Project.objects.get_or_create(slug="default", defaults={"name": "Default"})
    Test.objects.filter(project__isnull=True).update(project=default)
    Test.objects.filter(is_private=True).update(visibility="owner")
    ApiToken.objects.filter(project__isnull=True).update(project=default)
    owners = set(Test.objects.values_list("owner_id", flat=True)) | set(
        ApiToken.objects.values_list("user_id", flat=True)
    )
    others_role = ROLES.get(str(getattr(settings, "TANKODROM_DEFAULT_PROJECT_ROLE", "uploader")).strip().lower())
    members = set(Membership.objects.filter(project=default).values_list("user_id", flat=True))
    rows = []
    for user_id in User.objects.values_list("pk", flat=True):
        role = ADMIN if user_id in owners else others_role
        if role is not None and user_id not in members:
            rows.append(Membership(project=default, user_id=user_id, role=role))
    Membership.objects.bulk_create(rows, batch_size=1000)
    # The checks of the new keys run now, not at commit: the same transaction alters the table next.
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def back_to_private_flags(apps, schema_editor):
    Test = apps.get_model("loadtests", "Test")
    Test.objects.exclude(visibility="public").update(is_private=True)
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        ("loadtests", "0003_hash_upload_tokens"),
        ("projects", "0001_i30_projects"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="test",
            name="project",
            field=models.ForeignKey(
                null=True, on_delete=django.db.models.deletion.PROTECT, related_name="tests", to="projects.project"
            ),
        ),
        migrations.AddField(
            model_name="test",
            name="visibility",
            field=models.CharField(
                choices=[
                    ("public", "anyone who can reach the server"),
                    ("internal", "any signed-in user"),
                    ("project", "the project's members"),
                    ("owner", "its owner only"),
                ],
                default="public",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="project",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_tokens",
                to="projects.project",
            ),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="role",
            field=models.IntegerField(
                blank=True, choices=[(10, "viewer"), (20, "uploader"), (30, "maintainer"), (40, "admin")], null=True
            ),
        ),
        migrations.RunPython(into_default_project, back_to_private_flags),
        migrations.AlterField(
            model_name="test",
            name="project",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="tests", to="projects.project"
            ),
        ),
        migrations.RemoveField(model_name="test", name="is_private"),
    ]
