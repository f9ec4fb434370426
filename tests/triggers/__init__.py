"""Tests of ``horizontal/triggers/``: Celery (``test_celery*.py``), tasks (``test_tasks.py``).

The multi-process tests run real brokers and workers on loopback against a scratch
PostgreSQL database with the ``workload`` app (settings in ``settings.py``).
"""
