"""``horizontal.jobs.run``: the object a job body receives, under its documented import."""

from __future__ import annotations

import horizontal.jobs
from horizontal.jobs import Run
from horizontal.jobs import run as run_module


def test_the_documented_import_is_the_run_class() -> None:
    assert Run is run_module.Run
    for name in horizontal.jobs.__all__:
        assert getattr(horizontal.jobs, name) is not None
