# Projects (0004_i30_projects) and retention's expiry marks (0004_i34_retention_expired) were written side by side;
# they touch different columns of Test, so either order is right.
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("loadtests", "0004_i30_projects"),
        ("loadtests", "0004_i34_retention_expired"),
    ]
    operations = []
