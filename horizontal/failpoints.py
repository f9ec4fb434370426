"""Named fault-injection points for the chaos suite.

``HORIZONTAL_FAILPOINTS="after_claim=sleep:10,before_finish=exit"`` takes effect only
when ``HORIZONTAL_DEBUG_FAILPOINTS = True``; in every other configuration ``hit()`` is a
dictionary lookup on an empty string and does nothing.

Actions: ``sleep:SECONDS``, ``exit`` (``os._exit(137)``, like a kill -9 of ourselves,
with no cleanup), ``stop`` (SIGSTOP ourselves: a test resumes us with SIGCONT),
``raise`` (``RuntimeError``), ``disconnect`` (where the point offers one: drop the
database connection, as a network fault that loses a committed statement's reply would).
``exit_once:PATH``, ``stop_once:PATH`` and ``disconnect_once:PATH`` act only if the
file PATH exists, and remove it first: a test arms one process at one moment by creating
the file. Alternatives joined by ``|`` are tried in order and the first that applies
acts, so one point can be armed for either: ``mid_job=exit_once:A|stop_once:B``.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

from horizontal.conf import conf


def _parse(spec: str) -> dict[str, str]:
    points = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, action = item.partition("=")
        points[name.strip()] = action.strip()
    return points


def hit(name: str, *, disconnect: Callable[[], None] | None = None) -> None:
    spec = conf.FAILPOINTS
    if not spec:
        return
    for action in filter(None, _parse(spec).get(name, "").split("|")):
        if _act(name, action.strip(), disconnect):
            return


def _act(name: str, action: str, disconnect: Callable[[], None] | None = None) -> bool:
    """Carry out one action; False when it is a one-shot whose trigger file is absent."""
    if action.startswith(("exit_once:", "stop_once:", "disconnect_once:")):
        kind, _, path = action.partition(":")
        try:
            os.remove(path)
        except FileNotFoundError:
            return False
        action = kind.removesuffix("_once")
    if action.startswith("sleep:"):
        time.sleep(float(action.removeprefix("sleep:")))
    elif action == "exit":
        os._exit(137)
    elif action == "stop":
        os.kill(os.getpid(), signal.SIGSTOP)
    elif action == "disconnect" and disconnect is not None:
        disconnect()
    elif action == "raise":
        raise RuntimeError(f"failpoint {name}")
    else:
        raise ValueError(f"unknown failpoint action {action!r} for {name!r}")
    return True
