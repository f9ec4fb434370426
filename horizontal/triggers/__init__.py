"""Triggers: what starts a job's slot besides ``runjob`` and ``runscheduler``.

Every trigger may fire twice; the job gate runs each slot once. ``http``: an endpoint a
cloud scheduler calls (docs/triggers.md).
"""
