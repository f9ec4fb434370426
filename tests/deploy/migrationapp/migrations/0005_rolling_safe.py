from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    # The contract step: no release since 0001 reads or writes the note.
    horizontal_rolling_safe = "note unused since release 2026.11"
    dependencies = [("migrationapp", "0004_not_null_without_default")]
    operations = [migrations.RemoveField("widget", "note")]
