"""Whether Celery beat has anything to schedule.

``celery worker --beat`` in every replica runs each periodic task N times, but a project
that defines no periodic task anywhere (no ``beat_schedule``, no ``add_periodic_task``,
no database scheduler such as django-celery-beat's or RedBeat's) gives beat nothing to
send: the extra schedulers are idle, and the finding is dropped. The runner asks only
when the scan read the project's settings: a tree of deploy files alone cannot tell.
Text only.
"""

from __future__ import annotations

from collections.abc import Mapping

from horizontal.audit.deploy import CELERY_PROGRAM, EMBEDDED_BEAT, IN_PROCESS_BEAT
from horizontal.audit.findings import Finding, line_of
from horizontal.audit.start_messages import BEAT_EVERYWHERE, BEAT_IN_WORKER_CODE

__all__ = ["defines_periodic_tasks", "without_idle_beats"]

# What a schedule for beat is written with: a settings or config dict (``beat_schedule``,
# ``CELERY_BEAT_SCHEDULE``, ``CELERYBEAT_SCHEDULE``), a task decorator or a signal
# handler (``periodic_task``, ``add_periodic_task``), or a scheduler that reads schedules
# from a store (django-celery-beat, djcelery, RedBeat) filled at run time.
PERIODIC_MARKERS = (
    "beat_schedule",
    "BEAT_SCHEDULE",
    "periodic_task",
    "PeriodicTask",
    "celery_beat",
    "djcelery",
    "redbeat",
    "RedBeat",
    "beat_scheduler",
    "BEAT_SCHEDULER",
)


def defines_periodic_tasks(text: str) -> bool:
    if "eat" not in text and "EAT" not in text and "eriodic" not in text:
        return False  # none of the markers can be in it
    return any(marker in text for marker in PERIODIC_MARKERS)


def without_idle_beats(
    findings: list[Finding], texts: Mapping[str, list[str]], schedules: bool
) -> list[Finding]:
    """``findings`` without the Celery beats started in every replica when nothing in
    the project schedules a periodic task."""
    if schedules:
        return findings
    return [f for f in findings if not _celery_beat(f, texts)]


def _celery_beat(finding: Finding, texts: Mapping[str, list[str]]) -> bool:
    if finding.message == BEAT_IN_WORKER_CODE:
        return True  # a worker built in Python with beat=True: Celery's by construction
    if finding.message != BEAT_EVERYWHERE:
        return False
    # The finding's own text first: a command continued over lines (``command = celery``
    # then ``    -A proj beat``) is whole there, its first physical line is not.
    line = finding.source or line_of(texts, finding.path, finding.line) or ""
    celery = CELERY_PROGRAM.search(line) is not None  # not APScheduler's runapscheduler
    return celery and bool(EMBEDDED_BEAT.search(line) or IN_PROCESS_BEAT.search(line))
