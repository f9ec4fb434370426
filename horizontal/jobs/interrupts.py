"""SIGTERM/SIGINT wait while the gate's bookkeeping runs: ``InterruptShield``; and
``raised_over_an_interrupt``, an error a driver raised while the interrupt unwound.

The runner holds the shield from before a claim until the body starts, and again from
the body's end until its result (or the hand-back) is on record; a signal that arrives
meanwhile is acted on when the shield is released.
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

from horizontal.jobs.run import Interrupted

__all__ = ["InterruptShield", "raised_over_an_interrupt"]

logger = logging.getLogger("horizontal.jobs")

_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class InterruptShield:
    """Defers SIGTERM/SIGINT while the gate's bookkeeping runs: claim, hand-back, finish.

    A handler that raised ``Interrupted`` in the middle of a claim or a finish left the
    slot claimed by nobody who knew it (or a finished run unrecorded) until its claim
    expired, and for ever for a job that does not re-claim crashed runs. Held, a signal
    is noted; ``release()`` puts the handlers back and runs the one that was deferred,
    at a point that knows what this process holds. Only in the main thread (the only
    one Python delivers signals to), and only over handlers installed in Python (the
    commands' own): a default SIGTERM still ends the process at once, like a kill.
    """

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}
        self._deferred: int | None = None

    def hold(self) -> InterruptShield:
        if self._previous or threading.current_thread() is not threading.main_thread():
            return self
        for signum in _SIGNALS:
            handler = signal.getsignal(signum)
            if callable(handler):
                self._previous[signum] = handler
                signal.signal(signum, self._defer)
        return self

    def _defer(self, signum: int, frame: object) -> None:
        if self._deferred is None:
            self._deferred = signum

    def release(self) -> bool:
        """Deliver what was deferred; True if that raised ``Interrupted`` (caught here)."""
        previous, self._previous = self._previous, {}
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        deferred, self._deferred = self._deferred, None
        if deferred is None or deferred not in previous:
            return False
        logger.info(
            "%s arrived during the gate's bookkeeping: acted on now",
            signal.Signals(deferred).name,
        )
        try:
            previous[deferred](deferred, None)
        except Interrupted:
            return True
        return False


# How far back through an exception's causes an interrupt is looked for.
INTERRUPT_CHAIN_DEPTH = 5


def raised_over_an_interrupt(error: BaseException) -> bool:
    """Whether ``Interrupted`` is among what ``error`` was raised while handling: a
    driver's cleanup (pymysql's ``set_autocommit`` on a socket the signal cut in the
    middle of a reply) replaces the interrupt with its own error."""
    seen: BaseException | None = error
    for _ in range(INTERRUPT_CHAIN_DEPTH):
        seen = seen.__cause__ or seen.__context__ if seen is not None else None
        if isinstance(seen, Interrupted):
            return True
    return False
