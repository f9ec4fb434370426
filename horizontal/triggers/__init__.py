"""Triggers that deliver at least once, made run-once by the job gate (docs/triggers.md).

``celery``: a Celery task that runs a job's due slots, a decorator that makes an existing
Celery periodic task run once per scheduled slot, and a beat scheduler that only sends
from the lease holder. ``tasks``: a job's due slot handed to a ``django.tasks`` worker
(``@job(executor="tasks")``). Each is imported only by the projects that use it, so the
extra it needs (``[celery]``, ``[tasks]``) is loaded only there.
"""
