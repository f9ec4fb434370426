"""System checks. Importing this package registers every check with Django.

Id ranges, one module each (docs/checks.md has every id):

- ``horizontal.E001``–``E009``: invalid ``HORIZONTAL_*`` settings (``config``)
- ``horizontal.E010``–``E019``: invalid job registrations (``jobs``)
- ``horizontal.W001``–``W019``: caches and session engines (``settings``)
- ``horizontal.W020``–``W029``: the Redis session store (``sessions``)
- ``horizontal.W030``–``W059``: databases, background work, secrets, logging, email (``settings``)
- ``horizontal.W060``–``W069``: file storage (``storage``)
- ``horizontal.W100``–``W199``: single-instance assumptions found in code (``code``)
"""

from __future__ import annotations

from horizontal.checks import code, config, jobs, sessions, settings, storage

__all__ = ["code", "config", "jobs", "sessions", "settings", "storage"]
