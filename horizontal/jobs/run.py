"""``Run``: the claimed run a job body receives, and the only object job code programs against.

It carries the slot and the fencing token of this attempt, and its three calls keep the
body honest: ``check()`` stops it once the claim may have passed on, ``effect()`` and
``fence()`` write only while this attempt holds the slot (docs/jobs.md).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connections
from django.db.models import QuerySet

from horizontal import failpoints
from horizontal.db import Cursor, Dialect, dialect_for, milliseconds
from horizontal.exceptions import FencedOut
from horizontal.jobs import slots
from horizontal.jobs.gate import Attempt
from horizontal.leases import Validity, fenced_update
from horizontal.models import JobRun

__all__ = ["Interrupted", "Run", "stop_requested", "stopping_on"]


class Interrupted(BaseException):
    """The run was asked to stop: SIGTERM/SIGINT (``runjob``) or a stopping scheduler.

    ``runjob`` raises it from its signal handler in the main thread; a scheduler's
    worker thread gets it at the body's next checkpoint (``check``, ``effect``,
    ``fence``). Either way the runner hands the claim back.
    """


_scope = threading.local()


@contextmanager
def stopping_on(event: threading.Event) -> Iterator[None]:
    """Within the block, this thread's runs raise ``Interrupted`` at a checkpoint once set."""
    previous = getattr(_scope, "event", None)
    _scope.event = event
    try:
        yield
    finally:
        _scope.event = previous


def stop_requested() -> bool:
    event: threading.Event | None = getattr(_scope, "event", None)
    return event is not None and event.is_set()


class Run:
    """The claimed run handed to the job body.

    ``token`` fences every write of this attempt; ``effect()`` and ``fence()`` refuse to
    write once a newer attempt holds the slot; ``check()`` raises ``LeaseLost`` once this
    process can no longer be sure it holds the claim.
    """

    def __init__(self, attempt: Attempt, validity: Validity) -> None:
        self.job = attempt.job
        self.slot = attempt.slot
        self.id = attempt.claim.id
        self.token = attempt.claim.token
        self.attempt = attempt.claim.attempt
        self.owner = attempt.owner
        self.using = attempt.using
        self._validity = validity
        # A fenced transaction may sit idle this long before the server ends it.
        self._idle_bound_ms = milliseconds(attempt.ttl)

    def __repr__(self) -> str:
        return f"<Run {self.job.name}@{self.slot} token={self.token} attempt={self.attempt}>"

    @property
    def slot_time(self) -> dt.datetime | None:
        """The slot's instant (UTC), or None for a free-form slot."""
        return slots.slot_instant(self.slot)

    @property
    def slot_date(self) -> dt.date | None:
        """The slot's calendar date in the job's time zone."""
        instant = self.slot_time
        return None if instant is None else instant.astimezone(slots.zone(self.job)).date()

    @property
    def valid(self) -> bool:
        return self._validity.valid

    def check(self) -> None:
        """A checkpoint: raise ``LeaseLost`` if the claim may have passed to another node.

        In a scheduler's worker thread it also raises ``Interrupted`` once the scheduler
        is stopping (SIGTERM): the runner then hands the claim back.
        """
        if stop_requested():
            raise Interrupted(f"run {self.job.name}@{self.slot}: the scheduler is stopping")
        self._validity.check(f"run {self.job.name}@{self.slot} (token {self.token})")

    def _held(self, cursor: Cursor, dialect: Dialect) -> bool:
        return dialect.run_is_held(cursor, self.id, self.token, self._idle_bound_ms)

    def effect(self, key: str) -> bool:
        """Record the idempotency key ``key`` in the caller's open transaction.

        True: the key is new, go ahead with the effect in this same transaction. False:
        an earlier attempt already committed it, skip the effect. Raises ``FencedOut``
        when a newer attempt holds the slot; the transaction should then roll back.

        Until the transaction ends no newer attempt can take the slot over, while this
        run's heartbeat goes on renewing it. The transaction may not sit idle (no
        statement) for longer than the claim's TTL: PostgreSQL and MariaDB then end it.
        """
        connection = connections[self.using]
        if not connection.in_atomic_block:
            raise RuntimeError(
                "run.effect() must be called inside transaction.atomic() together with "
                "the write it guards, so both commit or neither does"
            )
        if len(key) > 255:
            raise ValueError("effect keys are at most 255 characters")
        self.check()
        dialect = dialect_for(connection)
        with connection.cursor() as cursor:
            if not self._held(cursor, dialect):
                raise FencedOut(
                    f"run {self.job.name}@{self.slot} token {self.token} was taken over; "
                    f"effect {key!r} not recorded"
                )
            inserted = dialect.insert_effect(cursor, key, self.id, self.token)
        failpoints.hit("inside_effect")  # the chaos suite pauses a holder here (F2)
        return inserted

    def fence(self, queryset: QuerySet[Any], **updates: Any) -> int:
        """``queryset.update(**updates)`` only while this attempt holds the slot.

        Returns the number of rows updated; raises ``FencedOut`` (changing nothing) when a
        newer attempt holds the slot.
        """
        self.check()
        return fenced_update(
            self.using,
            queryset,
            updates,
            held=self._held,
            guard=JobRun.objects.filter(pk=self.id, token=self.token),
            what=f"run {self.job.name}@{self.slot} token {self.token}",
        )
