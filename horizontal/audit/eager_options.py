"""One write of an option that makes a task system run its jobs in the caller, as the
Celery reader (``celery_conf.py``) and the RQ reader (``rq_queues.py``) both report it;
kept apart so that neither imports the other's reader.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["EagerOption", "Guards"]

Guards = tuple[tuple[str, bool], ...]


class EagerOption(NamedTuple):
    """One write of an eager option on an app's ``conf``, in the order the module runs
    them: where, which, and its value, a literal (``value``), one of Django's settings to
    read live (``setting``), or neither when the source cannot tell (an environment
    lookup: ``value`` None). ``guards`` are the settings the enclosing ``if`` tests read,
    each with whether it is negated."""

    path: str
    line: int
    option: str
    value: object
    setting: str | None
    guards: Guards
    # The module whose app it configures, and whether it comes from a configuration object
    # (``app.config_from_object("proj.celeryconfig")``), which a write on ``app.conf``
    # overrides wherever it stands.
    scope: str = ""
    from_source: bool = False
    # An environment lookup (``os.environ.get("EAGER", "yes")``): the variable and its
    # fallback, read where the check runs (Celery tests the value's truth).
    variable: str | None = None
    fallback: object = None
