"""Upload tokens stored as their SHA-256, as API tokens are (backend.loadtests.models.UploadTokenField).

The tokens stored in clear so far are hashed in place: a tank that is streaming keeps its token, which now matches
through its hash. There is no way back: the clear tokens are gone (the reverse leaves the hashes).
"""

from django.db import migrations

import backend.loadtests.models

HASH_IN_PLACE = (
    "UPDATE loadtests_test SET upload_token = encode(sha256(convert_to(upload_token, 'UTF8')), 'hex') "
    "WHERE upload_token !~ '^[0-9a-f]{64}$'"
)


class Migration(migrations.Migration):
    dependencies = [
        ("loadtests", "0002_upload_content_digest"),
    ]

    operations = [
        migrations.AlterField(
            model_name="test",
            name="upload_token",
            field=backend.loadtests.models.UploadTokenField(
                default=backend.loadtests.models.new_upload_token, max_length=64, unique=True
            ),
        ),
        migrations.RunSQL(HASH_IN_PLACE, reverse_sql=migrations.RunSQL.noop),
    ]
