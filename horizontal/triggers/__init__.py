"""Triggers besides ``runjob`` and ``runscheduler``; each may deliver twice, the job gate
runs each slot once (docs/triggers.md).

``http``: an endpoint a cloud scheduler calls. ``celery``: a Celery task that runs a job's
due slots, a decorator that makes an existing Celery periodic task run once per scheduled
slot, and a beat scheduler that only sends from the lease holder. ``tasks``: a job's due
slot handed to a ``django.tasks`` worker (``@job(executor="tasks")``). ``celery`` and
``tasks`` are imported only by the projects that use them, so the extra each needs
(``[celery]``, ``[tasks]``) is loaded only there.
"""
