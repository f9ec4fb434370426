"""Jobs that run once per scheduled slot, whichever and however many nodes start them.

The public face (docs/jobs.md): ``@job`` registers a function, the body receives a
``Run``, ``run_job`` runs one job and returns an ``Outcome`` per slot. The modules behind
it: ``registry`` (``@job``), ``validation`` (E010–E018), ``slots`` (cron to slot),
``gate`` (the claim), ``run`` (what a body gets), ``runner`` (policy and execution),
``interrupts`` (signals wait for the gate's bookkeeping), ``executors`` (hand-offs to an
executor other than inline), ``report`` (outcomes, exit codes, messages), ``scheduler``,
``inventory`` (``manage.py jobs``: text, JSON, ``--check``), ``control`` (pause/resume)
and ``prune`` (retention).
"""

from __future__ import annotations

from horizontal.exceptions import FencedOut, LeaseLost
from horizontal.jobs.registry import Job, job, registry
from horizontal.jobs.report import Outcome, OutcomeStatus
from horizontal.jobs.run import Run
from horizontal.jobs.runner import run_job

__all__ = [
    "FencedOut",
    "Job",
    "LeaseLost",
    "Outcome",
    "OutcomeStatus",
    "Run",
    "job",
    "registry",
    "run_job",
]
