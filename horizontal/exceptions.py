"""Errors that job and application code is expected to catch or let propagate."""

from __future__ import annotations

__all__ = [
    "FencedOut",
    "HorizontalError",
    "InvalidJob",
    "InvalidName",
    "InvalidSlot",
    "LeaseLost",
    "TransactionRefused",
    "UnknownJob",
]


class HorizontalError(Exception):
    """Base class for every error raised by horizontal."""


class LeaseLost(HorizontalError):
    """The lease or claimed run is no longer held: stop starting new work.

    Raised at the next checkpoint (``run.check()``, ``run.effect()``, ``run.fence()``)
    once the holder can no longer prove, from its own monotonic clock, that its last
    successful renewal is recent enough, or once the database says another holder
    has taken over.
    """


class FencedOut(LeaseLost):
    """A fenced write changed nothing because a newer token holds the lease or run."""


class TransactionRefused(HorizontalError):
    """A lease or gate statement was called inside the caller's open transaction.

    Lease and gate statements must commit on their own: inside an outer transaction
    they would be invisible to other instances until that transaction commits and,
    on PostgreSQL, would see the transaction's start time as "now".
    """


class UnknownJob(HorizontalError):
    """No job is registered under that name."""


class InvalidSlot(HorizontalError, ValueError):
    """A slot that is not a tick of the job's schedule, is in the future, or is text no
    database can store as given (a control character, bytes that are not UTF-8)."""


class InvalidName(HorizontalError, ValueError):
    """A lease name (or owner) no database can store as given: empty, too long for the
    column, a control character (NUL), or bytes that are not UTF-8. Also a lease or
    ``xact_lock`` name horizontal reserves for its own (``horizontal:``, ``xact:``).

    The same rule on every vendor, checked before any statement runs: otherwise one
    vendor stores the name, another truncates it, a third raises its own error.
    """


class InvalidJob(InvalidSlot):
    """The job's registration has a ``horizontal.E0xx`` error, so ``runjob`` refuses it.

    A subclass of ``InvalidSlot`` because ``run_job`` raised that for this case before
    ``InvalidJob`` existed: code that catches ``InvalidSlot`` keeps catching it.
    """
