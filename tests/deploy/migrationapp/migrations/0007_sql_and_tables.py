from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("migrationapp", "0006_rename_and_narrow")]
    operations = [
        migrations.RunSQL(
            "DROP TABLE IF EXISTS migrationapp_scratch", reverse_sql=migrations.RunSQL.noop
        ),  # W076
        migrations.RenameModel("Archive", "Vault"),  # W072
    ]
