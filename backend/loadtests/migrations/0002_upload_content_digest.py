"""Upload.sha256 becomes Upload.content_digest, a value that names its algorithm (backend/uploads/digest.py).

Digests already stored are SHA-256: they are kept, as "sha256:<hex>", so the column never holds a bare value that
could be taken for the new algorithm's.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("loadtests", "0001_initial")]

    operations = [
        migrations.RenameField(model_name="upload", old_name="sha256", new_name="content_digest"),
        migrations.AlterField(
            model_name="upload",
            name="content_digest",
            field=models.CharField(
                blank=True,
                db_index=True,
                default="",
                help_text='"xxh3-128:<hex>" (backend/uploads/digest.py)',
                max_length=80,
            ),
        ),
        migrations.RunSQL(
            "UPDATE loadtests_upload SET content_digest = 'sha256:' || content_digest WHERE content_digest <> ''",
            reverse_sql=(
                "UPDATE loadtests_upload SET content_digest = substr(content_digest, 8) "
                "WHERE content_digest LIKE 'sha256:%'"
            ),
        ),
    ]
