"""Leases: named, expiring grants with fencing tokens, on the database clock.

``acquire`` takes a free or expired lease in one statement and returns a ``Lease``
carrying a token larger than every token issued for that name before. The holder counts
its validity from when it *sent* its last successful renewal (a monotonic clock, never
the wall clock): a reply that arrives late still leaves it valid only until
``sent_at + renew_deadline``. Writes that depend on the lease go through ``fence``.

The public face is ``acquire`` and the ``Lease`` it returns (docs/leases.md).
``Validity``, ``Heartbeat`` and ``fenced_update`` are internal: they are what a held
grant is made of, shared with the job runner, whose claimed run is the other grant.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import DatabaseError, connections, transaction
from django.db.models import Exists, QuerySet

from horizontal import failpoints, signals
from horizontal.conf import conf
from horizontal.db import (
    Cursor,
    Dialect,
    RowLocked,
    dialect_for,
    milliseconds,
    run_statement,
)
from horizontal.exceptions import FencedOut, InvalidName, LeaseLost
from horizontal.instance import instance_id

__all__ = ["Lease", "acquire"]

logger = logging.getLogger("horizontal.leases")

# What every vendor stores as given (one rule, so no vendor truncates, rejects or
# compares differently what another accepts): the name and owner columns hold 200
# characters; a TTL's expiry must fit every vendor's datetime.
MAX_NAME_LENGTH = 200
# The reason a released lease gives itself: not a loss (no lease_lost).
RELEASED = "released"
MIN_TTL = 0.001
MAX_TTL = 366 * 24 * 3600.0


def name_problem(text: object, max_length: int = MAX_NAME_LENGTH) -> str | None:
    """Internal. Why ``text`` cannot be stored as a name on every vendor, or None.

    Shared with the job gate, whose job names and slots follow the same rule.
    """
    if not isinstance(text, str):
        return f"is a {type(text).__name__}, not a string"
    if not text:
        return "is empty"
    if len(text) > max_length:
        return f"is {len(text)} characters long; at most {max_length} fit the column"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # What Python makes of command-line bytes that are not UTF-8 (surrogateescape).
        return "has bytes that are not UTF-8"
    if any(unicodedata.category(c) == "Cc" for c in text):
        return "has a control character (NUL, tab, newline...)"
    return None


def check_ttl(ttl: float) -> float:
    """Internal. ``ttl`` as seconds, or ValueError outside ``MIN_TTL``–``MAX_TTL``."""
    try:
        seconds = float(ttl)
    except (TypeError, ValueError):
        raise ValueError(f"ttl must be a number of seconds, not {ttl!r}") from None
    if not (math.isfinite(seconds) and MIN_TTL <= seconds <= MAX_TTL):
        raise ValueError(f"ttl must be between {MIN_TTL:g} and {MAX_TTL:g} seconds, not {ttl!r}")
    return seconds


class Validity:
    """Internal. The holder's own, conservative view of whether it still holds a grant.

    Valid until ``sent_at(last successful renew) + deadline`` on the monotonic clock, or
    until someone says the grant is gone.
    """

    def __init__(
        self,
        deadline: float,
        sent_at: float,
        on_lost: Callable[[str], None] | None = None,
    ) -> None:
        self.deadline = deadline
        self._valid_until = sent_at + deadline
        self._lost_reason: str | None = None
        self._lock = threading.Lock()
        # Called once, with the reason, when the grant is first said to be gone.
        self._on_lost = on_lost

    def renewed(self, sent_at: float) -> None:
        with self._lock:
            if self._lost_reason is None:
                self._valid_until = max(self._valid_until, sent_at + self.deadline)

    def lose(self, reason: str) -> None:
        with self._lock:
            first = self._lost_reason is None
            if first:
                self._lost_reason = reason
        if first and self._on_lost is not None:
            self._on_lost(reason)

    @property
    def valid(self) -> bool:
        return self._lost_reason is None and time.monotonic() < self._valid_until

    def check(self, what: str) -> None:
        if self._lost_reason is not None:
            raise LeaseLost(f"{what}: {self._lost_reason}")
        if time.monotonic() >= self._valid_until:
            raise LeaseLost(f"{what}: no successful renewal within {self.deadline:g} s")


class Heartbeat:
    """Internal. A thread that renews a grant every ``interval`` seconds on its own connection.

    ``renew(cursor, dialect)`` returns False when the database says the grant is gone;
    then the heartbeat stops and marks the validity lost. Errors are retried until the
    local deadline passes.
    """

    def __init__(
        self,
        using: str,
        validity: Validity,
        interval: float,
        renew: Callable[[Cursor, Dialect], bool],
        name: str,
    ) -> None:
        self.using = using
        self.validity = validity
        self.interval = interval
        self.renew = renew
        self._stop = threading.Event()
        # The heartbeat is per grant and dies with it: not the timer thread the audit looks for.
        self._thread = threading.Thread(  # horizontal: ignore[timer-thread]
            target=self._loop, name=f"horizontal-heartbeat:{name}"
        )
        self._thread.daemon = True

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _loop(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                failpoints.hit("before_renew")
                sent_at = time.monotonic()
                try:
                    # A fence never blocks the renewal (it locks the token, the renewal
                    # changes the expiry); a takeover in progress does, for at most
                    # ROW_LOCK_WAIT, as the takeover itself waits no longer.
                    ok = run_statement(self.using, self.renew)
                except DatabaseError as exc:
                    logger.warning("renewal failed, will retry: %s", exc)
                    if not self.validity.valid:
                        self.validity.lose(f"renewals failed until the deadline ({exc})")
                        return
                    continue
                if not ok:
                    self.validity.lose("the database reports that another holder took over")
                    return
                self.validity.renewed(sent_at)
        finally:
            connections[self.using].close()


class Lease:
    """A held lease. Use ``renew()`` or ``keep_alive()``, ``check()``, ``fence()``."""

    def __init__(
        self,
        name: str,
        owner: str,
        token: int,
        ttl: float,
        renew_deadline: float,
        using: str,
        sent_at: float,
    ) -> None:
        self.name = name
        self.owner = owner
        self.token = token
        self.ttl = ttl
        self.using = using
        self.validity = Validity(renew_deadline, sent_at, self._lost)

    def _lost(self, reason: str) -> None:
        if reason == RELEASED:
            signals.send(signals.lease_released, Lease, name=self.name, token=self.token)
        else:
            signals.send(signals.lease_lost, Lease, name=self.name, token=self.token, reason=reason)

    def __repr__(self) -> str:
        return f"<Lease {self.name!r} token={self.token} owner={self.owner!r}>"

    @property
    def valid(self) -> bool:
        return self.validity.valid

    def check(self) -> None:
        """Raise ``LeaseLost`` if this holder can no longer be sure it holds the lease."""
        self.validity.check(f"lease {self.name!r} (token {self.token})")

    def _renew_statement(self, cursor: Cursor, dialect: Dialect) -> bool:
        return dialect.renew_lease(
            cursor, self.name, self.owner, self.token, milliseconds(self.ttl)
        )

    def renew(self) -> bool:
        """Extend the lease by its TTL; False (and no longer valid) if it was lost.

        A fenced transaction of this holder does not block it (docs/leases.md).
        """
        sent_at = time.monotonic()
        if run_statement(self.using, self._renew_statement):
            self.validity.renewed(sent_at)
            return True
        self.validity.lose("the database reports the lease expired or was taken over")
        return False

    def release(self) -> bool:
        """Expire the lease now (the row stays, so the next token is ours + 1)."""
        self.validity.lose(RELEASED)
        return run_statement(
            self.using,
            lambda cursor, dialect: dialect.release_lease(
                cursor, self.name, self.owner, self.token
            ),
        )

    @contextmanager
    def keep_alive(self, interval: float | None = None) -> Iterator[Lease]:
        """Renew in a background thread every ``interval`` (default ttl / 3) until exit."""
        heartbeat = Heartbeat(
            self.using, self.validity, interval or self.ttl / 3, self._renew_statement, self.name
        ).start()
        try:
            yield self
        finally:
            heartbeat.stop()

    def fence(self, queryset: QuerySet[Any], **updates: Any) -> int:
        """``queryset.update(**updates)`` only while this token holds the lease.

        Raises ``FencedOut`` when a newer token holds it (the update changed nothing).
        """
        from horizontal.models import Lease as LeaseRow

        self.check()
        guard = LeaseRow.objects.filter(name=self.name, token=self.token)
        return fenced_update(
            self.using,
            queryset,
            updates,
            held=lambda cursor, dialect: dialect.lease_is_held(
                cursor, self.name, self.token, milliseconds(self.ttl)
            ),
            guard=guard,
            what=f"lease {self.name!r} token {self.token}",
        )

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.release()
        except DatabaseError:
            logger.warning("could not release lease %r; it expires by itself", self.name)


def fenced_update(
    using: str,
    queryset: QuerySet[Any],
    updates: dict[str, Any],
    *,
    held: Callable[[Cursor, Dialect], bool],
    guard: QuerySet[Any],
    what: str,
) -> int:
    """Internal. Lock the grant's token, then update; both in one transaction.

    ``held`` locks the grant's (key, token) so that a takeover, which must change the
    token, waits until this transaction ends; a renewal, which changes only the expiry,
    does not wait, so a long fenced transaction keeps its own grant alive. ``held`` also
    bounds how long the transaction may sit idle (the TTL) where the server can: a holder
    paused inside it loses the transaction, not the fleet its slot. The update itself is
    conditioned on the token in the same statement.
    """
    if queryset.db != using:
        raise ValueError(
            f"fenced writes must use the database that holds the lease ({using!r}), "
            f"not {queryset.db!r}"
        )
    connection = connections[using]
    with transaction.atomic(using=using):
        with connection.cursor() as cursor:
            if not held(cursor, dialect_for(connection)):
                raise FencedOut(f"{what} no longer holds: the write was not made")
        updated: int = queryset.filter(Exists(guard)).update(**updates)
        return updated


# Names horizontal keeps for itself: its own leases (``horizontal:scheduler``,
# ``horizontal:migrate``) and xact_lock's rows, which share the lease table on
# MySQL/MariaDB and SQLite as ``xact:<name>``. Compared case-blind, so that a column a
# migration has not yet made byte-exact (horizontal.W036) cannot fold one onto the other.
RESERVED_PREFIXES = ("horizontal:", "xact:")


def acquire(
    name: str,
    *,
    ttl: float | None = None,
    renew_deadline: float | None = None,
    owner: str | None = None,
    using: str | None = None,
) -> Lease | None:
    """Take the lease ``name`` if it is free or expired; None if someone holds it.

    A name or owner no database stores as given raises ``InvalidName``, a TTL out of
    range ``ValueError``: before any statement runs, the same on every vendor. Names
    starting with ``horizontal:`` or ``xact:`` are horizontal's own (``InvalidName``).
    """
    if isinstance(name, str) and name.casefold().startswith(RESERVED_PREFIXES):
        raise InvalidName(
            f"lease name {name!r} is reserved: names starting with "
            f"{' or '.join(repr(p) for p in RESERVED_PREFIXES)} are horizontal's own "
            "(its scheduler and migration leases, xact_lock's rows)"
        )
    return acquire_reserved(name, ttl=ttl, renew_deadline=renew_deadline, owner=owner, using=using)


def acquire_reserved(
    name: str,
    *,
    ttl: float | None = None,
    renew_deadline: float | None = None,
    owner: str | None = None,
    using: str | None = None,
) -> Lease | None:
    """Internal. ``acquire`` without the reserved-name rule: horizontal's own leases.

    Validated like any other: a name, owner or TTL no vendor stores as given is refused.
    """
    problem = name_problem(name)
    if problem is not None:
        raise InvalidName(f"lease name {name!r} {problem}")
    ttl = check_ttl(conf.LEASE_TTL if ttl is None else ttl)
    renew_deadline = ttl * 2 / 3 if renew_deadline is None else float(renew_deadline)
    if not 0 < renew_deadline < ttl:
        raise ValueError("renew_deadline must be positive and shorter than ttl")
    owner = owner or instance_id()
    problem = name_problem(owner)
    if problem is not None:
        raise InvalidName(f"lease owner {owner!r} {problem}")
    using = using or conf.DATABASE
    sent_at = time.monotonic()
    try:
        token = run_statement(
            using,
            lambda cursor, dialect: dialect.acquire_lease(cursor, name, owner, milliseconds(ttl)),
        )
    except RowLocked:
        # Locked for that long: a holder is inside a fenced transaction. Held.
        return None
    if token is None:
        return None
    lease = Lease(name, owner, token, ttl, renew_deadline, using, sent_at)
    signals.send(signals.lease_acquired, Lease, name=name, token=token, ttl=ttl)
    return lease
