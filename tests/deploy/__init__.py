"""Tests of ``horizontal/deploy/``: ``release`` (hooks once per release id) and ``compat``
(the rolling-deploy migration check, whose system check lives in
``horizontal/checks/migrations.py`` and is tested here with the rules it reports).

``migrationapp`` is a test app whose migrations are each safe or unsafe on purpose;
``migration_settings`` is testproject's settings with it installed.
"""
