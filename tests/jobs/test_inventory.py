"""``manage.py jobs`` (horizontal/jobs/inventory.py): every job, even next to a broken one."""

from __future__ import annotations

from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import call_command

from horizontal.jobs import Run, job, registry

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def scratch_registry() -> Iterator[None]:
    before = dict(registry.jobs)
    registry.jobs.clear()
    yield
    registry.jobs.clear()
    registry.jobs.update(before)
    registry.duplicates.clear()


def noop(run: Run) -> None:
    pass


def test_hardening_03_jobs_lists_the_good_jobs_and_the_bad_one_with_its_error_id() -> None:
    job("a_nightly", schedule="0 0 * * *")(noop)
    job("b_never", schedule="0 0 30 2 *")(noop)
    job("c_hourly", schedule="0 * * * *")(noop)
    out = StringIO()
    call_command("jobs", stdout=out)
    text = out.getvalue()
    lines = text.splitlines()
    titles = [line for line in lines if not line.startswith(" ")]
    assert titles == ["a_nightly", "b_never", "c_hourly"], text
    never = lines[lines.index("b_never") + 2]
    assert never.strip().startswith("error: horizontal.E018: Job 'b_never'"), text
    assert sum("next slot: " in line for line in lines) == 2, text
