"""Signals for exporters and alerting: what the gate, the leases and the sessions did.

Each is a ``django.dispatch.Signal``; connect receivers the usual way
(``run_finished.connect(receiver)``). Receivers run in the process and thread that did
the work, after the database statement it is about: keep them short and never let them
raise (``send_robust`` is not used, so an exception in a receiver reaches the caller).
``horizontal.metrics`` is built on these signals only.
"""

from __future__ import annotations

from django.dispatch import Signal

__all__ = [
    "lease_acquired",
    "lease_lost",
    "run_claimed",
    "run_finished",
    "run_missed",
    "session_store_unavailable",
]

run_claimed = Signal()
"""A slot was claimed by this process. ``sender``: the job's name (str).

Arguments: ``job`` (the ``Job``), ``slot`` (str), ``token`` (int), ``instance`` (str, the
instance id), ``trigger`` (str: ``schedule``, ``catchup``, ``manual``, ``retry``).
"""

run_finished = Signal()
"""A claimed slot ended in this process. ``sender``: the job's name (str).

Arguments: ``job``, ``slot``, ``token``, ``instance``, ``outcome`` (str: ``succeeded``,
``failed``, ``lost``, ``interrupted``), ``duration`` (float seconds from the claim to the
end, monotonic clock), ``lateness`` (float seconds from the slot's tick to the claim, on
this instance's wall clock; ``None`` for a slot that is not an instant, e.g. a release id).
"""

run_missed = Signal()
"""A slot was put on record as missed. ``sender``: the job's name (str).

Arguments: ``job``, ``slot`` (str).
"""

lease_acquired = Signal()
"""This process took a lease. ``sender``: the lease's name (str).

Arguments: ``name`` (str), ``token`` (int), ``instance`` (str, the lease's owner).
"""

lease_lost = Signal()
"""This process no longer holds a lease it took. ``sender``: the lease's name (str).

Arguments: ``name``, ``token``, ``instance``, ``reason`` (str: why; ``"released"`` for a
release on purpose). Sent once per acquired lease.
"""

session_store_unavailable = Signal()
"""``horizontal.sessions`` could not reach its store. ``sender``: the ``SessionStore`` class.

Arguments: ``error`` (the exception), ``operation`` (str: ``load``, ``save``, ``exists``,
``delete``, ``end_user_sessions``).
"""
