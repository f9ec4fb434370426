"""Classes of the twenty-third round (issue 14), each with a true case and a safe twin.

They came from the thirty-third labelled group (developer-portal, lite-api, carbure,
le-marche, mozillians), measured once before any of them was written.

- Huey's periodic tasks of one module are one cause (every consumer's scheduler enqueues
  them all; one fix, ``run_huey --no-periodic`` on all consumers but one): one finding at
  the first, the others related. Plain ``@db_task`` functions are no periodic work.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_outside_measurements import scan, where

TASKS = """\
from huey import crontab
from huey.contrib.djhuey import db_periodic_task, db_task, periodic_task


@db_periodic_task(crontab(minute="0"))
def refresh_rates():
    pass


@periodic_task(crontab(hour="3"))
def purge_exports():
    pass


@db_task()
def send_mail(address):
    pass
"""


def test_a_modules_periodic_tasks_are_one_finding(tmp_path: Path) -> None:
    found = scan(tmp_path, {"web/tasks.py": TASKS}, "scheduler")
    assert where(found) == [("web/tasks.py", 5)]
    assert [(r.path, r.line) for r in found[0].related] == [("web/tasks.py", 10)]
    assert "1 more periodic task" in found[0].message


def test_plain_tasks_are_silent(tmp_path: Path) -> None:
    plain = TASKS.replace('@db_periodic_task(crontab(minute="0"))', "@db_task()").replace(
        '@periodic_task(crontab(hour="3"))', "@db_task()"
    )
    assert "periodic_task(" not in plain.split("\n\n\n", 1)[1]
    assert scan(tmp_path, {"web/tasks.py": plain}, "scheduler") == []
