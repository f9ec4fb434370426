"""Tests of the top-level grant modules: leases, locks, instance and migrate.

They have no package of their own, so their tests share this room
(``horizontal/<module>.py`` -> ``tests/leases/test_<module>.py``; ``migrate.py`` is tested
through its command, in ``test_migrate_locked.py``). The database fixtures come from
``tests/conftest.py``.
"""
