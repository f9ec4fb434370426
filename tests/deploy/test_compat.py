"""``horizontal.deploy.compat``: the rules behind ``horizontal.W070``–``W076`` (the check
module itself, ``horizontal/checks/migrations.py``, is tested in tests/checks/).

In process, the rules one by one against hand-built migration states (no database is
touched). Then ``migrationapp`` in real processes on a database at its first migration:
``check --deploy --database default`` and ``release --check-migrations`` flag exactly
the migrations that break the old code, stay silent on the additive one and on the one
marked rolling-safe, and honour both silencing settings; a plain ``release`` prints the
same findings as warnings before it applies them, and exits 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, migrations, models
from django.db.migrations.migration import Migration
from django.db.migrations.state import ModelState, ProjectState

from horizontal.deploy.compat import unsafe_operations
from tests.support.databases import ScratchDatabase
from tests.support.processes import manage


def shop_state(**options: Any) -> ProjectState:
    state = ProjectState()
    state.add_model(
        ModelState(
            "shop",
            "Item",
            [
                ("id", models.BigAutoField(primary_key=True)),
                ("name", models.CharField(max_length=100)),
                ("body", models.TextField()),
                ("count", models.BigIntegerField()),
                ("delta", models.IntegerField()),
                ("price", models.DecimalField(max_digits=8, decimal_places=2)),
                ("email", models.EmailField(max_length=254)),
                ("note", models.CharField(max_length=20, null=True)),
                ("owner", models.ForeignKey("shop.Owner", models.CASCADE)),
            ],
            options=options,
        )
    )
    state.add_model(ModelState("shop", "Owner", [("id", models.BigAutoField(primary_key=True))]))
    return state


def judged(*operations: Any, state: ProjectState | None = None, **attrs: Any) -> list[str]:
    migration = Migration("0002_change", "shop")
    migration.operations = list(operations)
    for name, value in attrs.items():
        setattr(migration, name, value)
    found = unsafe_operations([migration], state or shop_state(), connection)
    return [finding.id for finding in found]


def alter(name: str, field: Any) -> migrations.AlterField:
    return migrations.AlterField("item", name, field)


@pytest.mark.parametrize(
    ("operation", "expected"),
    [
        (alter("count", models.IntegerField()), ["W075"]),
        (alter("delta", models.BigIntegerField()), []),
        (alter("delta", models.PositiveIntegerField()), ["W075"]),
        (alter("delta", models.SmallIntegerField()), ["W075"]),
        (alter("name", models.TextField()), []),
        (alter("name", models.CharField(max_length=200)), []),
        (alter("name", models.CharField(max_length=99)), ["W075"]),
        (alter("body", models.CharField(max_length=100)), ["W075"]),
        (alter("name", models.IntegerField()), ["W075"]),
        (alter("email", models.CharField(max_length=254)), []),
        (alter("price", models.DecimalField(max_digits=10, decimal_places=2)), []),
        (alter("price", models.DecimalField(max_digits=6, decimal_places=2)), ["W075"]),
        (alter("price", models.DecimalField(max_digits=8, decimal_places=1)), ["W075"]),
        (alter("note", models.CharField(max_length=20)), ["W074"]),
        (alter("note", models.CharField(max_length=20, db_default="")), ["W074"]),
        (alter("name", models.CharField(max_length=100, null=True)), []),
        (alter("name", models.CharField(max_length=100, db_column="title")), ["W071"]),
        (migrations.AddField("item", "x", models.IntegerField(null=True)), []),
        (migrations.AddField("item", "x", models.IntegerField(db_default=0)), []),
        (migrations.AddField("item", "x", models.IntegerField(default=0)), ["W073"]),
        (migrations.AddField("item", "x", models.IntegerField()), ["W073"]),
        (migrations.AddField("item", "tags", models.ManyToManyField("shop.Owner")), []),
        (migrations.RemoveField("item", "owner"), ["W070"]),
        (migrations.RenameField("item", "name", "title"), ["W071"]),
        (migrations.DeleteModel("Item"), ["W072"]),
        (migrations.RenameModel("Item", "Article"), ["W072"]),
        (migrations.AlterModelTable("item", "shop_article"), ["W072"]),
        (migrations.AlterModelTable("item", "shop_item"), []),
        (migrations.RunSQL("ALTER TABLE shop_item DROP COLUMN note"), ["W076"]),
        (migrations.RunSQL("ALTER TABLE shop_item DROP note"), ["W076"]),  # MySQL
        (migrations.RunSQL("ALTER TABLE shop_item RENAME TO shop_article"), ["W076"]),
        (migrations.RunSQL([("DROP TABLE shop_old WHERE %s", [1])]), ["W076"]),
        (migrations.RunSQL("ALTER TABLE shop_item DROP CONSTRAINT shop_item_ck"), []),
        (migrations.RunSQL("ALTER TABLE shop_item DROP INDEX shop_item_idx"), []),
        (migrations.RunSQL("CREATE INDEX shop_item_name ON shop_item (name)"), []),
        (migrations.RunPython(migrations.RunPython.noop), []),
    ],
    ids=lambda value: value.describe() if hasattr(value, "describe") else str(value),
)
def test_each_rule_flags_what_breaks_old_code_and_nothing_else(
    operation: Any, expected: list[str]
) -> None:
    assert judged(operation) == expected


def test_renames_that_keep_their_column_or_table_change_nothing() -> None:
    # The field renamed in Python, its column kept with db_column: no SQL rename.
    assert (
        judged(
            migrations.RenameField("item", "name", "title"),
            alter("title", models.CharField(max_length=100, db_column="name")),
        )
        == []
    )
    # The model renamed, its table kept.
    assert (
        judged(
            migrations.RenameModel("Item", "Article"),
            migrations.AlterModelTable("article", "shop_item"),
        )
        == []
    )
    state = shop_state(db_table="legacy_items")
    assert judged(migrations.RenameModel("Item", "Article"), state=state) == []


def test_what_no_running_code_knows_is_never_flagged() -> None:
    created = [
        migrations.CreateModel("Box", [("id", models.BigAutoField(primary_key=True))]),
        migrations.AddField("box", "size", models.IntegerField()),
        migrations.RemoveField("box", "size"),
        migrations.AddField("item", "fresh", models.IntegerField(null=True)),
        migrations.RenameField("item", "fresh", "newer"),
        alter("newer", models.IntegerField()),
        migrations.RemoveField("item", "newer"),
        migrations.DeleteModel("Box"),
    ]
    assert judged(*created) == []
    unmanaged = shop_state(managed=False)
    assert judged(migrations.RemoveField("item", "note"), state=unmanaged) == []
    # State only: the column stays; database only: it goes.
    remove = migrations.RemoveField("item", "note")
    assert judged(migrations.SeparateDatabaseAndState(state_operations=[remove])) == []
    assert judged(migrations.SeparateDatabaseAndState(database_operations=[remove])) == ["W070"]


def test_a_migration_marked_rolling_safe_or_listed_in_the_setting_is_silent(
    settings: Any,
) -> None:
    remove = migrations.RemoveField("item", "note")
    assert judged(remove, horizontal_rolling_safe="contract step of 0001") == []
    settings.HORIZONTAL_ROLLING_SAFE_MIGRATIONS = ["shop.0002_change"]
    assert judged(remove) == []


# -- migrationapp in real processes -----------------------------------------------------

SETTINGS = {"DJANGO_SETTINGS_MODULE": "tests.deploy.migration_settings"}
FLAGGED = {
    ("migrationapp.0003_remove_column", "horizontal.W070"),
    ("migrationapp.0004_not_null_without_default", "horizontal.W073"),
    ("migrationapp.0006_rename_and_narrow", "horizontal.W071"),
    ("migrationapp.0006_rename_and_narrow", "horizontal.W074"),
    ("migrationapp.0006_rename_and_narrow", "horizontal.W075"),
    ("migrationapp.0007_sql_and_tables", "horizontal.W072"),
    ("migrationapp.0007_sql_and_tables", "horizontal.W076"),
}
MESSAGE = re.compile(r"^(migrationapp\.\w+): \((horizontal\.W07\d)\)", re.MULTILINE)


@pytest.fixture(scope="module")
def at_first_migration() -> Iterator[ScratchDatabase]:
    database = ScratchDatabase("sqlite", SETTINGS).create(migrate=False)
    manage("migrate", "migrationapp", "0001", "-v0", env=database.env)
    yield database
    database.drop()


@pytest.mark.multiprocess
def test_check_deploy_flags_exactly_the_breaking_migrations(
    at_first_migration: ScratchDatabase,
) -> None:
    done = manage("check", "--deploy", "--database", "default", env=at_first_migration.env)
    output = done.stdout + done.stderr
    lines = [line for line in output.splitlines() if "(horizontal.W07" in line]
    # Each message names the migration and the operation, and hints the recipe.
    assert "Remove field legacy_code from widget" in output
    assert "Rename field title on widget to heading" in output
    assert "HINT: Contract in two releases" in output
    assert set(MESSAGE.findall(output)) == FLAGGED and len(lines) == len(FLAGGED), lines


@pytest.mark.multiprocess
def test_release_check_migrations_fails_ci_and_honours_both_silencers(
    at_first_migration: ScratchDatabase,
) -> None:
    flagged = manage("release", "--check-migrations", env=at_first_migration.env, check=False)
    assert flagged.returncode == 1, flagged.stdout + flagged.stderr
    assert set(MESSAGE.findall(flagged.stderr)) == FLAGGED
    assert "7 operation(s) break" in flagged.stdout
    silenced_env = {
        **at_first_migration.env,
        "SILENCED_SYSTEM_CHECKS": "horizontal.W072,horizontal.W076",
        "ROLLING_SAFE_MIGRATIONS": "migrationapp.0006_rename_and_narrow",
    }
    silenced = manage("release", "--check-migrations", env=silenced_env, check=False)
    assert set(MESSAGE.findall(silenced.stderr)) == {
        ("migrationapp.0003_remove_column", "horizontal.W070"),
        ("migrationapp.0004_not_null_without_default", "horizontal.W073"),
    }


@pytest.mark.multiprocess
def test_release_warns_of_breaking_migrations_before_applying_them_and_still_exits_0() -> None:
    # A database of its own: this one is migrated to the end, the module's stays at 0001.
    database = ScratchDatabase("sqlite", SETTINGS).create(migrate=False)
    try:
        manage("migrate", "migrationapp", "0001", "-v0", env=database.env)
        env = {**database.env, "HORIZONTAL_RELEASE": "r-warn"}
        done = manage("release", env=env)
        warned = {
            found
            for line in done.stderr.splitlines()
            if line.startswith("warning: ")
            for found in MESSAGE.findall(line.removeprefix("warning: "))
        }
        # Said before migrating (the applied migrations are no longer pending), then applied.
        assert warned == FLAGGED, done.stderr
        assert "Applying migrationapp.0007_sql_and_tables" in done.stdout, done.stdout
        assert "release r-warn: " in done.stdout
        again = manage("release", env=env)
        assert "warning: " not in again.stderr, again.stderr  # nothing left pending
    finally:
        database.drop()
