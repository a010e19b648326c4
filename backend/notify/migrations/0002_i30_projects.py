"""Subscriptions are to a (project, component); the existing ones belong to the project "default", where every
existing test went (loadtests 0004)."""

import django.db.models.deletion
from django.db import migrations, models


def into_default_project(apps, schema_editor):
    default, _ = apps.get_model("projects", "Project").objects.get_or_create(
        slug="default", defaults={"name": "Default"}
    )
    apps.get_model("notify", "Subscription").objects.filter(project__isnull=True).update(project=default)
    # The checks of the new keys run now, not at commit: the same transaction alters the table next.
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def project_field(null: bool) -> models.ForeignKey:  # type: ignore[type-arg]
    return models.ForeignKey(
        null=null, on_delete=django.db.models.deletion.CASCADE, related_name="+", to="projects.project"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("notify", "0001_initial"),
        ("projects", "0001_i30_projects"),
    ]

    operations = [
        migrations.AddField(model_name="subscription", name="project", field=project_field(True)),
        migrations.RunPython(into_default_project, migrations.RunPython.noop),
        migrations.AlterField(model_name="subscription", name="project", field=project_field(False)),
        migrations.RemoveConstraint(model_name="subscription", name="notify_one_sub_per_target"),
        migrations.AddConstraint(
            model_name="subscription",
            constraint=models.UniqueConstraint(
                fields=("target", "project", "component"), name="notify_one_sub_per_target"
            ),
        ),
    ]
