"""Jobs that run once per scheduled slot, whichever and however many nodes start them."""

from __future__ import annotations

from horizontal.exceptions import FencedOut, LeaseLost
from horizontal.jobs.registry import Job, job, registry
from horizontal.jobs.runner import Outcome, Run, run_job

__all__ = ["FencedOut", "Job", "LeaseLost", "Outcome", "Run", "job", "registry", "run_job"]
