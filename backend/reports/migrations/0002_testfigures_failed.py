"""The list's error share follows analytics.definitions: stored as the count of failed requests (the old 2xx share
subtracted net errors that already had HTTP 0). Max RPS is now the most held for 5 s. Figures stored by the old
rules are dropped: `manage.py list_figures` computes them again (README, "Upgrading")."""

from django.db import migrations, models


def drop_old_figures(apps, schema_editor):
    apps.get_model("reports", "TestFigures").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("reports", "0001_tags_notes_figures")]

    operations = [
        migrations.RemoveField(model_name="testfigures", name="ok_share"),
        migrations.AddField(
            model_name="testfigures",
            name="failed",
            field=models.BigIntegerField(blank=True, help_text="failed requests (analytics.definitions)", null=True),
        ),
        migrations.RunPython(drop_old_figures, migrations.RunPython.noop),
    ]
