from __future__ import annotations

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("migrationapp", "0002_additive")]
    operations = [migrations.RemoveField("widget", "legacy_code")]
