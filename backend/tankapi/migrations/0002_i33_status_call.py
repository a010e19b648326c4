import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("loadtests", "0003_hash_upload_tokens"),
        ("tankapi", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="StatusCall",
            fields=[
                (
                    "test",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="status_call",
                        serialize=False,
                        to="loadtests.test",
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        blank=True, default="", help_text="as the tank sent it: 'shoot 40'", max_length=128
                    ),
                ),
                ("first_at", models.DateTimeField(auto_now_add=True)),
                ("last_at", models.DateTimeField(auto_now=True)),
            ],
        ),
    ]
