"""Deploy checks for migrations that break a rolling deploy, ``horizontal.W070``-``W079``.

Among the migrations not yet applied on a database, the operations that break the old
release still serving while the new one rolls out (``horizontal.deploy.compat`` holds
the rules and the recipes):

- ``W070``: a column (or a many-to-many table) removed.
- ``W071``: a column renamed.
- ``W072``: a table removed or renamed (``DeleteModel``, ``RenameModel``,
  ``AlterModelTable``).
- ``W073``: a NOT NULL column added without ``db_default``.
- ``W074``: a column made NOT NULL.
- ``W075``: a column narrowed or its type changed.
- ``W076``: ``RunSQL`` that drops or renames (read from the SQL, best effort).

They read the database's migration records, so they are tagged ``database`` and ask
only the aliases Django passes in ``databases`` (``check --deploy --database ALIAS``).
A database that cannot be read is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Tags

from horizontal.checks._base import TAG, register

__all__ = ["IDS", "check_pending_migrations"]

# Every id these checks emit, spelt whole (docs/checks.md has a row for each).
IDS = (
    "horizontal.W070",
    "horizontal.W071",
    "horizontal.W072",
    "horizontal.W073",
    "horizontal.W074",
    "horizontal.W075",
    "horizontal.W076",
)


@register(Tags.database, TAG, deploy=True)
def check_pending_migrations(
    app_configs: Iterable[AppConfig] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: Any,
) -> list[CheckMessage]:
    aliases = [alias for alias in databases or () if alias in settings.DATABASES]
    if not aliases:
        return []
    # Imported here, and only with a database to read: the migration loader is for
    # `check --database`, not every start-up nor a `check --deploy` without one.
    from horizontal.deploy.compat import finding_message, pending_findings

    messages: list[CheckMessage] = []
    for alias in aliases:
        messages.extend(finding_message(f, alias) for f in pending_findings(alias))
    return messages
