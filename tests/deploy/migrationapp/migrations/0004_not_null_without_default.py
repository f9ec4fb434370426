from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("migrationapp", "0003_remove_column")]
    operations = [
        migrations.AddField(
            "widget", "serial", models.IntegerField(default=0), preserve_default=False
        )
    ]
