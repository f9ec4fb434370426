"""System checks. Importing this package registers every check with Django.

Id ranges, one module each (docs/checks.md has every id):

- ``horizontal.E001``–``E009``: invalid ``HORIZONTAL_*`` settings (``config.py``)
- ``horizontal.E010``–``E019``: invalid job registrations (``jobs.py``)
- ``horizontal.W001``–``W009``: caches that are not shared (``caches.py``)
- ``horizontal.W010``–``W029``: session engines and the Redis session store (``sessions.py``)
- ``horizontal.W030``–``W039``: databases and the connection budget (``databases.py``)
- ``horizontal.W040``–``W049``: background work: channel layers, tasks, schedulers
  (``background.py``)
- ``horizontal.W050``: a random ``SECRET_KEY`` (``secret_key.py``)
- ``horizontal.W051``–``W052``: logging and email to local files (``logging_email.py``)
- ``horizontal.W053``: django-maintenance-mode's state in a local file (``maintenance.py``)
- ``horizontal.W054``: a search index in a folder on this host (``search.py``)
- ``horizontal.W055``: django-import-export's pending import in a local temp folder
  (``import_files.py``)
- ``horizontal.W060``–``W069``: file storage (``storage.py``)
- ``horizontal.W070``–``W079``: migrations that break a rolling deploy (``migrations.py``)
- ``horizontal.W080``–``W089``: triggers: the HTTP trigger (``W080``–``W084``), Celery and
  django.tasks (``W085``–``W089``) (``triggers.py``)
- ``horizontal.W100``–``W199``: single-instance assumptions found in code (``code.py``)

``_base.py`` holds the tag and ``register`` every module uses; ``_classes.py`` is the one
"is this configured backend a known class" test they share. The single-box backends
themselves are catalogued in ``horizontal.audit.known``, which the audit reads too.
"""

from __future__ import annotations

# Each module registers its checks as it is imported.
from horizontal.checks import (
    background,
    caches,
    code,
    config,
    databases,
    import_files,
    jobs,
    logging_email,
    maintenance,
    migrations,
    search,
    secret_key,
    sessions,
    storage,
    triggers,
)
from horizontal.checks._base import TAG, register

__all__ = [
    "TAG",
    "background",
    "caches",
    "code",
    "config",
    "databases",
    "import_files",
    "jobs",
    "logging_email",
    "maintenance",
    "migrations",
    "register",
    "search",
    "secret_key",
    "sessions",
    "storage",
    "triggers",
]
