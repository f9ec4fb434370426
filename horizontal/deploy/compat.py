"""Which pending migrations break the code still running during a rolling deploy.

While a deploy rolls, the old release serves requests against the new schema. Django's
ORM names every column of a model in its SELECTs and INSERTs, so the old code breaks
when a migration removes or renames a column or table it knows, adds a column it does
not know that is NOT NULL with no default in the database, makes a column it writes
NULL into NOT NULL, or narrows a column it writes to.

The rules judge operations, not SQL: each one is read against the migration state just
before it (what the old code's models look like), on the connection of the database it
is about to be applied to. They are deliberately few (docs/migrations.md says why
django-migration-linter is not used). ``horizontal.checks.migrations`` reports the
findings as ``horizontal.W070``–``W076``; ``manage.py release --check-migrations`` prints
them and exits 1.

Silenced per migration with a class attribute ``horizontal_rolling_safe = "why"`` (or
``True``) on the ``Migration``, or by listing ``"app_label.migration_name"`` in
``HORIZONTAL_ROLLING_SAFE_MIGRATIONS``; per id with ``SILENCED_SYSTEM_CHECKS``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from django.conf import settings
from django.core import checks
from django.db import DatabaseError, connections, router
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.migrations import operations as ops
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.migration import Migration
from django.db.migrations.operations.base import Operation
from django.db.migrations.state import ModelState, ProjectState
from django.db.models import NOT_PROVIDED, Field

from horizontal.conf import conf

__all__ = [
    "RECIPES",
    "Finding",
    "finding_message",
    "pending_findings",
    "pending_migrations",
    "pending_report",
    "silenced",
    "unsafe_operations",
]

# What each id is about, and the expand/contract recipe its hint gives.
RECIPES: dict[str, tuple[str, str]] = {
    "W070": (
        "removes a column (or a many-to-many table) the old code still selects and inserts",
        "Contract in two releases: first make the column nullable (or give it a "
        "db_default) and remove the field from the model only "
        "(SeparateDatabaseAndState(state_operations=[RemoveField(...)])); a release "
        "later, when no running code has the field, drop the column (RunSQL or "
        "RemoveField in a migration marked horizontal_rolling_safe).",
    ),
    "W071": (
        "renames a column the old code still uses by its old name",
        "Rename the field in Python only, keeping the column (db_column='old_name'); or "
        "expand/contract: add the new column (nullable), write both, backfill, switch "
        "reads to it, and drop the old one a release later.",
    ),
    "W072": (
        "removes or renames a table the old code still uses",
        "Rename the model in Python only, keeping the table (Meta.db_table = "
        "'old_table'); to delete a model, first ship a release that no longer uses it, "
        "then delete it in a later migration marked horizontal_rolling_safe.",
    ),
    "W073": (
        "adds a NOT NULL column without a database default: the old code's inserts do "
        "not name it and fail",
        "Give the field a db_default (Django keeps default= in Python only), or add it "
        "null=True first, backfill, and make it NOT NULL a release later, once every "
        "running instance writes it.",
    ),
    "W074": (
        "makes a column NOT NULL that the old code may write NULL into (the ORM inserts "
        "None explicitly, so a default does not help)",
        "Ship the code that always writes a value first; backfill the NULLs; make the "
        "column NOT NULL a release later (mark that migration horizontal_rolling_safe).",
    ),
    "W075": (
        "narrows or changes a column's type: values the old code writes may no longer fit",
        "Expand first: add a new column of the new type, write both, backfill, switch "
        "reads, and drop the old column a release later; a wider type (longer "
        "max_length, BigIntegerField, TextField) is safe as it is.",
    ),
    "W076": (
        "runs SQL that drops or renames a table or column (read from the SQL text, best effort)",
        "Drop or rename only what no running release uses: expand/contract as for "
        "RemoveField and RenameField, and mark the contract step horizontal_rolling_safe.",
    ),
}

_INTEGER_RANK = {
    "SmallIntegerField": 1,
    "PositiveSmallIntegerField": 1,
    "SmallAutoField": 1,
    "IntegerField": 2,
    "PositiveIntegerField": 2,
    "AutoField": 2,
    "BigIntegerField": 3,
    "PositiveBigIntegerField": 3,
    "BigAutoField": 3,
}
_TEXT_TYPES = {"TextField"}

# SQL that drops or renames a table or column; constraints and indexes are left alone.
_DESTRUCTIVE_SQL = re.compile(
    r"\bDROP\s+(?:TABLE|COLUMN|VIEW)\b"
    r"|\bRENAME\s+(?:TO|COLUMN|TABLE)\b"
    r"|\bALTER\s+TABLE\s+\S+\s+(?:DROP|CHANGE)\s+(?!INDEX\b|KEY\b|CONSTRAINT\b|FOREIGN\b"
    r"|PRIMARY\b|CHECK\b|DEFAULT\b|UNIQUE\b)",
    re.IGNORECASE,
)


class Finding(NamedTuple):
    """One operation that breaks old code: ``id`` is ``W070``…``W076``."""

    id: str
    migration: str  # "app_label.migration_name"
    operation: str  # the operation's describe()
    detail: str

    @property
    def message(self) -> str:
        return f"{self.migration}: {self.operation}: {self.detail}."

    @property
    def recipe(self) -> str:
        return RECIPES[self.id][1]


def silenced(migration: Migration) -> bool:
    """Marked rolling-safe: by ``horizontal_rolling_safe`` or the setting."""
    if getattr(migration, "horizontal_rolling_safe", False):
        return True
    return f"{migration.app_label}.{migration.name}" in conf.ROLLING_SAFE_MIGRATIONS


def _field(model: ModelState, name: str) -> Field[Any, Any] | None:
    folded = name.lower()
    for key, field in model.fields.items():
        if key.lower() == folded:
            return field
    return None


def _column(name: str, field: Field[Any, Any]) -> str | None:
    if field.many_to_many:
        return None
    if field.db_column:
        return str(field.db_column)
    return f"{name}_id" if field.many_to_one or field.one_to_one else name


def _table(model: ModelState) -> str:
    return str(model.options.get("db_table") or f"{model.app_label}_{model.name_lower}")


def _has_table(model: ModelState) -> bool:
    return not model.options.get("proxy") and model.options.get("managed", True) is not False


def _db_type(field: Field[Any, Any], connection: BaseDatabaseWrapper) -> str | None:
    try:
        return field.db_type(connection)
    except Exception:  # relations need rendered models; their type is their target's
        return None


def _narrowing(
    old: Field[Any, Any], new: Field[Any, Any], connection: BaseDatabaseWrapper
) -> str | None:
    """Why ``new`` cannot hold what the old code writes into ``old``, or None."""
    old_type, new_type = old.get_internal_type(), new.get_internal_type()
    if old.is_relation or new.is_relation:
        return None
    if old_type in _INTEGER_RANK and new_type in _INTEGER_RANK:
        if _INTEGER_RANK[new_type] < _INTEGER_RANK[old_type]:
            return f"{old_type} narrowed to {new_type}"
        if "Positive" in new_type and "Positive" not in old_type:
            return f"{old_type} restricted to {new_type} (no negative values)"
        return None
    old_length = getattr(old, "max_length", None)
    new_length = getattr(new, "max_length", None)
    if new_type in _TEXT_TYPES and old_type not in _TEXT_TYPES and old_length is not None:
        return None  # varchar(n) to text: wider
    if new_length is not None and (old_length is None or new_length < old_length):
        if old_type in _TEXT_TYPES or old_length is None:
            return f"{old_type} without a length limit narrowed to max_length={new_length}"
        return f"max_length {old_length} narrowed to {new_length}"
    if old_type == "DecimalField" and new_type == "DecimalField":
        old_digits, new_digits = old.max_digits or 0, new.max_digits or 0  # type: ignore[attr-defined]
        old_places, new_places = old.decimal_places or 0, new.decimal_places or 0  # type: ignore[attr-defined]
        if new_places < old_places or new_digits - new_places < old_digits - old_places:
            return (
                f"DecimalField({old_digits}, {old_places}) narrowed to "
                f"DecimalField({new_digits}, {new_places})"
            )
        return None
    before, after = _db_type(old, connection), _db_type(new, connection)
    if before is not None and after is not None and before != after:
        if old_length is not None and new_length is not None and new_length >= old_length:
            return None  # same family, longer: e.g. an EmailField made a CharField(300)
        return f"column type {before} changed to {after}"
    return None


class _Walker:
    """Reads one plan's operations against the state just before each of them."""

    def __init__(
        self, state: ProjectState, connection: BaseDatabaseWrapper, skip_apps: set[str]
    ) -> None:
        self.state = state
        self.connection = connection
        self.skip_apps = skip_apps
        # Tables and columns created within the plan: no running code knows them.
        self.created: set[tuple[str, str]] = set()
        self.added: set[tuple[tuple[str, str], str]] = set()
        self.findings: list[Finding] = []

    def migration(self, migration: Migration) -> None:
        label = f"{migration.app_label}.{migration.name}"
        judged = migration.app_label not in self.skip_apps and not silenced(migration)
        self.renames: list[tuple[Operation, tuple[str, str], str, str]] = []
        self.table_renames: list[tuple[Operation, tuple[str, str], str]] = []
        for operation in migration.operations:
            self.operation(operation, migration.app_label, label, judged, self.state)
        if judged:
            self._net_renames(label)

    def _net_renames(self, label: str) -> None:
        # A rename whose column or table ends the migration where it started (a field
        # renamed in Python with db_column set to the old name) changes nothing in SQL.
        for operation, key, name, before in self.renames:
            model = self.state.models.get(key)
            field = _field(model, name) if model else None
            after = _column(name, field) if field is not None else None
            if after is not None and after != before:
                self._add("W071", label, operation, f"column {before!r} becomes {after!r}")
        for operation, key, before in self.table_renames:
            model = self.state.models.get(key)
            after = _table(model) if model else None
            if after is not None and after != before:
                self._add("W072", label, operation, f"table {before!r} becomes {after!r}")

    def _add(self, code: str, label: str, operation: Operation, detail: str) -> None:
        self.findings.append(Finding(code, label, operation.describe(), detail))

    def _allowed(self, app_label: str, model_name: str | None = None, **hints: Any) -> bool:
        return bool(
            router.allow_migrate(self.connection.alias, app_label, model_name=model_name, **hints)
        )

    def _known(self, state: ProjectState, app_label: str, model_name: str) -> ModelState | None:
        """The model as running code knows it: None if it has no table or is new."""
        key = (app_label, model_name.lower())
        model: ModelState | None = state.models.get(key)
        if model is None or key in self.created or not _has_table(model):
            return None
        if not self._allowed(app_label, model.name_lower):
            return None
        return model

    def operation(
        self, op: Operation, app_label: str, label: str, judged: bool, state: ProjectState
    ) -> None:
        if isinstance(op, ops.SeparateDatabaseAndState):
            scratch = state.clone()
            for inner in op.database_operations:
                self.operation(inner, app_label, label, judged, scratch)
            for inner in op.state_operations:
                inner.state_forwards(app_label, state)
            return
        if judged:
            self._judge(op, app_label, label, state)
        if isinstance(op, ops.CreateModel):
            self.created.add((app_label, op.name_lower))
        elif isinstance(op, ops.RenameModel):
            old, new = (app_label, op.old_name_lower), (app_label, op.new_name_lower)
            if old in self.created:
                self.created.add(new)
            self.added |= {(new, name) for key, name in self.added if key == old}
            for i, (rop, key, before) in enumerate(self.table_renames):
                if key == old:
                    self.table_renames[i] = (rop, new, before)
            for i, (fop, key, name, before) in enumerate(self.renames):
                if key == old:
                    self.renames[i] = (fop, new, name, before)
        elif isinstance(op, ops.AddField):
            self.added.add(((app_label, op.model_name_lower), op.name_lower))
        elif isinstance(op, ops.RenameField):
            key = (app_label, op.model_name_lower)
            if (key, op.old_name_lower) in self.added:
                self.added.add((key, op.new_name_lower))
            for i, (fop, fkey, name, before) in enumerate(self.renames):
                if fkey == key and name.lower() == op.old_name_lower:
                    self.renames[i] = (fop, fkey, op.new_name, before)
        op.state_forwards(app_label, state)

    def _judge(self, op: Operation, app_label: str, label: str, state: ProjectState) -> None:
        if isinstance(op, ops.RunSQL):
            if self._allowed(app_label, **op.hints) and _destructive(op.sql):
                self._add("W076", label, op, "the SQL drops or renames")
            return
        if isinstance(op, ops.DeleteModel):
            model = self._known(state, app_label, op.name)
            if model is not None:
                self._add("W072", label, op, f"table {_table(model)!r} is dropped")
            return
        if isinstance(op, ops.RenameModel):
            model = self._known(state, app_label, op.old_name)
            if model is not None:
                self.table_renames.append((op, (app_label, op.new_name_lower), _table(model)))
            return
        if isinstance(op, ops.AlterModelTable):
            model = self._known(state, app_label, op.name)
            key = (app_label, op.name_lower)
            # After a RenameModel its entry holds the table at the start already.
            if model is not None and all(k != key for _, k, _ in self.table_renames):
                self.table_renames.append((op, key, _table(model)))
            return
        if not isinstance(op, ops.AddField | ops.RemoveField | ops.RenameField | ops.AlterField):
            return
        model = self._known(state, app_label, op.model_name)
        if model is None:
            return
        key = (app_label, op.model_name_lower)
        name = op.old_name if isinstance(op, ops.RenameField) else op.name
        if (key, name.lower()) in self.added:
            return  # a column added within the plan: no running code knows it
        if isinstance(op, ops.RemoveField):
            field = _field(model, op.name)
            column = _column(op.name, field) if field is not None else op.name
            what = f"column {column!r}" if column else "its many-to-many table"
            self._add("W070", label, op, f"{what} of table {_table(model)!r} is dropped")
        elif isinstance(op, ops.RenameField):
            field = _field(model, op.old_name)
            column = _column(op.old_name, field) if field is not None else None
            if column is not None:
                self.renames.append((op, key, op.new_name, column))
        elif isinstance(op, ops.AddField):
            field = op.field
            if field.many_to_many or field.null or field.db_default is not NOT_PROVIDED:
                return
            python_default = "" if field.default is NOT_PROVIDED else " (default= is not one)"
            self._add(
                "W073",
                label,
                op,
                f"NOT NULL without db_default{python_default} on table {_table(model)!r}",
            )
        else:
            old = _field(model, op.name)
            if old is None:
                return
            new = op.field
            old_column, new_column = _column(op.name, old), _column(op.name, new)
            tracked = any(k == key and n.lower() == op.name_lower for _, k, n, _ in self.renames)
            if (
                old_column is not None
                and new_column is not None
                and old_column != new_column
                and not tracked  # an earlier rename's entry holds the column at the start
            ):
                self.renames.append((op, key, op.name, old_column))
            if old.null and not new.null:
                self._add("W074", label, op, f"column {new_column!r} becomes NOT NULL")
            why = _narrowing(old, new, self.connection)
            if why is not None:
                self._add("W075", label, op, why)


