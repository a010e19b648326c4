"""When retention expired a test's raw samples and its per-second aggregates (backend/retention)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("loadtests", "0003_hash_upload_tokens"),
    ]

    operations = [
        migrations.AddField(
            model_name="test",
            name="raw_expired_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="test",
            name="aggregates_expired_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
