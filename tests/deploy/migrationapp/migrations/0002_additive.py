"""Additive only: nothing here breaks the code of 0001."""

from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("migrationapp", "0001_initial")]
    operations = [
        migrations.AddField("widget", "colour", models.CharField(max_length=20, null=True)),
        migrations.AddField("widget", "width", models.IntegerField(db_default=1)),
        migrations.AlterField("widget", "name", models.CharField(max_length=200)),
        migrations.CreateModel(
            name="Gadget",
            fields=[
                ("id", models.BigAutoField(primary_key=True, serialize=False)),
                ("label", models.CharField(max_length=30)),
            ],
        ),
        # NOT NULL without a default, on a table no running code knows yet: safe.
        migrations.AddField(
            "gadget", "weight", models.IntegerField(default=0), preserve_default=False
        ),
        migrations.AlterField("gadget", "label", models.TextField()),
    ]
