from __future__ import annotations

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("migrationapp", "0005_rolling_safe")]
    operations = [
        migrations.RenameField("widget", "title", "heading"),  # W071
        migrations.AlterField("widget", "name", models.CharField(max_length=50)),  # W075
        migrations.AlterField(  # W074
            "widget", "price", models.DecimalField(decimal_places=2, max_digits=8)
        ),
        # Renamed in Python only: the column stays "size".
        migrations.RenameField("widget", "size", "dimension"),
        migrations.AlterField(
            "widget", "dimension", models.IntegerField(default=1, db_column="size")
        ),
        # A column 0002 added: no running code knows it.
        migrations.RenameField("widget", "colour", "color"),
    ]