def _sql_texts(sql: Any) -> Iterator[str]:
    if isinstance(sql, str):
        yield sql
    elif isinstance(sql, list | tuple):
        for item in sql:
            if isinstance(item, str):
                yield item
            elif isinstance(item, list | tuple) and item and isinstance(item[0], str):
                yield item[0]


def _destructive(sql: Any) -> bool:
    return any(_DESTRUCTIVE_SQL.search(text) for text in _sql_texts(sql))


def unsafe_operations(
    plan: Iterable[Migration],
    state: ProjectState,
    connection: BaseDatabaseWrapper,
    *,
    skip_apps: Iterable[str] = (),
) -> list[Finding]:
    """The findings of ``plan`` (forwards, in order), starting from ``state``.

    ``state`` is the schema as the running code knows it; it is advanced as the plan
    goes. Operations in ``skip_apps`` still advance the state but are not judged.
    """
    walker = _Walker(state, connection, set(skip_apps))
    for migration in plan:
        walker.migration(migration)
    return walker.findings


def pending_migrations(alias: str) -> tuple[list[Migration], ProjectState, set[str]]:
    """Migrations not yet applied on ``alias`` (in order), the state the applied ones
    give, and the apps none of whose migrations is applied there (no old code knows
    their tables). Raises ``DatabaseError`` when the database cannot be read."""
    connection = connections[alias]
    executor = MigrationExecutor(connection)
    applied = set(executor.loader.applied_migrations)
    plan = [
        migration
        for migration, backwards in executor.migration_plan(executor.loader.graph.leaf_nodes())
        if not backwards
    ]
    if not applied:
        return plan, ProjectState(), {m.app_label for m in plan}
    nodes = [key for key in applied if key in executor.loader.graph.nodes]
    state = executor.loader.project_state(nodes, at_end=True)
    apps_applied = {app for app, _ in applied}
    fresh = {m.app_label for m in plan if m.app_label not in apps_applied}
    return plan, state, fresh


