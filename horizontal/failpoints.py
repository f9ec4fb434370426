"""Named fault-injection points for the chaos suite.

``HORIZONTAL_FAILPOINTS="after_claim=sleep:10,before_finish=exit"`` takes effect only
when ``HORIZONTAL_DEBUG_FAILPOINTS = True``; in every other configuration ``hit()`` is a
dictionary lookup on an empty string and does nothing.

Actions: ``sleep:SECONDS``, ``exit`` (``os._exit(137)``, like a kill -9 of ourselves,
with no cleanup), ``stop`` (SIGSTOP ourselves: a test resumes us with SIGCONT),
``raise`` (``RuntimeError``). ``exit_once:PATH`` and ``stop_once:PATH`` act only if the
file PATH exists, and remove it first: a test arms one process at one moment by creating
the file. Alternatives joined by ``|`` are tried in order and the first that applies
acts, so one point can be armed for either: ``mid_job=exit_once:A|stop_once:B``.
"""

from __future__ import annotations

import os
import signal
import time

from horizontal.conf import conf


def _parse(spec: str) -> dict[str, str]:
    points = {}
    for item in filter(None, (part.strip() for part in spec.split(","))):
        name, _, action = item.partition("=")
        points[name.strip()] = action.strip()
    return points


def hit(name: str) -> None:
    spec = conf.FAILPOINTS
    if not spec:
        return
    for action in filter(None, _parse(spec).get(name, "").split("|")):
        if _act(name, action.strip()):
            return


def _act(name: str, action: str) -> bool:
    """Carry out one action; False when it is a one-shot whose trigger file is absent."""
    if action.startswith(("exit_once:", "stop_once:")):
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
    elif action == "raise":
        raise RuntimeError(f"failpoint {name}")
    else:
        raise ValueError(f"unknown failpoint action {action!r} for {name!r}")
    return True
