"""Baselines and KPI sets are keyed by (project, component); the existing ones belong to the project "default",
where every existing test went (loadtests 0004)."""

import django.db.models.deletion
from django.db import migrations, models


def into_default_project(apps, schema_editor):
    default, _ = apps.get_model("projects", "Project").objects.get_or_create(
        slug="default", defaults={"name": "Default"}
    )
    for name in ("BaselineMark", "ComponentKpis"):
        apps.get_model("regressions", name).objects.filter(project__isnull=True).update(project=default)
    # The checks of the new keys run now, not at commit: the same transaction alters the table next.
    schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def project_field(null: bool) -> models.ForeignKey:  # type: ignore[type-arg]
    return models.ForeignKey(
        null=null, on_delete=django.db.models.deletion.CASCADE, related_name="+", to="projects.project"
    )


class Migration(migrations.Migration):
    dependencies = [
        ("regressions", "0001_initial"),
        ("projects", "0001_i30_projects"),
    ]

    operations = [
        migrations.AddField(model_name="baselinemark", name="project", field=project_field(True)),
        migrations.AddField(model_name="componentkpis", name="project", field=project_field(True)),
        migrations.RunPython(into_default_project, migrations.RunPython.noop),
        migrations.AlterField(model_name="baselinemark", name="project", field=project_field(False)),
        migrations.AlterField(model_name="componentkpis", name="project", field=project_field(False)),
        migrations.AlterField(model_name="componentkpis", name="component", field=models.CharField(max_length=256)),
        migrations.AddConstraint(
            model_name="componentkpis",
            constraint=models.UniqueConstraint(fields=("project", "component"), name="regressions_one_kpi_set"),
        ),
    ]