def pending_findings(alias: str) -> list[Finding]:
    """What ``horizontal.W070``–``W076`` report for ``alias``; [] when unreachable."""
    try:
        plan, state, fresh = pending_migrations(alias)
    except DatabaseError:
        return []
    return unsafe_operations(plan, state, connections[alias], skip_apps=fresh)


def finding_message(finding: Finding, alias: str) -> checks.Warning:
    """The check message of one finding on database ``alias`` (``horizontal.W07x``)."""
    what, recipe = RECIPES[finding.id]
    return checks.Warning(
        f"Migration {finding.migration} (not applied on database {alias!r}) {what}: "
        f"{finding.operation} ({finding.detail}).",
        hint=f"{recipe} If the old code is known not to need it, set "
        f"horizontal_rolling_safe = '<why>' on {finding.migration}'s Migration class.",
        obj=finding.migration,
        id=f"horizontal.{finding.id}",
    )


def pending_report(alias: str) -> tuple[int, list[checks.Warning]]:
    """What ``release --check-migrations`` prints: how many migrations ``alias`` has not
    applied, and the messages ``SILENCED_SYSTEM_CHECKS`` leaves. Raises ``DatabaseError``
    when the database cannot be read."""
    plan, state, fresh = pending_migrations(alias)
    silenced_ids = set(settings.SILENCED_SYSTEM_CHECKS)
    found = unsafe_operations(plan, state, connections[alias], skip_apps=fresh)
    messages = [finding_message(f, alias) for f in found]
    return len(plan), [m for m in messages if m.id not in silenced_ids]
